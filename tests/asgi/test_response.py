"""Responses sent through ``asgi_app``: every case runs under the checker."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.asgi._response import READ_SIZE, ResponseSender
from sansio_http.asgi._types import ASGIApp, Message
from sansio_http.messages._errors import NotFound
from sansio_http.messages._files import FileBody, FileRegion
from sansio_http.messages._response import Response
from tests.asgi.checker import request, run


def serve(response: Response) -> ASGIApp:
    async def handler(req: ASGIRequest) -> Response:
        return response

    return asgi_app(handler)


def body_messages(messages: list[Message]) -> list[tuple[bytes, bool]]:
    return [
        (m.get("body", b""), m.get("more_body", False))
        for m in messages
        if m["type"] == "http.response.body"
    ]


def test_bytes_go_in_one_message() -> None:
    result = run(request(serve(Response(b"hello"))))
    assert result.status == 200
    assert result.header("content-length") == "5"
    assert body_messages(result.messages) == [(b"hello", False)]


def test_head_sends_the_head_only() -> None:
    result = run(request(serve(Response(b"hello")), "HEAD"))
    assert result.header("content-length") == "5"
    assert body_messages(result.messages) == [(b"", False)]


def test_head_leaves_a_streamed_body_unread() -> None:
    started = []

    async def stream() -> AsyncIterator[bytes]:
        started.append(True)
        yield b"never"

    result = run(request(serve(Response(stream())), "HEAD"))
    assert body_messages(result.messages) == [(b"", False)]
    assert started == []


def test_a_list_is_sent_item_by_item() -> None:
    result = run(request(serve(Response([b"a", b"", b"b"]))))
    assert body_messages(result.messages) == [(b"a", True), (b"b", True), (b"", False)]


def test_a_generator_runs_off_the_event_loop() -> None:
    threads: list[int] = []

    def generate() -> Iterator[bytes]:
        threads.append(threading.get_ident())
        yield b"a"
        threads.append(threading.get_ident())
        yield b"b"

    async def main() -> tuple[bytes, int]:
        result = await request(serve(Response(generate())))
        return result.body, threading.get_ident()

    body, loop_thread = run(main())
    assert body == b"ab"
    assert threads
    assert loop_thread not in threads


def test_an_async_iterable_is_streamed() -> None:
    async def stream() -> AsyncIterator[bytes]:
        for part in (b"x", b"y"):
            await asyncio.sleep(0)
            yield part

    result = run(request(serve(Response(stream()))))
    assert body_messages(result.messages) == [(b"x", True), (b"y", True), (b"", False)]


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 4096)  # 1 MiB
    return path


def test_a_file_is_read_in_chunks(data_file: Path) -> None:
    response = Response(FileBody(data_file, length=data_file.stat().st_size))
    result = run(request(serve(response)))
    assert result.body == data_file.read_bytes()
    sizes = [len(chunk) for chunk, _ in body_messages(result.messages)]
    assert max(sizes) == READ_SIZE


def test_file_segments_and_regions(data_file: Path) -> None:
    body = FileBody.from_segments(data_file, [b"<", FileRegion(10, 5), b">", FileRegion(0, 2)])
    result = run(request(serve(Response(body))))
    data = data_file.read_bytes()
    assert result.body == b"<" + data[10:15] + b">" + data[:2]


def test_a_file_to_its_end(data_file: Path) -> None:
    result = run(request(serve(Response(FileBody(data_file, offset=1000)))))
    assert result.body == data_file.read_bytes()[1000:]


def test_a_whole_file_uses_pathsend_when_offered(data_file: Path) -> None:
    response = Response(FileBody(data_file, length=data_file.stat().st_size))
    pathsend: dict[str, Any] = {"http.response.pathsend": {}}
    result = run(request(serve(response), extensions=pathsend))
    assert result.messages[-1] == {"type": "http.response.pathsend", "path": str(data_file)}


def test_a_part_of_a_file_is_not_pathsent(data_file: Path) -> None:
    response = Response(FileBody(data_file, offset=0, length=10))
    pathsend: dict[str, Any] = {"http.response.pathsend": {}}
    result = run(request(serve(response), extensions=pathsend))
    assert result.body == data_file.read_bytes()[:10]


def test_a_file_that_shrank_closes_the_connection(data_file: Path) -> None:
    response = Response(FileBody(data_file, length=2 * 1024 * 1024))
    with pytest.raises(Exception, match="shrank"):
        run(request(serve(response)))


def test_a_missing_file_is_a_500(tmp_path: Path, adapter_log: pytest.LogCaptureFixture) -> None:
    response = Response(FileBody(tmp_path / "missing", length=3))
    result = run(request(serve(response)))
    assert result.status == 500
    assert "before the response head" in adapter_log.text


def test_an_http_error_is_answered_with_its_response() -> None:
    async def handler(req: ASGIRequest) -> Response:
        raise NotFound("no such user")

    result = run(request(asgi_app(handler)))
    assert result.status == 404
    assert b"no such user" in result.body


def test_an_exception_before_the_start_is_a_logged_500(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    async def handler(req: ASGIRequest) -> Response:
        raise KeyError("secret detail")

    result = run(request(asgi_app(handler)))
    assert result.status == 500
    assert b"secret detail" not in result.body
    assert "secret detail" in adapter_log.text


def test_an_exception_after_the_start_propagates_to_close_the_connection() -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield b"partial"
        raise ValueError("stream broke")

    with pytest.raises(ValueError, match="stream broke"):
        run(request(serve(Response(broken()))))


def test_a_disconnect_stops_an_endless_stream_quietly(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    stopped = []

    async def endless() -> AsyncIterator[bytes]:
        try:
            while True:
                yield b"tick"
                await asyncio.sleep(0.001)
        finally:
            stopped.append(True)

    result = run(request(serve(Response(endless())), disconnect_after=3))
    assert result.body == b"tick" * 3
    assert stopped == [True]
    assert adapter_log.records == []


def test_a_disconnect_stops_a_generator_in_the_thread_pool() -> None:
    stopped = []

    def endless() -> Iterator[bytes]:
        try:
            while True:
                yield b"tick"
        finally:
            stopped.append(True)

    result = run(request(serve(Response(endless())), disconnect_after=2))
    assert result.body == b"tick" * 2
    assert stopped == [True]


def test_a_disconnect_while_reading_the_body_is_not_an_error(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    async def handler(req: ASGIRequest) -> Response:
        return Response(await req.body())

    result = run(request(asgi_app(handler), "POST", body=[b"a", b"b"], disconnect_after=0))
    assert result.messages == []
    assert adapter_log.records == []


def test_an_error_after_a_disconnect_is_not_answered(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    async def handler(req: ASGIRequest) -> Response:
        assert await req.is_disconnected()
        raise RuntimeError("lost")

    result = run(request(asgi_app(handler), disconnect_after=0))
    assert result.messages == []
    assert "after the client disconnected" in adapter_log.text


def test_a_send_that_raises_oserror_ends_the_response_quietly() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            raise OSError("gone")

    async def receive() -> Message:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def stream() -> AsyncIterator[bytes]:
        while True:
            yield b"x"
            await asyncio.sleep(0)

    async def handler(req: ASGIRequest) -> Response:
        return Response(stream())

    from tests.asgi.checker import http_scope

    run(asgi_app(handler)(http_scope(), receive, send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


@pytest.mark.parametrize("failing", ["http.response.start", "http.response.body"])
def test_a_bytes_body_sent_to_a_gone_client_marks_it_gone(failing: str) -> None:
    sent: list[str] = []

    async def send(message: Message) -> None:
        sent.append(message["type"])
        if message["type"] == failing:
            raise OSError("gone")

    async def go() -> ResponseSender:
        sender = ResponseSender(send)
        with pytest.raises(OSError, match="gone"):
            await sender.send(Response(b"hello"))
        return sender

    sender = run(go())
    assert sender.started
    assert sender.client_gone
    assert sender.disconnected
    assert sent[-1] == failing


async def never_receive() -> Message:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


@pytest.mark.parametrize("failing", ["http.response.start", "http.response.body"])
def test_a_bytes_answer_to_a_gone_client_ends_quietly(
    failing: str, caplog: pytest.LogCaptureFixture
) -> None:
    sent: list[str] = []

    async def send(message: Message) -> None:
        sent.append(message["type"])
        if message["type"] == failing:
            raise OSError("gone")

    async def handler(req: ASGIRequest) -> Response:
        return Response(b"hello")

    from tests.asgi.checker import http_scope

    run(asgi_app(handler)(http_scope(), never_receive, send))
    assert sent[-1] == failing
    assert caplog.records == []


@pytest.mark.parametrize("failing", ["http.response.start", "http.response.body"])
def test_a_send_failing_otherwise_propagates_for_the_server(failing: str) -> None:
    async def send(message: Message) -> None:
        if message["type"] == failing:
            raise RuntimeError("protocol error")

    async def handler(req: ASGIRequest) -> Response:
        return Response(b"hello")

    from tests.asgi.checker import http_scope

    with pytest.raises(RuntimeError, match="protocol error"):
        run(asgi_app(handler)(http_scope(), never_receive, send))


def test_a_streaming_response_may_echo_the_request_body() -> None:
    async def handler(req: ASGIRequest) -> Response:
        async def echo() -> AsyncIterator[bytes]:
            async for chunk in req.stream():
                yield chunk.upper()

        return Response(echo())

    result = run(request(asgi_app(handler), "POST", body=[b"ab", b"cd", b"ef"]))
    assert result.body == b"ABCDEF"


def test_head_closes_a_sync_generator_on_the_loop() -> None:
    def generate() -> Generator[bytes, None, None]:
        yield b"never"

    body = generate()
    result = run(request(serve(Response(body)), "HEAD"))
    assert body_messages(result.messages) == [(b"", False)]
    assert inspect.getgeneratorstate(body) == "GEN_CLOSED"


def test_a_disconnect_while_the_thread_makes_a_chunk() -> None:
    stopped = []

    def slow() -> Iterator[bytes]:
        try:
            yield b"first"
            while True:
                time.sleep(0.02)
                yield b"late"
        finally:
            stopped.append(True)

    result = run(request(serve(Response(slow())), disconnect_after=1))
    assert result.body == b"first"
    assert stopped == [True]


@pytest.mark.parametrize(
    "body",
    [
        lambda path: FileBody(path, offset=5),
        lambda path: FileBody.from_segments(path, [b"x", FileRegion(0, None)]),
    ],
)
def test_pathsend_only_for_a_whole_file(data_file: Path, body: Any) -> None:
    pathsend: dict[str, Any] = {"http.response.pathsend": {}}
    result = run(request(serve(Response(body(data_file))), extensions=pathsend))
    assert result.messages[-1]["type"] == "http.response.body"


def test_pathsend_for_a_file_to_its_end(data_file: Path) -> None:
    pathsend: dict[str, Any] = {"http.response.pathsend": {}}
    result = run(request(serve(Response(FileBody(data_file))), extensions=pathsend))
    assert result.messages[-1]["type"] == "http.response.pathsend"


# -- the head waits for the first chunk --------------------------------------------


def test_a_stream_failing_before_its_first_chunk_is_a_500(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    def broken() -> Iterator[bytes]:
        yield b""
        raise ValueError("no data")

    result = run(request(serve(Response(broken(), headers={"x-view": "1"}))))
    assert result.status == 500
    assert result.header("x-view") is None
    assert "no data" in adapter_log.text


def test_the_head_goes_out_with_the_first_non_empty_chunk() -> None:
    order: list[str] = []

    async def stream() -> AsyncIterator[bytes]:
        order.append("making")
        yield b""
        yield b"first"
        yield b""
        yield b"second"

    async def on_send(message: Message) -> None:
        order.append(message["type"])

    result = run(request(serve(Response(stream())), on_send=on_send))
    assert result.body == b"firstsecond"
    assert order[:2] == ["making", "http.response.start"]


def test_an_empty_stream_sends_its_head_at_the_end() -> None:
    async def empty() -> AsyncIterator[bytes]:
        yield b""

    result = run(request(serve(Response(empty()))))
    assert result.status == 200
    assert body_messages(result.messages) == [(b"", False)]


def test_a_disconnect_before_the_first_chunk_sends_nothing(
    adapter_log: pytest.LogCaptureFixture,
) -> None:
    stopped = []

    async def waiting() -> AsyncIterator[bytes]:
        try:
            await asyncio.Event().wait()
            yield b"never"  # pragma: no cover (cancelled while waiting)
        finally:
            stopped.append(True)

    result = run(request(serve(Response(waiting())), disconnect_after=0))
    assert result.messages == []
    assert stopped == [True]
    assert adapter_log.records == []
