"""The test client that drives WSGI and ASGI applications in-process.

- :class:`Client`: requests with params, headers, cookies, JSON, forms,
  file uploads and streamed bodies; a cookie jar; redirects; an ASGI
  lifespan around a ``with`` block; websocket sessions.
- :class:`ClientResponse`: status, headers, ``content``, ``text``,
  ``json()`` (gzip and deflate undone), the cookies set, and streamed reading.
- :class:`CookieJar`: RFC 6265 storage and matching, with an injectable clock.
- :func:`encode_multipart`: a browser's ``multipart/form-data`` encoding.

It needs nothing beyond the core and the standard library.
"""

from __future__ import annotations

from ._asgi import LifespanError as LifespanError
from ._client import Client as Client
from ._client import Interface as Interface
from ._client import RequestOptions as RequestOptions
from ._client import TooManyRedirects as TooManyRedirects
from ._client import detect_interface as detect_interface
from ._codings import DecodingError as DecodingError
from ._cookies import Cookie as Cookie
from ._cookies import CookieJar as CookieJar
from ._cookies import parse_set_cookie as parse_set_cookie
from ._multipart import encode_multipart as encode_multipart
from ._request import ClientRequest as ClientRequest
from ._response import ClientResponse as ClientResponse
from ._websocket import WebSocketClosed as WebSocketClosed
from ._websocket import WebSocketDenied as WebSocketDenied
from ._websocket import WebSocketSession as WebSocketSession

__all__ = [
    "Client",
    "ClientRequest",
    "ClientResponse",
    "Cookie",
    "CookieJar",
    "DecodingError",
    "Interface",
    "LifespanError",
    "RequestOptions",
    "TooManyRedirects",
    "WebSocketClosed",
    "WebSocketDenied",
    "WebSocketSession",
    "detect_interface",
    "encode_multipart",
    "parse_set_cookie",
]
