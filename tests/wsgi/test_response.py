"""Sending responses: headers, bytes, streams, async streams, files and HEAD."""

from __future__ import annotations

import builtins
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, ClassVar
from wsgiref.util import FileWrapper
from wsgiref.validate import validator

import pytest

from sansio_http.messages._files import FileBody, FileRegion
from sansio_http.messages._response import Response
from sansio_http.wsgi import WSGIRequest, wsgi_app
from sansio_http.wsgi._response import FileShrankError

from .conftest import HOP_BY_HOP, ignore_start, make_environ, run

#: A bound on waits for another thread, never a measure of speed.
WAIT = 10.0


def serve(response: Response | Any, **environ: Any) -> Any:
    def handler(request: WSGIRequest) -> Response:
        return response() if callable(response) else response

    return run(wsgi_app(handler), make_environ(**environ))


def test_bytes_body_is_one_item_with_content_length() -> None:
    result = serve(Response(b"hello", content_type="text/plain"))
    assert result.status == "200 OK"
    assert result.body == b"hello"
    assert result.header("content-length") == "5"
    assert result.header("content-type") == "text/plain; charset=utf-8"


def test_bytes_body_is_returned_as_a_one_item_list() -> None:
    calls: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        calls.append((status, headers))
        return lambda data: None

    app = validator(wsgi_app(lambda request: Response(b"hello", content_type="text/plain")))
    iterable = app(make_environ(), start_response)
    assert iterable.original_iterator == [b"hello"]  # type: ignore[attr-defined]
    iterable.close()  # type: ignore[attr-defined]
    assert all(type(name) is str and type(value) is str for name, value in calls[0][1])


def test_latin1_header_values_are_str() -> None:
    response = Response(b"", status=200, content_type="text/plain")
    response.headers["x-name"] = "caf\xe9"
    result = serve(response)
    assert result.header("x-name") == "caf\xe9"


