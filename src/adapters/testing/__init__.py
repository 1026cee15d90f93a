"""The test client that drives WSGI and ASGI applications in-process."""
