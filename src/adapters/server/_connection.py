"""The HTTP/1.1 connection loop: h11 on asyncio streams, with protections.

One :class:`HTTPConnection` serves one TCP connection: it reads request heads
within a deadline, refuses what h11 lets through but a server must not
(RFC 9112 §6.1 smuggling, a missing, repeated or malformed Host, a target
that is none of RFC 9112 §3.2's forms, HTTP/2 and other versions, oversized
heads), hands each request to the application runner as an
:class:`Exchange`, skips unread bodies, and keeps the connection alive when
that is safe.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable

import h11

from sansio_http.http._status import PHRASES
from sansio_http.messages._target import InvalidTarget, Target, parse_host, parse_target
from sansio_http.server._config import Config
from sansio_http.server._date import with_date
from sansio_http.server._exchange import Exchange

Runner = Callable[[Exchange], Awaitable[None]]
Upgrader = Callable[["HTTPConnection", h11.Request, Target], Awaitable[None]]

log = logging.getLogger("sansio_http.server")

# RFC 9112 §7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS
# chunk-ext-val ] ), all visible characters; h11 accepts anything after ";".
_CHUNK_LINE = re.compile(rb"[0-9A-Fa-f]+[\t ]*(?:;[\t !-~]*)?")
# RFC 9112 §2.2: empty lines before a request line are ignored.
_BLANK_LINES = re.compile(rb"(?:\r?\n)*")
# Seconds a connection that closes with a request body unread keeps reading
# (and dropping) it, so that the client reads the response before the close:
# Apache's lingering close waits 2 s.
_LINGER_TIMEOUT = 2.0
# The states of our side once a whole response was sent.
_RESPONDED = (h11.DONE, h11.MUST_CLOSE)


class _Refusal(Exception):
    """A request head the server answers itself, with a status and a reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class HTTPConnection:
    """Serve the requests of one client connection in order."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        config: Config,
        runner: Runner,
        upgrader: Upgrader | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.config = config
        self.runner = runner
        self.upgrader = upgrader
        self.h11 = self._new_h11()
        self.busy = False
        # Empty lines skipped before the current request line, and a lone
        # CR held back until its LF arrives.
        self._blank_bytes = 0
        self._held = b""
        peer = writer.get_extra_info("peername")
        sock = writer.get_extra_info("sockname")
        self.client = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else None
        self.server = (str(sock[0]), int(sock[1])) if isinstance(sock, tuple) else None

    async def serve(self) -> None:
        """Answer requests until the client or the server closes."""
        try:
            await self._serve()
            if self.h11.their_state is h11.SEND_BODY and self.h11.our_state in _RESPONDED:
                await self._linger()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def _serve(self) -> None:
        first = True
        while True:
            request = await self._read_head(first)
            first = False
            if request is None:
                return
            head = _Head(request)
            try:
                target = self._check_head(request, head)
            except _Refusal as refusal:
                await self.refuse(refusal.status, refusal.reason)
                return
            if self.upgrader is not None and head.websocket and request.method == b"GET":
                await self.upgrader(self, request, target)
                return
            exchange = Exchange(
                self.h11,
                self.reader,
                self.writer,
                request,
                self.config,
                self.client,
                self.server,
                target,
            )
            if head.content_length and head.transfer_encoding:
                # RFC 9112 §6.1: answer, then close, so that whatever the
                # Content-Length hid can never be read as a second request.
                exchange.close_after = True
            elif not head.transfer_encoding:
                # RFC 9112 §6.3: a request with neither field has no body.
                exchange.body_length = head.length or 0
            if head.chunked:
                checker = ChunkLineChecker()
                # Bytes that arrived with the head are already inside h11.
                if checker.feed(self.h11.trailing_data[0]):
                    exchange.chunk_checker = checker
                else:
                    await self.refuse(400, "malformed chunk-size line")
                    return
            self.busy = True
            try:
                await self.runner(exchange)
            finally:
                self.busy = False
                await exchange.stop_watching()
            if not await self._finish_cycle(exchange):
                return

    async def _linger(self) -> None:
        """Half-close, then discard what the client still sends, for a while.

        The response was sent but the request body was not read. Closing
        with unread bytes makes the kernel answer with a reset, which can
        destroy the response before the client reads it (RFC 9112 §9.6).
        Shutting down only our side lets the client see the end of the
        response at once; its late bytes are read and dropped until it
        closes too, for at most two seconds and ``max_drain_size`` bytes
        (nginx lingers for up to 30 s).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _LINGER_TIMEOUT
        discarded = 0
        try:
            if not self.writer.can_write_eof():
                return
            self.writer.write_eof()
            while discarded <= self.config.max_drain_size:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                data = await asyncio.wait_for(self.reader.read(65536), remaining)
                if not data:
                    return
                discarded += len(data)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass

    def _new_h11(self) -> h11.Connection:
        return h11.Connection(h11.SERVER, max_incomplete_event_size=self.config.max_header_size)

    def _receive(self, data: bytes) -> None:
        """Pass bytes to h11, minus empty lines before a request line."""
        if not data:
            # The end of the stream: h11 reports it as ConnectionClosed.
            self._held = b""
            self.h11.receive_data(b"")
            return
        if self.h11.their_state is h11.IDLE and not self.h11.trailing_data[0]:
            # h11 refuses an empty line where a request line is due; RFC 9112
            # §2.2 asks a server to ignore at least one.
            data = self._held + data
            self._held = b""
            skip = _BLANK_LINES.match(data)
            end = skip.end() if skip is not None else 0
            self._blank_bytes += end
            data = data[end:]
            if self._blank_bytes > self.config.max_header_size:
                raise _Refusal(400, "too many empty lines before the request line")
            if data == b"\r":
                self._held = data
                return
            if not data:
                return
        self.h11.receive_data(data)

    async def _read_head(self, first: bool) -> h11.Request | None:
        """Return the next request head, or None when the connection ends."""
        self._blank_bytes = 0
        loop = asyncio.get_running_loop()
        idle = self.config.header_timeout if first else self.config.keepalive_timeout
        deadline: float | None = None
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                await self.refuse(exc.error_status_hint, str(exc))
                return None
            if isinstance(event, h11.Request):
                return event
            if event is h11.NEED_DATA:
                if deadline is None and self.h11.trailing_data[0]:
                    deadline = loop.time() + self.config.header_timeout
                timeout = idle if deadline is None else max(0.0, deadline - loop.time())
                try:
                    data = await asyncio.wait_for(self.reader.read(65536), timeout)
                except asyncio.TimeoutError:
                    if deadline is not None:
                        await self.refuse(408, "timed out reading the request head")
                    return None
                if deadline is None:
                    deadline = loop.time() + self.config.header_timeout
                try:
                    self._receive(data)
                except _Refusal as refusal:
                    await self.refuse(refusal.status, refusal.reason)
                    return None
                continue
            # ConnectionClosed, or PAUSED after a refused cycle.
            return None

    def _check_head(self, request: h11.Request, head: _Head) -> Target:
        """Return the request's target, or raise the refusal that answers it."""
        config = self.config
        if len(request.target) > config.max_target_size:
            raise _Refusal(414, "request target too long")
        if len(request.headers) > config.max_header_count:
            raise _Refusal(431, "too many header fields")
        # h11 only measures a head that is still incomplete; one that arrives
        # whole in a single read must be measured here.
        if len(request.method) + len(request.target) + 12 + head.size > config.max_header_size:
            raise _Refusal(431, "request head too large")
        version = request.http_version
        if request.method == b"PRI" and request.target == b"*" and version == b"2.0":
            # RFC 9113 §3.4: the HTTP/2 connection preface, sent with prior
            # knowledge; an HTTP/1.1 server answers it as a bad request.
            raise _Refusal(400, "HTTP/2 is not supported; use HTTP/1.1")
        if not version.startswith(b"1."):
            # RFC 9110 §15.6.6; RFC 9112 §2.3: a higher minor version of
            # HTTP/1 is answered as HTTP/1.1, another major version is not.
            raise _Refusal(505, "only HTTP/1.0 and HTTP/1.1 are supported")
        # RFC 9112 §3.2: exactly one Host in an HTTP/1.1 request, never
        # more than one, and a valid value (RFC 9110 §7.2) in any version.
        if head.hosts > 1 or (head.hosts == 0 and version != b"1.0"):
            raise _Refusal(400, "an HTTP/1.1 request needs exactly one Host header")
        try:
            if head.host is not None:
                parse_host(head.host)
            target = parse_target(request.method, request.target)
        except InvalidTarget as exc:
            raise _Refusal(400, exc.detail) from exc
        authority = target.authority
        if authority is not None and request.method != b"CONNECT":
            # RFC 9112 §3.2.2: absolute-form is accepted, and the target's
            # authority is the request's (§3.3). RFC 9110 §7.2: the client
            # sends it as Host too. SECURITY: a Host naming another authority
            # means a proxy routing by Host and the application would see two
            # hosts: refused, as the WSGI and ASGI adapters refuse it.
            if head.host is None or head.host.lower() != authority.lower():
                raise _Refusal(400, "the request target's authority does not match the Host header")
        if request.method == b"CONNECT":
            # RFC 9110 §9.3.6: CONNECT asks for a tunnel, which only a proxy
            # provides; §15.6.2: an unimplemented method is a 501.
            raise _Refusal(501, "CONNECT is not supported: this is not a proxy")
        return target

    async def refuse(self, status: int, reason: str) -> None:
        """Answer with a short error and close the connection."""
        if self.h11.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        body = f"{status} {reason}\n".encode("ascii", "replace")
        headers = with_date(
            [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ]
        )
        try:
            phrase = PHRASES.get(status, "").encode("ascii")
            head = h11.Response(status_code=status, headers=headers, reason=phrase)
            self.writer.write(self.h11.send(head) or b"")
            self.writer.write(self.h11.send(h11.Data(data=body)) or b"")
            self.writer.write(self.h11.send(h11.EndOfMessage()) or b"")
            await self.writer.drain()
        except (h11.LocalProtocolError, ConnectionError):
            pass

    async def _finish_cycle(self, exchange: Exchange) -> bool:
        """Skip what is left of the body; return whether to keep going."""
        if self.h11.our_state is not h11.DONE or exchange.close_after:
            return False
        unread = exchange.unread_body
        if unread is not None and unread > self.config.max_drain_size:
            # Known to be too much to skip: close now rather than wait for
            # bytes that may never come (a client that announced a huge body).
            return False
        drained = 0
        while self.h11.their_state is h11.SEND_BODY:
            try:
                chunk = await exchange.receive()
            except Exception:
                return False
            if chunk is None:
                break
            drained += len(chunk)
            if drained > self.config.max_drain_size:
                return False
        if self.h11.their_state is not h11.DONE:
            return False
        try:
            self.h11.start_next_cycle()
        except h11.LocalProtocolError:
            return False
        leftover, closed = self.h11.trailing_data
        if leftover[:1] in (b"\r", b"\n"):
            # h11 already holds the next bytes; a fresh state machine lets
            # _receive skip the empty lines a client sent after a body.
            self.h11 = self._new_h11()
            self._blank_bytes = 0
            self._held = b""
            try:
                self._receive(bytes(leftover))
            except _Refusal as refusal:
                await self.refuse(refusal.status, refusal.reason)
                return False
            if closed:
                self.h11.receive_data(b"")
        return True


