"""The WSGI adapter: environ and ``wsgi.input`` in, ``start_response`` out."""
