"""One request and its response on an h11 connection, as applications see it.

The connection loop (``_connection.py``) owns the socket and the h11 state
machine; the WSGI and ASGI runners only call :class:`Exchange`'s methods:
read the next piece of the body, start the response, write, end.

Once the request body is read, nothing reads the socket while the response
is made, so a client that leaves would go unnoticed until a write failed
(the second one, often: the first fills the kernel's buffer). Once a
response body streams (its first piece was written), :meth:`Exchange.watch`
reads the socket for the close: ``lost`` is set at once, the next write of
body data raises, and the ASGI runner's ``receive()`` reports
``http.disconnect``. NOTE: as uvicorn and nginx do, a client that shuts down
its sending side while a body streams counts as gone; one that does so
before the first piece of the body (a one-shot client) still gets it all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Final, Protocol

import h11

from sansio_http.http._status import PHRASES
from sansio_http.messages._target import Target
from sansio_http.server._config import Config
from sansio_http.server._date import with_date

log = logging.getLogger("sansio_http.server")

# RFC 9110 §8.6, RFC 9112 §6.1: a 1xx or 204 carries neither field. (A 304
# may keep the Content-Length a 200 would have had; h11 frames it as empty.)
_FRAMING_FIELDS: Final = frozenset({b"content-length", b"transfer-encoding"})


class ChunkChecker(Protocol):
    """Vets the raw bytes of a chunked body as they arrive."""

    def feed(self, data: bytes) -> bool:
        """Account for ``data``; return False when the framing is malformed."""


class BodyError(Exception):
    """The request body could not be read completely."""


class BodyTimeout(BodyError):
    """The request body stopped, or arrived more slowly than allowed."""


class Exchange:
    """A request received on a connection and the response being sent.

    Attributes:
        request: The h11 request event.
        path: The request path, still percent-encoded.
        query: The query string, without ``?``.
        headers: The request's header fields; for an absolute-form target
            the Host is the target's authority (RFC 9112 §3.2.2).
        scheme: ``"http"``; the development server does not terminate TLS.
        client: The peer's address and port.
        server: The local address and port.
        started: Whether the response head has been sent.
        ended: Whether the whole response has been sent.
        status: The response status, once started (for the access log).
        sent_bytes: Body bytes sent so far.
        body_length: The Content-Length the request announced (0 without
            one), or None for a chunked body, whose length is unknown.
        body_received: Request body bytes received so far.
    """

    def __init__(
        self,
        connection: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        config: Config,
        client: tuple[str, int] | None,
        server: tuple[str, int] | None,
        target: Target,
    ) -> None:
        self._h11 = connection
        self._reader = reader
        self._writer = writer
        self._config = config
        self.request = request
        self.path = target.path
        self.query = target.query
        self.headers = effective_headers(request.headers, target.authority)
        self.scheme = "http"
        self.client = client
        self.server = server
        self.started = False
        self.ended = False
        self.status = 0
        self.sent_bytes = 0
        self.body_complete = False
        self.lost = asyncio.Event()
        self.close_after = False
        self.body_length: int | None = None
        self.body_received = 0
        self._head_method = request.method == b"HEAD"
        # Set by start(): whether the response may carry content at all.
        self._no_content = False
        self._dropped = False
        self.chunk_checker: ChunkChecker | None = None
        # What min_body_rate measures: bytes received, seconds spent waiting.
        self._received = 0
        self._waited = 0.0
        self._watcher: asyncio.Task[None] | None = None

    @property
    def expects_continue(self) -> bool:
        """Whether the client waits for ``100 Continue`` before its body."""
        return bool(self._h11.they_are_waiting_for_100_continue) and not self.started

    async def receive(self) -> bytes | None:
        """Return the next piece of the request body, or None at its end.

        Raises:
            BodyTimeout: The client stopped sending for ``body_timeout``, or
                sent more slowly than ``min_body_rate`` allows.
            BodyError: The client closed the connection or broke the
                framing before the body was complete.
        """
        if self.body_complete:
            return None
        if self.expects_continue:
            # RFC 9110 §15.2.1; the reason phrase as in every final response.
            interim = h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue")
            await self._send(interim)
        while True:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as exc:
                self.close_after = True
                raise BodyError(str(exc)) from exc
            if event is h11.NEED_DATA:
                data = await self._read()
                if not data:
                    self.lost.set()
                elif self.chunk_checker is not None and not self.chunk_checker.feed(data):
                    self.close_after = True
                    raise BodyError("malformed chunk-size line")
                self._h11.receive_data(data)
                continue
            if isinstance(event, h11.Data):
                if event.data:
                    self.body_received += len(event.data)
                    return bytes(event.data)
                continue
            if isinstance(event, h11.EndOfMessage):
                self.body_complete = True
                return None
            # ConnectionClosed before EndOfMessage is caught by h11 as a
            # RemoteProtocolError; anything else means a broken state.
            self.close_after = True
            raise BodyError(f"unexpected {type(event).__name__} in the request body")

    async def _read(self) -> bytes:
        """Read from the socket within the body's time allowance."""
        config = self._config
        timeout = config.body_timeout
        if config.min_body_rate:
            # SECURITY: a per-read timeout alone lets a client hold a WSGI
            # thread forever with a byte every few seconds. As Apache's
            # mod_reqtimeout (body=20,MinRate=500) does, the time spent waiting
            # may not exceed body_timeout plus one second per min_body_rate
            # bytes received.
            allowance = config.body_timeout + self._received / config.min_body_rate
            timeout = min(timeout, max(0.0, allowance - self._waited))
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            data = await asyncio.wait_for(self._reader.read(65536), timeout)
        except asyncio.TimeoutError as exc:
            # The client is still there: it gets a 408, then the close.
            self.close_after = True
            raise BodyTimeout("the request body arrived too slowly") from exc
        except ConnectionError as exc:
            self.close_after = True
            self.lost.set()
            raise BodyError("the connection was lost") from exc
        finally:
            self._waited += loop.time() - started
        self._received += len(data)
        return data

    def watch(self) -> None:
        """Start watching the socket for the client's close, once the body is read.

        Does nothing while the body is still being read (the reads notice a
        close), or when a watch runs already; :meth:`stop_watching` ends it.
        """
        if self._watcher is None and self.body_complete and not self.lost.is_set():
            self._watcher = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        try:
            data = await self._reader.read(65536)
        except (ConnectionError, OSError):
            data = b""
        if not data:
            self.lost.set()
            return
        # A pipelined next request: h11 keeps it for the next cycle, and the
        # client is there. NOTE: one read only, so a client cannot make the
        # server buffer without bound while a response streams.
        self._h11.receive_data(data)

    async def stop_watching(self) -> None:
        """Stop the watch, so that the connection can read the next request."""
        watcher = self._watcher
        if watcher is not None:
            self._watcher = None
            watcher.cancel()
            await asyncio.wait((watcher,))

    @property
    def unread_body(self) -> int | None:
        """The announced body bytes not received yet; None when unknown."""
        if self.body_length is None:
            return None
        return self.body_length - self.body_received

    async def start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        """Send the response head, with a ``Date`` unless it has one.

        Raises:
            h11.LocalProtocolError: ``status`` is below 200: h11 sends no
                1xx as a final response. Nothing was sent.
        """
        if status == 413 and not self.body_complete and self.unread_body != 0:
            # RFC 9110 §15.5.14: the server may close the connection so that
            # the client stops sending; the body it announced will not be read.
            self.close_after = True
        if status < 200 or status == 204:
            headers = [(n, v) for n, v in headers if n.lower() not in _FRAMING_FIELDS]
        if self.close_after:
            headers = [(n, v) for n, v in headers if n.lower() != b"connection"]
            headers.append((b"connection", b"close"))
        reason = PHRASES.get(status, "").encode("ascii")
        # Built before the exchange counts as started, so that a status h11
        # refuses (a 1xx as the final response) can still become a 500.
        response = h11.Response(status_code=status, headers=with_date(headers), reason=reason)
        self.status = status
        self.started = True
        # RFC 9110 §9.3.2, §15.3.5, §15.4.5: no content in answer to HEAD or
        # in a 204 or 304 (h11 frames them as empty, and refuses more).
        self._no_content = self._head_method or status == 204 or status == 304
        await self._send(response)

    async def write(self, data: bytes) -> None:
        """Send a piece of the response body (dropped for HEAD, 204 and 304)."""
        if not data:
            return
        if self._no_content:
            if not self._head_method and not self._dropped:
                # Once per response: the access log line names the request.
                self._dropped = True
                log.warning(
                    "the application sent content with a %d response; it was dropped"
                    " (RFC 9110 §15.3.5, §15.4.5)",
                    self.status,
                )
            return
        if self.lost.is_set():
            # The watch saw the close: more data would only fill a buffer.
            raise ConnectionResetError("the client closed the connection")
        self.sent_bytes += len(data)
        await self._send(h11.Data(data=data))
        if self._watcher is None and self.body_complete:
            self.watch()

    async def end(self) -> None:
        """Finish the response."""
        if not self.ended:
            self.ended = True
            await self._send(h11.EndOfMessage())

    async def _send(self, event: h11.Event) -> None:
        data = self._h11.send(event)
        if data:
            self._writer.write(data)
            try:
                await self._writer.drain()
            except ConnectionError:
                self.lost.set()
                raise


def effective_headers(
    headers: Iterable[tuple[bytes, bytes]], authority: bytes | None
) -> list[tuple[bytes, bytes]]:
    """Return the header fields, the Host replaced by ``authority`` if given.

    Args:
        headers: The request's header fields, names in lower case.
        authority: The authority of an absolute-form target, or None.

    Returns:
        A new list; with an authority, ``host`` comes first and only once.
    """
    if authority is None:
        return list(headers)
    # RFC 9112 §3.2.2: an origin server MUST ignore the Host header field of
    # an absolute-form request and use the target's authority instead.
    others = [(name, value) for name, value in headers if name != b"host"]
    return [(b"host", authority), *others]
