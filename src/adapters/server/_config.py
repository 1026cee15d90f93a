"""Settings of the development server: where it listens and what it tolerates.

Every limit is a plain number here so that the connection code stays free of
magic values, and each default says where it comes from.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Interface = Literal["auto", "wsgi", "asgi"]


@dataclasses.dataclass(frozen=True)
class Config:
    """Options of the development server.

    Attributes:
        host: The address to bind; loopback by default.
        port: The TCP port to bind; 0 picks a free one.
        interface: ``"wsgi"``, ``"asgi"``, or ``"auto"`` to detect it.
        debug: Show an HTML traceback page for crashes (loopback only).
        threads: Size of the thread pool that runs WSGI applications.
        max_header_size: Bytes allowed for the request line and headers.
        max_header_count: Header fields allowed in one request.
        max_target_size: Bytes allowed for the request target.
        max_connections: Connections served at once; others get a 503.
        max_drain_size: Unread request body skipped to keep a connection.
        backlog: Connections the kernel queues before the server accepts them.
        header_timeout: Seconds to receive a whole request head.
        body_timeout: Seconds to wait for each piece of a request body, and
            the time allowance a body starts with.
        min_body_rate: Bytes per second that extend the body's allowance by
            one second each; 0 leaves only ``body_timeout`` per piece.
        keepalive_timeout: Seconds an idle keep-alive connection is kept.
        shutdown_timeout: Seconds in-flight requests get on shutdown.
        access_log: Log one line per request.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    interface: Interface = "auto"
    debug: bool = False
    threads: int = 8
    # Nginx's large_client_header_buffers default is 4 x 8 KiB and h11's own
    # cap is 16 KiB; 16 KiB for the whole head fits every browser request.
    max_header_size: int = 16 * 1024
    # Apache's LimitRequestFields default.
    max_header_count: int = 100
    # Nginx answers 414 past its 8 KiB buffer; so do we.
    max_target_size: int = 8 * 1024
    max_connections: int = 1000
    # Skipping a small unread body keeps the connection; a large one costs
    # more than a new connection does.
    max_drain_size: int = 1024 * 1024
    # gunicorn's and uvicorn's default; asyncio's own 100 makes a burst of
    # 1,000 connections wait for SYN retries. The kernel caps it at somaxconn.
    backlog: int = 2048
    # Apache's mod_reqtimeout allows 20 s for headers; a development server
    # on a laptop can be stricter without hurting real clients.
    header_timeout: float = 10.0
    # mod_reqtimeout's "body=20,MinRate=500": 20 s to start, then at least
    # 500 bytes a second on average, so slow uploads cannot hold the WSGI
    # threads for long.
    body_timeout: float = 20.0
    min_body_rate: float = 500.0
    # nginx buffers whole bodies before it calls an upstream, which is what
    # keeps slow clients off gunicorn's workers; 64 KiB covers most form
    # posts and JSON bodies while bounding the memory per connection.
    max_prefetch_size: int = 64 * 1024
    # Nginx's keepalive_timeout is 75 s, uvicorn's 5 s.
    keepalive_timeout: float = 5.0
    shutdown_timeout: float = 10.0
    access_log: bool = True
