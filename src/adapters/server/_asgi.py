"""Run an ASGI 3 application: HTTP exchanges and the lifespan protocol.

``receive()`` hands out the request body as it arrives and then waits for the
client to go away; ``send()`` turns ``http.response.*`` messages into h11
events. Websocket connections live in ``_websocket.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

from sansio_http.server._config import Config
from sansio_http.server._debug import error_response, shows_traceback
from sansio_http.server._exchange import BodyError, Exchange, log

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

ASGI_VERSION = {"version": "3.0", "spec_version": "2.4"}


def http_scope(exchange: Exchange, state: dict[str, Any]) -> dict[str, Any]:
    """Return the ASGI ``http`` scope of an exchange."""
    request = exchange.request
    raw_path = exchange.path
    return {
        "type": "http",
        "asgi": ASGI_VERSION,
        "http_version": request.http_version.decode("ascii"),
        "method": request.method.decode("ascii"),
        "scheme": exchange.scheme,
        "path": unquote_to_bytes(raw_path).decode("utf-8", "replace"),
        "raw_path": raw_path,
        "query_string": exchange.query,
        "root_path": "",
        "headers": exchange.headers,
        "client": exchange.client,
        "server": exchange.server,
        "state": dict(state),
        "extensions": {},
    }


class ASGIRunner:
    """Serve exchanges, and the lifespan, with an ASGI application."""

    def __init__(self, app: ASGIApp, config: Config) -> None:
        self.app = app
        self.config = config
        self.state: dict[str, Any] = {}
        self._lifespan_queue: asyncio.Queue[Message] = asyncio.Queue()
        self._lifespan_events: asyncio.Queue[Message] = asyncio.Queue()
        self._lifespan_task: asyncio.Task[None] | None = None
        self._lifespan_supported = True

    async def __call__(self, exchange: Exchange) -> None:
        """Run the application for one HTTP exchange."""
        response_done = asyncio.Event()
        body_failed: list[BodyError] = []

        async def receive() -> Message:
            if not exchange.body_complete:
                try:
                    chunk = await exchange.receive()
                except BodyError as exc:
                    body_failed.append(exc)
                    return {"type": "http.disconnect"}
                if chunk is not None:
                    return {"type": "http.request", "body": chunk, "more_body": True}
                return {"type": "http.request", "body": b"", "more_body": False}
            # The body is read: wait until the response ends or the client goes
            # (a watch of the socket notices it once the body streams).
            done = asyncio.create_task(response_done.wait())
            lost = asyncio.create_task(exchange.lost.wait())
            await asyncio.wait({done, lost}, return_when=asyncio.FIRST_COMPLETED)
            done.cancel()
            lost.cancel()
            return {"type": "http.disconnect"}

        head: dict[str, Any] = {}

        async def send(message: Message) -> None:
            kind = message["type"]
            if body_failed:
                # The app was told of a disconnect; the 400 below answers.
                return
            if exchange.lost.is_set():
                raise OSError("the client disconnected")
            if kind == "http.response.start":
                if head or exchange.started:
                    raise RuntimeError("http.response.start sent twice")
                head.update(message)
            elif kind == "http.response.body":
                if not head:
                    raise RuntimeError("http.response.body before http.response.start")
                if exchange.ended:
                    raise RuntimeError("http.response.body after the response ended")
                if not exchange.started:
                    headers = [(bytes(n), bytes(v)) for n, v in head.get("headers", [])]
                    await exchange.start(int(head["status"]), headers)
                await exchange.write(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    await exchange.end()
                    response_done.set()
            else:
                raise RuntimeError(f"unexpected ASGI message {kind!r}")

        try:
            await self.app(http_scope(exchange, self.state), receive, send)
        except Exception as exc:
            if exchange.lost.is_set():
                return
            if exchange.started:
                # Too late for a 500: close so the client sees a cut response.
                log.error(
                    "Exception after the response to %s %s started; closing the connection",
                    exchange.request.method.decode("ascii"),
                    exchange.path.decode("latin-1"),
                    exc_info=exc,
                )
                exchange.close_after = True
                return
            status, headers, body = error_response(
                exc, shows_traceback(self.config.debug, exchange.headers)
            )
            await exchange.start(status, headers)
            await exchange.write(body)
            await exchange.end()
            return
        finally:
            response_done.set()
        if not exchange.started:
            # An app must answer; treat silence as a crash.
            problem: Exception = RuntimeError("the application returned without a response")
            if body_failed:
                problem = body_failed[0]
            status, headers, body = error_response(
                problem, shows_traceback(self.config.debug, exchange.headers)
            )
            await exchange.start(status, headers)
            await exchange.write(body)
            await exchange.end()
        elif not exchange.ended:
            exchange.close_after = True

    async def startup(self) -> None:
        """Run the lifespan startup; raise RuntimeError when it fails."""
        scope = {"type": "lifespan", "asgi": ASGI_VERSION, "state": self.state}

        async def receive() -> Message:
            return await self._lifespan_queue.get()

        async def send(message: Message) -> None:
            await self._lifespan_events.put(message)

        async def run() -> None:
            try:
                await self.app(scope, receive, send)
            except Exception as exc:
                # An app that does not speak lifespan raises on the scope type.
                await self._lifespan_events.put({"type": "lifespan.unsupported", "exc": exc})
            else:
                # Or it returns at once; then startup must not wait for it.
                await self._lifespan_events.put({"type": "lifespan.unsupported"})

        self._lifespan_task = asyncio.create_task(run())
        await self._lifespan_queue.put({"type": "lifespan.startup"})
        event = await self._lifespan_events.get()
        if event["type"] == "lifespan.startup.failed":
            raise RuntimeError(f"application startup failed: {event.get('message', '')}")
        if event["type"] != "lifespan.startup.complete":
            self._lifespan_supported = False

    async def shutdown(self) -> None:
        """Run the lifespan shutdown, when the application supports it."""
        if self._lifespan_task is None or not self._lifespan_supported:
            return
        await self._lifespan_queue.put({"type": "lifespan.shutdown"})
        try:
            await asyncio.wait_for(self._lifespan_events.get(), self.config.shutdown_timeout)
        except asyncio.TimeoutError:
            self._lifespan_task.cancel()
