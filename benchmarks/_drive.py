"""How the cycle benchmarks mount and call applications in-process.

- :func:`mount_wsgi` and :func:`mount_asgi` mount a :class:`~sansio_http.App`
  with ``to_wsgi`` / ``to_asgi``, and skip the benchmark with the reason
  while the adapter does not offer them yet;
- :func:`call_wsgi` calls a WSGI application as a server does, with a fresh
  environ and body, and returns the status and the joined body;
  :func:`drive_wsgi` returns a function that does it;
- :func:`drive_asgi` returns a function that calls an ASGI application a
  batch of times with canned ``receive`` and ``send``, inside one
  ``run_until_complete``, so that what is measured is the application and
  not the event loop's start-up.

Both call the application once before they return, untimed: routers (ours,
Falcon's) compile on their first request, and pytest-benchmark sizes its
rounds on the first call it times.

Every implementation of a group goes through the same function, so the cost
of the harness is the same for all of them and cancels in the ratios.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, cast

import pytest

import sansio_http.asgi
import sansio_http.wsgi
from sansio_http import App

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
Message = dict[str, Any]

#: Requests per benchmark round for ASGI applications, as in test_bench_asgi.py.
BATCH = 100


def mount_wsgi(app: App) -> WSGIApp:
    """Return ``to_wsgi(app)``, or skip while ``to_wsgi`` is missing."""
    to_wsgi = getattr(sansio_http.wsgi, "to_wsgi", None)
    if to_wsgi is None:
        pytest.skip("sansio_http.wsgi.to_wsgi has not landed yet: the App cannot run on WSGI")
    return cast(WSGIApp, to_wsgi(app))


def mount_asgi(app: App) -> ASGIApp:
    """Return ``to_asgi(app)``, or skip while ``to_asgi`` is missing."""
    to_asgi = getattr(sansio_http.asgi, "to_asgi", None)
    if to_asgi is None:
        pytest.skip("sansio_http.asgi.to_asgi has not landed yet: the App cannot run on ASGI")
    return cast(ASGIApp, to_asgi(app))


@contextlib.contextmanager
def mounted_asgi(app: App) -> Iterator[ASGIApp]:
    """Mount ``app`` with ``to_asgi`` for the block; stop its thread pool after it."""
    asgi = mount_asgi(app)
    try:
        yield asgi
    finally:
        release(app)


def release(app: App) -> None:
    """Stop the thread pool that ``to_asgi`` gave the App, if it started one."""
    shutdown = getattr(app.thread_runner, "shutdown", None)
    if shutdown is not None:
        shutdown()


def call_wsgi(app: WSGIApp, environ: dict[str, Any], body: bytes = b"") -> tuple[str, bytes]:
    """Call ``app`` with a copy of ``environ`` reading ``body``; return status and body."""
    environ = environ.copy()
    environ["wsgi.input"] = io.BytesIO(body)
    statuses: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        statuses.append(status)

    iterable = app(environ, start_response)
    try:
        content = b"".join(iterable)
    finally:
        close = getattr(iterable, "close", None)
        if close is not None:
            close()
    return statuses[-1], content


async def _drive(app: ASGIApp, scope: dict[str, Any], body: bytes) -> tuple[int, bytes]:
    sent: list[Message] = []
    request = {"type": "http.request", "body": body, "more_body": False}

    async def receive() -> Message:
        return request

    async def send(message: Message) -> None:
        sent.append(message)

    for _ in range(BATCH):
        sent.clear()
        await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def drive_wsgi(
    app: WSGIApp, environ: dict[str, Any], body: bytes = b""
) -> Callable[[], tuple[str, bytes]]:
    """Return a function answering one request; call it once first."""
    call_wsgi(app, environ, body)
    return lambda: call_wsgi(app, environ, body)


def drive_asgi(
    loop: asyncio.AbstractEventLoop, app: ASGIApp, scope: dict[str, Any], body: bytes = b""
) -> Callable[[], tuple[int, bytes]]:
    """Return a function answering BATCH requests; call it once first.

    The function returns the last status and body.
    """
    loop.run_until_complete(_drive(app, scope, body))
    return lambda: loop.run_until_complete(_drive(app, scope, body))