class _Head:
    """What the connection checks in a request's header fields, in one pass."""

    __slots__ = (
        "chunked",
        "content_length",
        "host",
        "hosts",
        "length",
        "size",
        "transfer_encoding",
        "websocket",
    )

    def __init__(self, request: h11.Request) -> None:
        self.size = 0
        self.hosts = 0
        self.host: bytes | None = None
        self.length: int | None = None
        self.content_length = self.transfer_encoding = self.chunked = self.websocket = False
        # h11 gives lower-case names.
        for name, value in request.headers:
            self.size += len(name) + len(value) + 4
            if name == b"host":
                self.hosts += 1
                self.host = value
            elif name == b"content-length":
                self.content_length = True
                # h11 lets through one value of digits only; 0.15 and later at
                # most 20 of them, older ones any number, which int() may refuse.
                digits = value.lstrip(b"0")
                self.length = int(digits or b"0") if len(digits) <= 20 else 10**20
            elif name == b"transfer-encoding":
                self.transfer_encoding = True
                self.chunked = self.chunked or b"chunked" in value.lower()
            elif name == b"upgrade":
                self.websocket = value.lower() == b"websocket"


class ChunkLineChecker:
    """Follow chunked framing beside h11 to vet each chunk-size line.

    h11 accepts any bytes after the ``;`` of a chunk extension, control bytes
    included; RFC 9112 §7.1.1 allows only visible characters and white space
    there, and a lenient proxy in front may frame such a line differently.
    """

    # A chunk-size line longer than this is refused (nginx's own limit is
    # its 8 KiB header buffer; extensions carry nothing we use).
    max_line = 4096

    def __init__(self) -> None:
        self._line = b""
        self._skip = 0
        self._in_trailers = False
        self.done = False

    def feed(self, data: bytes) -> bool:
        """Account for ``data``; return False at a malformed chunk line."""
        pos = 0
        size = len(data)
        while pos < size and not self.done:
            if self._skip:
                step = min(self._skip, size - pos)
                self._skip -= step
                pos += step
                continue
            end = data.find(b"\n", pos)
            if end < 0:
                self._line += data[pos:]
                return len(self._line) <= self.max_line
            line = (self._line + data[pos:end]).rstrip(b"\r")
            self._line = b""
            pos = end + 1
            if self._in_trailers:
                self.done = line == b""
                continue
            if _CHUNK_LINE.fullmatch(line) is None:
                return False
            length = int(line.split(b";", 1)[0].strip(b"\t "), 16)
            if length == 0:
                self._in_trailers = True
            else:
                self._skip = length + 2
        return True
