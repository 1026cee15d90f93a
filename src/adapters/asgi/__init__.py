"""The ASGI adapter: scope and ``receive()`` in, ``send()`` out.

- :class:`ASGIRequest`: a :class:`~sansio_http.Request` read from a scope,
  with ``await body()``, ``stream()``, ``await form()``, ``await json()``
  and disconnect detection.
- :class:`WebSocket` and :class:`WebSocketDisconnect`: websocket sessions.
- :func:`to_asgi`: an :class:`~sansio_http.App` as an ASGI 3 application.
- :func:`asgi_app`: ``async def handler(request) -> Response`` as an ASGI 3
  application, with lifespan hooks and a websocket handler.
- :class:`ThreadPools` and :class:`ThreadPool`: the bounded threads of an
  application's blocking work, one pool for each kind.
"""

from __future__ import annotations

from ._app import asgi_app as asgi_app
from ._app import to_asgi as to_asgi
from ._request import ASGIRequest as ASGIRequest
from ._static import OSFileSystem as OSFileSystem
from ._threads import ThreadPool as ThreadPool
from ._threads import ThreadPools as ThreadPools
from ._websocket import WebSocket as WebSocket
from ._websocket import WebSocketDisconnect as WebSocketDisconnect

__all__ = [
    "ASGIRequest",
    "OSFileSystem",
    "ThreadPool",
    "ThreadPools",
    "WebSocket",
    "WebSocketDisconnect",
    "asgi_app",
    "to_asgi",
]