def test_hop_by_hop_headers_are_never_sent() -> None:
    response = Response(b"ok", content_type="text/plain")
    for name in ("Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "TE", "Trailer"):
        response.headers[name] = "x"
    response.headers["Proxy-Authenticate"] = "Basic"
    result = serve(response)
    assert not [name for name, _ in result.headers if name.lower() in HOP_BY_HOP]
    assert result.body == b"ok"


@pytest.mark.parametrize("status", [204, 304])
def test_no_content_type_on_204_and_304(status: int) -> None:
    response = Response(b"", status=status, content_type="text/plain")
    response.headers["etag"] = '"x"'
    result = serve(response)
    assert result.status_code == status
    assert result.header("content-type") is None
    assert result.header("etag") == '"x"'
    assert result.body == b""


def test_no_content_length_on_204() -> None:
    response = Response(b"", status=204, headers={"content-length": "0"})
    assert serve(response).header("content-length") is None


class Closing:
    """An iterable body that records whether it was closed."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.closed = False
        self.iterated = False

    def __iter__(self) -> Iterator[bytes]:
        self.iterated = True
        return iter(self.chunks)

    def close(self) -> None:
        self.closed = True


def test_iterable_body_is_streamed_and_closed() -> None:
    body = Closing([b"a", b"", b"bc", bytearray(b"d")])  # type: ignore[list-item]
    result = serve(Response(body, content_type="text/plain"))
    assert result.body == b"abcd"
    assert result.header("content-length") is None
    assert body.closed


def test_generator_body() -> None:
    def chunks() -> Iterator[bytes]:
        yield b"one "
        yield b"two"

    result = serve(Response(chunks(), content_type="text/plain"))
    assert result.body == b"one two"


def test_empty_iterable_body() -> None:
    result = serve(Response([b"", b""], content_type="text/plain"))
    assert result.body == b""
    assert result.status == "200 OK"


def test_async_iterable_body() -> None:
    closed: list[bool] = []

    async def chunks() -> AsyncIterator[bytes]:
        try:
            yield b"async "
            yield b"body"
        finally:
            closed.append(True)

    result = serve(Response(chunks(), content_type="text/plain"))
    assert result.body == b"async body"
    assert closed == [True]


def test_async_body_closed_early_is_finalised() -> None:
    closed: list[bool] = []

    async def chunks() -> AsyncIterator[bytes]:
        try:
            yield b"first"
            yield b"second"
        finally:
            closed.append(True)

    app = validator(wsgi_app(lambda request: Response(chunks(), content_type="text/plain")))
    iterable = app(make_environ(), ignore_start)
    iterator = iter(iterable)
    assert next(iterator) == b"first"
    iterable.close()  # type: ignore[attr-defined]
    assert closed == [True]


def test_non_bytes_chunk_fails_before_the_first_chunk_as_a_500() -> None:
    result = serve(Response(iter([42]), content_type="text/plain"))  # type: ignore[arg-type]
    assert result.status_code == 500


def test_head_sends_headers_only() -> None:
    body = Closing([b"abc"])
    response = Response(body, content_type="text/plain", headers={"content-length": "3"})
    result = serve(response, method="HEAD")
    assert result.body == b""
    assert result.header("content-length") == "3"
    assert not body.iterated
    assert body.closed


def test_head_with_bytes_keeps_content_length() -> None:
    result = serve(Response(b"hello", content_type="text/plain"), method="HEAD")
    assert result.body == b""
    assert result.header("content-length") == "5"


# -- files ----------------------------------------------------------------------


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 1024)
    return path


class RecordingWrapper(FileWrapper):
    """wsgi.file_wrapper that records how much it read, and whether it may sendfile."""

    instances: ClassVar[list[RecordingWrapper]] = []

    def __init__(self, filelike: Any, blksize: int = 8192) -> None:
        super().__init__(filelike, blksize)
        self.read_total = 0
        self.has_fileno = _has_fileno(filelike)
        self.blksize_given = blksize
        RecordingWrapper.instances.append(self)

    def __next__(self) -> bytes:
        data = super().__next__()
        self.read_total += len(data)
        return data


class SendfileWrapper(RecordingWrapper):
    """A file wrapper that sends with the descriptor when it can, as gunicorn does.

    Without a Content-Length it sends from the descriptor's position to the
    end of the file, then seeks to where it stopped.
    """

    def __init__(self, filelike: Any, blksize: int = 8192) -> None:
        super().__init__(filelike, blksize)
        self.pending: bytes | None = None
        if self.has_fileno:
            fd = filelike.fileno()
            offset = os.lseek(fd, 0, os.SEEK_CUR)
            self.pending = os.pread(fd, os.fstat(fd).st_size - offset, offset)
            filelike.seek(offset + len(self.pending))
            assert filelike.tell() == offset + len(self.pending)

    def __next__(self) -> bytes:
        if not self.has_fileno:
            return super().__next__()
        data, self.pending = self.pending, None
        if not data:
            raise StopIteration
        self.read_total += len(data)
        return data


def _has_fileno(filelike: Any) -> bool:
    try:
        filelike.fileno()
    except (OSError, ValueError):
        return False
    return True


@pytest.mark.parametrize("wrapper", [None, RecordingWrapper, SendfileWrapper])
@pytest.mark.parametrize(
    ("offset", "length"),
    [(0, None), (1000, 500), (0, 256 * 1024), (256 * 1024 - 10, None), (5, 0)],
)
def test_file_body_sends_only_its_region(
    data_file: Path, wrapper: Any, offset: int, length: int | None
) -> None:
    RecordingWrapper.instances.clear()
    data = data_file.read_bytes()
    body = FileBody(data_file, offset=offset, length=length)
    result = serve(Response(body, content_type="application/octet-stream"), file_wrapper=wrapper)
    expected = data[offset:] if length is None else data[offset : offset + length]
    assert result.body == expected
    assert result.header("content-length") == str(len(expected))
    if wrapper is not None:
        (used,) = RecordingWrapper.instances
        assert isinstance(used, wrapper)
        assert used.read_total == len(expected)
        # sendfile from the current position is safe only up to the end of the file.
        assert used.has_fileno == (length is None or offset + length == len(data))


def test_file_body_of_several_segments(data_file: Path) -> None:
    data = data_file.read_bytes()
    body = FileBody.from_segments(
        data_file, [b"--a\r\n", FileRegion(10, 5), b"\r\n--b\r\n", FileRegion(100, 3), b"--"]
    )
    RecordingWrapper.instances.clear()
    result = serve(Response(body, content_type="text/plain"), file_wrapper=RecordingWrapper)
    assert result.body == b"--a\r\n" + data[10:15] + b"\r\n--b\r\n" + data[100:103] + b"--"
    assert result.header("content-length") == str(len(result.body))
    # Several regions cannot go through wsgi.file_wrapper.
    assert RecordingWrapper.instances == []


def test_file_head_opens_nothing(data_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = FileBody(data_file, offset=10)
    real_open = builtins.open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(file) == str(data_file):
            pytest.fail("HEAD opened the file")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    result = serve(Response(body, content_type="text/plain"), method="HEAD")
    assert result.body == b""
    assert result.header("content-length") == str(256 * 1024 - 10)


def test_missing_file_is_a_500(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    body = FileBody(tmp_path / "missing.bin")
    result = serve(Response(body, content_type="text/plain"))
    assert result.status_code == 500
    assert "missing.bin" not in result.body.decode()
    assert "FileNotFoundError" in caplog.text


@pytest.mark.parametrize("wrapper", [None, RecordingWrapper])
def test_a_file_that_shrank_aborts_the_response(
    data_file: Path, wrapper: Any, caplog: pytest.LogCaptureFixture
) -> None:
    body = FileBody(data_file, offset=0, length=300 * 1024)
    with pytest.raises(FileShrankError, match="shrank"):
        serve(Response(body, content_type="text/plain"), file_wrapper=wrapper)
    assert "shrank while it was being sent" in caplog.text


def gunicorn_like(app: Any, environ: dict[str, Any]) -> tuple[str | None, bytes, bool]:
    """Serve one request as gunicorn's sync worker does; return (status, bytes, closed).

    The head goes out with the first non-empty chunk. An ``OSError`` from the
    iterable is taken for a socket error: the connection is dropped with no
    answer. Another error is answered with a 500 if the head is unsent, else
    the connection is closed.
    """
    head: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        head[:] = [status]
        return lambda data: None

    sent = b""
    iterable = app(environ, start_response)
    try:
        for chunk in iterable:
            sent += chunk
    except OSError:
        return None, b"", True  # gunicorn: "Socket error processing request"
    except Exception:
        if not sent:
            return "500 Internal Server Error", b"", True
        return head[0], sent, True
    finally:
        getattr(iterable, "close", lambda: None)()
    return head[0], sent, False


@pytest.mark.parametrize("wrapper", [None, FileWrapper], ids=["plain", "file_wrapper"])
@pytest.mark.parametrize("left", [0, 100])
def test_a_file_that_shrank_before_its_send_ends_the_response_cleanly(
    tmp_path: Path, wrapper: Any, left: int, caplog: pytest.LogCaptureFixture
) -> None:
    # gunicorn --no-sendfile: the file shrank between its stat (the promised
    # length) and its send through wsgi.file_wrapper.
    path = tmp_path / "shrunk.bin"
    path.write_bytes(b"x" * left)
    app = wsgi_app(lambda request: Response(FileBody(path, length=1000), content_type="text/plain"))
    status, sent, closed = gunicorn_like(app, make_environ(file_wrapper=wrapper))
    if left:
        # The head is out: what the file holds, then the connection closes.
        assert (status, sent, closed) == ("200 OK", b"x" * left, True)
    else:
        # Nothing sent yet: the error still becomes a 500 (the adapter's or
        # the server's), never no answer at all.
        assert status is not None
        assert status.startswith("500")
    assert "shrank while it was being sent" in caplog.text


def test_a_file_that_shrank_to_nothing_before_the_first_chunk(tmp_path: Path) -> None:
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    body = FileBody(path, offset=0, length=10)
    result = serve(Response(body, content_type="text/plain"))
    # Nothing was sent yet, so the error can still become a 500.
    assert result.status_code == 500


class FailingClose(Closing):
    def __init__(self, chunks: list[bytes], error: Exception) -> None:
        super().__init__(chunks)
        self.error = error

    def close(self) -> None:
        super().close()
        raise self.error


def test_a_failing_close_still_releases_the_request() -> None:
    body = FailingClose([b"abc"], RuntimeError("close failed"))
    made: list[Any] = []

    def handler(request: WSGIRequest) -> Response:
        request._spool()  # an upload file, as a form would make
        made.extend(request._spools or [])
        return Response(body, content_type="text/plain")

    with pytest.raises(RuntimeError, match="close failed"):
        run(wsgi_app(handler), make_environ())
    assert body.closed
    assert made[0].closed


def test_several_failing_closes_raise_the_first_and_log_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    body = FailingClose([b"abc"], RuntimeError("first"))

    def handler(request: WSGIRequest) -> Response:
        def broken_close() -> None:
            raise ValueError("second")

        request.close = broken_close  # type: ignore[method-assign]
        return Response(body, content_type="text/plain")

    with pytest.raises(RuntimeError, match="first"):
        run(wsgi_app(handler), make_environ())
    assert "second" in caplog.text


class BlockedIdleBody:
    """A body of idle chunks whose producer blocks in its second step; close() fails."""

    idle_interval = 0.05
    idle_chunk = b": idle\n\n"

    def __init__(self, notes: list[str]) -> None:
        self.notes = notes
        self.waiting = threading.Event()
        self.release = threading.Event()
        self.closed = threading.Event()

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield b"first"
            self.waiting.set()
            self.release.wait(WAIT)
            yield b"second"
        finally:
            self.notes.append("finally")

    def close(self) -> None:
        self.closed.set()
        raise RuntimeError("the body's close failed")


def test_closers_left_to_the_helper_thread_run_in_order_and_log_their_errors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    notes: list[str] = []
    body = BlockedIdleBody(notes)
    released = threading.Event()

    def handler(request: WSGIRequest) -> Response:
        def broken_close() -> None:
            released.set()
            raise ValueError("the request's close failed")

        request.close = broken_close  # type: ignore[method-assign]
        response = Response(body, content_type="text/event-stream")
        response.call_on_close(lambda: notes.append("work"))
        return response

    iterable: Any = wsgi_app(handler)(make_environ(), ignore_start)
    try:
        assert next(iter(iterable)) == b"first"
        assert body.waiting.wait(WAIT)
        # The producer is inside next(): close() returns at once and raises
        # nothing; what follows the producer's close runs when it returns.
        iterable.close()
        assert notes == []
    finally:
        body.release.set()
    assert released.wait(WAIT)
    assert body.closed.is_set()
    assert notes == ["finally", "work"]
    deadline = time.monotonic() + WAIT
    while "the request's close failed" not in caplog.text:
        assert time.monotonic() < deadline, caplog.text
        time.sleep(0.01)
    assert "Error while closing a response body" in caplog.text
    assert "the body's close failed" in caplog.text


class AsyncChunks:
    """An async iterator without aclose()."""

    def __init__(self) -> None:
        self.chunks = [b"x", b"y"]

    def __aiter__(self) -> AsyncChunks:
        return self

    async def __anext__(self) -> bytes:
        if not self.chunks:
            raise StopAsyncIteration
        return self.chunks.pop(0)


def test_async_iterator_without_aclose() -> None:
    assert serve(Response(AsyncChunks(), content_type="text/plain")).body == b"xy"


def test_head_with_an_async_body_starts_nothing() -> None:
    body = AsyncChunks()
    result = serve(Response(body, content_type="text/plain"), method="HEAD")
    assert result.body == b""
    assert body.chunks == [b"x", b"y"]


class ReadintoWrapper:
    """A file wrapper that reads with readinto(), as io-based servers may."""

    def __init__(self, filelike: Any, blksize: int = 8192) -> None:
        self.filelike = filelike
        self.blksize = blksize

    def __iter__(self) -> Iterator[bytes]:
        assert self.filelike.readable()
        assert self.filelike.seekable()
        buffer = bytearray(self.blksize)
        while count := self.filelike.readinto(buffer):
            yield bytes(buffer[:count])

    def close(self) -> None:
        self.filelike.close()
        self.filelike.close()  # twice is harmless


def test_file_region_read_with_readinto(data_file: Path) -> None:
    data = data_file.read_bytes()
    body = FileBody(data_file, offset=100, length=70_000)
    result = serve(Response(body, content_type="text/plain"), file_wrapper=ReadintoWrapper)
    assert result.body == data[100:70_100]


def test_open_ended_region_after_other_segments(data_file: Path) -> None:
    data = data_file.read_bytes()
    start = len(data) - 1000
    body = FileBody.from_segments(
        data_file, [b"", b"head:", FileRegion(0, 3), FileRegion(start, None)]
    )
    assert body.content_length is None
    result = serve(Response(body, content_type="text/plain"))
    expected = b"head:" + data[:3] + data[start:]
    assert result.body == expected
    assert result.header("content-length") == str(len(expected))
    head = serve(Response(body, content_type="text/plain"), method="HEAD")
    assert head.header("content-length") == str(len(expected))


def test_head_keeps_a_given_content_length(data_file: Path) -> None:
    body = FileBody(data_file)
    response = Response(body, content_type="text/plain", headers={"content-length": "7"})
    assert serve(response, method="HEAD").header("content-length") == "7"


def test_a_failing_file_wrapper_closes_the_file_and_answers_500(data_file: Path) -> None:
    opened: list[Any] = []

    def wrapper(filelike: Any, blksize: int = 8192) -> Any:
        opened.append(filelike)
        raise TypeError("no wrapping today")

    result = serve(Response(FileBody(data_file), content_type="text/plain"), file_wrapper=wrapper)
    assert result.status_code == 500
    assert opened[0]._file.closed
