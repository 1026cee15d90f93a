"""The development server on h11 that runs any WSGI or ASGI application."""
