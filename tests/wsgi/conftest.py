"""Helpers for the WSGI adapter tests: environ factories and a validating runner.

Every application the tests call goes through :func:`run`, which wraps it in
``wsgiref.validate.validator`` (pytest turns its warnings into errors) and
also checks what the validator does not: no hop-by-hop response headers.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from wsgiref.validate import validator

import pytest

if TYPE_CHECKING:
    from _typeshed import OptExcInfo
    from _typeshed.wsgi import WSGIApplication


# PEP 3333 / RFC 9110 §7.6.1: the application must not send these.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)

_AUTO = object()


class StrictInput:
    """A ``wsgi.input`` that fails the test when read past ``allowed`` bytes.

    A real server's socket file blocks there, so reading past the length a
    request announced is a hang, which this turns into a failure.
    """

    def __init__(self, data: bytes, allowed: int | None = None) -> None:
        self._file = io.BytesIO(data)
        # None: the server ends the stream itself (wsgi.input_terminated).
        self.allowed = allowed
        self.position = 0
        self.reads: list[int] = []

    def read(self, size: int) -> bytes:
        self.reads.append(size)
        if self.allowed is not None and self.position + size > self.allowed:
            pytest.fail(f"read({size}) at {self.position} past the {self.allowed} allowed bytes")
        data = self._file.read(size)
        self.position += len(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        pytest.fail("readline() is not used by the adapter")

    def readlines(self, hint: int = -1) -> list[bytes]:
        pytest.fail("readlines() is not used by the adapter")

    def __iter__(self) -> Iterator[bytes]:
        pytest.fail("iteration is not used by the adapter")


class FailingInput(StrictInput):
    """A ``wsgi.input`` whose read raises after ``good`` bytes, as a reset socket does."""

    def __init__(self, data: bytes, good: int, exc: BaseException) -> None:
        super().__init__(data, None)
        self.good = good
        self.exc = exc

    def read(self, size: int) -> bytes:
        if self.position >= self.good:
            raise self.exc
        return super().read(min(size, self.good - self.position))


def make_environ(
    method: str = "GET",
    path: str = "/",
    query: str = "",
    headers: Iterable[tuple[str, str]] = (),
    body: bytes = b"",
    *,
    script_name: str = "",
    content_length: Any = _AUTO,
    content_type: str | None = None,
    terminated: bool = False,
    scheme: str = "http",
    server_name: str = "localhost",
    server_port: str = "80",
    remote_addr: str | None = "127.0.0.1",
    wsgi_input: Any = None,
    file_wrapper: Any = None,
) -> dict[str, Any]:
    """Build an environ as a PEP 3333 server does: native strings, latin-1 bytes."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": server_name,
        "SERVER_PORT": server_port,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scheme,
        "wsgi.input": wsgi_input,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if remote_addr is not None:
        environ["REMOTE_ADDR"] = remote_addr
    if terminated:
        environ["wsgi.input_terminated"] = True
    if file_wrapper is not None:
        environ["wsgi.file_wrapper"] = file_wrapper
    if content_length is _AUTO:
        if body:
            environ["CONTENT_LENGTH"] = str(len(body))
    elif content_length is not None:
        environ["CONTENT_LENGTH"] = content_length
    if content_type is not None:
        environ["CONTENT_TYPE"] = content_type
    headers = list(headers)
    if not any(name.lower() == "host" for name, _ in headers):
        # An HTTP/1.1 request always has one (RFC 9112 §3.2); the adapter
        # refuses one without.
        environ["HTTP_HOST"] = (
            server_name if server_port in ("80", "443") else (f"{server_name}:{server_port}")
        )
    for name, value in headers:
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            environ[key] = value
            continue
        key = "HTTP_" + key
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    if wsgi_input is None:
        # A server reads a socket: past the announced length it blocks.
        announced = environ.get("CONTENT_LENGTH", "0")
        allowed = None if terminated else int(announced) if announced.isdigit() else 0
        environ["wsgi.input"] = StrictInput(body, allowed)
    return environ


@dataclass
class Result:
    """What an application sent: status, headers, body and the calls made."""

    status: str
    headers: list[tuple[str, str]]
    body: bytes
    calls: list[tuple[str, list[tuple[str, str]], OptExcInfo | None]] = field(default_factory=list)

    @property
    def status_code(self) -> int:
        return int(self.status.split(" ", 1)[0])

    def header(self, name: str) -> str | None:
        values = [value for key, value in self.headers if key.lower() == name.lower()]
        return ", ".join(values) if values else None


def run(app: WSGIApplication, environ: dict[str, Any]) -> Result:
    """Call ``app`` through ``wsgiref.validate`` as a server would, and collect it.

    Headers count as sent when the first non-empty body chunk appears (PEP
    3333), so ``start_response`` may be called again with ``exc_info`` until
    then, and re-raises after.
    """
    calls: list[tuple[str, list[tuple[str, str]], OptExcInfo | None]] = []
    sent = False
    written: list[bytes] = []

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: OptExcInfo | None = None, /
    ) -> Callable[[bytes], object]:
        if exc_info is not None and exc_info[1] is not None:
            if sent:
                raise exc_info[1].with_traceback(exc_info[2])
        elif calls:
            pytest.fail("start_response called twice without exc_info")
        calls.append((status, headers, exc_info))
        return written.append

    iterable = validator(app)(environ, start_response)
    chunks: list[bytes] = []
    try:
        for chunk in iterable:
            if chunk:
                sent = True
            chunks.append(chunk)
    finally:
        close = getattr(iterable, "close", None)
        if close is not None:
            close()
    assert calls, "start_response was never called"
    status, headers, _ = calls[-1]
    hop = [name for name, _ in headers if name.lower() in HOP_BY_HOP]
    assert not hop, f"hop-by-hop headers in the response: {hop}"
    return Result(status, headers, b"".join(written + chunks), calls)


def ignore_start(
    status: str, headers: list[tuple[str, str]], exc_info: OptExcInfo | None = None, /
) -> Callable[[bytes], object]:
    """A start_response for tests that call an application directly."""
    return lambda data: None


@pytest.fixture
def environ_factory() -> Callable[..., dict[str, Any]]:
    return make_environ
