"""The ASGI adapter: scope and ``receive()`` in, ``send()`` out."""
