"""The App that tests/integration/test_close_order.py runs under real servers.

``/<kind>/events?tag=<tag>`` is a server-sent-events stream with a keep-alive
every :data:`KEEPALIVE_INTERVAL` seconds. Its producer (``def`` or ``async
def``, after ``kind``) sends one event, then blocks for :data:`BLOCK`
seconds: a ``def`` one in ``time.sleep``, as a slow database call would,
which no thread can interrupt; an ``async def`` one in ``asyncio.sleep``.
A client that leaves meanwhile is seen by the server at its next write.

The producer's ``finally`` and the work of ``Response.call_on_close`` each
append a line ``<what> <tag> <time.monotonic()>`` to the file named by the
environment variable ``CLOSE_ORDER_LOG``. The App has GZipMiddleware in
front: the stream drops ``no-transform``, so that a client that accepts gzip
gets the body wrapped by it. ``wsgi_application`` (wrapped in
``wsgiref.validate``) and ``asgi_application`` serve the same views.
"""

from __future__ import annotations

import asyncio
import os
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from wsgiref.validate import validator

from sansio_http import App, EventStream, GZipMiddleware, Request, Response, ServerSentEvent
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi

warnings.simplefilter("error")

#: Where the lines go; nothing is written without it.
LOG = os.environ.get("CLOSE_ORDER_LOG", "")
#: How long a producer blocks after its first event.
BLOCK = 2.0
#: Seconds between keep-alives: the server sees a client gone at the next write.
KEEPALIVE_INTERVAL = 0.1


def note(what: str, tag: str) -> None:
    """Append ``<what> <tag> <monotonic time>`` to the log, in one write."""
    if LOG:
        with open(LOG, "a", encoding="utf-8") as file:
            file.write(f"{what} {tag} {time.monotonic():.6f}\n")


def sync_events(tag: str) -> Iterator[ServerSentEvent]:
    """Send one event, block in ``time.sleep`` for :data:`BLOCK` s, send another."""
    try:
        yield ServerSentEvent("first", id=1)
        deadline = time.monotonic() + BLOCK
        while time.monotonic() < deadline:
            time.sleep(0.05)
        yield ServerSentEvent("second", id=2)
    finally:
        note("finally", tag)


async def async_events(tag: str) -> AsyncIterator[ServerSentEvent]:
    """The same, waiting in ``asyncio.sleep``: a client that leaves cancels it."""
    try:
        yield ServerSentEvent("first", id=1)
        deadline = time.monotonic() + BLOCK
        while time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        yield ServerSentEvent("second", id=2)
    finally:
        note("finally", tag)


app = App("close-order")
app.add_middleware(GZipMiddleware(minimum_size=0))


@app.get("/<kind>/events")
def events(request: Request, kind: str) -> Response:
    """Stream the events of ``kind``'s producer; note the work after the response."""
    tag = request.args.get("tag", "untagged")
    producer = sync_events(tag) if kind == "sync" else async_events(tag)
    response = EventStream(producer, keepalive_interval=KEEPALIVE_INTERVAL)
    response.headers["cache-control"] = "no-cache"  # without no-transform: gzip applies
    response.call_on_close(lambda: note("work", tag))
    return response


wsgi_application = validator(to_wsgi(app))
asgi_application = to_asgi(app)
