"""A small file region is opened, read and closed in one call in the io pool.

Each case is also run with the small-file path turned off
(``SMALL_FILE_SIZE = 0``), so that both paths are seen to send the same
messages: the single call changes how many thread hops there are, never
what the client gets.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from sansio_http.asgi import ASGIRequest, ThreadPools, asgi_app
from sansio_http.asgi import _response as asgi_response
from sansio_http.asgi._types import ASGIApp, Message
from sansio_http.messages._files import FileBody
from sansio_http.messages._response import Response
from tests.asgi.checker import HTTPResult, request, run

DATA = bytes(range(256)) * 8  # 2 KiB


@pytest.fixture
def small_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.bin"
    path.write_bytes(DATA)
    return path


@pytest.fixture(params=["small", "general"])
def file_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "general":
        monkeypatch.setattr(asgi_response, "SMALL_FILE_SIZE", 0)
    return str(request.param)


def serve(make_body: Callable[[], FileBody]) -> ASGIApp:
    async def handler(req: ASGIRequest) -> Response:
        return Response(make_body())

    return asgi_app(handler)


def body_messages(messages: list[Message]) -> list[tuple[bytes, bool]]:
    return [
        (message.get("body", b""), message.get("more_body", False))
        for message in messages
        if message["type"] == "http.response.body"
    ]


def open_descriptors_of(path: Path) -> list[str]:
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target == str(path):
            found.append(target)
    return found


class CountingExecutor(ThreadPoolExecutor):
    """The loop's default executor, counting the calls made in it."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.calls = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super().submit(fn, *args, **kwargs)


class CountingPools(ThreadPools):
    """The application's pools, counting the calls made in its io pool."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        submit = self.io.submit

        def counted(func: Any, /, *args: Any) -> Any:
            self.calls += 1
            return submit(func, *args)

        self.io.submit = counted  # type: ignore[method-assign]


def run_counting(make_body: Callable[[], FileBody]) -> tuple[HTTPResult, int]:
    executor = CountingExecutor()
    pools = CountingPools()

    async def handler(req: ASGIRequest) -> Response:
        return Response(make_body())

    async def main() -> HTTPResult:
        asyncio.get_running_loop().set_default_executor(executor)
        return await request(asgi_app(handler, threads=pools))

    try:
        result = run(main())
    finally:
        pools.shutdown(wait=True)
    # Nothing runs in the loop's default executor: the pools are the application's.
    assert executor.calls == 0
    return result, pools.calls


def test_a_small_file_is_read_in_one_call(small_file: Path) -> None:
    result, calls = run_counting(lambda: FileBody(small_file, length=len(DATA)))
    assert result.status == 200
    assert result.body == DATA
    # Open, read and close together; the handler is a coroutine, so it needs none.
    assert calls == 1
    assert body_messages(result.messages) == [(DATA, False)]


def test_a_region_over_the_size_is_streamed(
    small_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asgi_response, "SMALL_FILE_SIZE", len(DATA) - 1)
    result, calls = run_counting(lambda: FileBody(small_file, length=len(DATA)))
    assert result.body == DATA
    assert calls == 4  # open, seek, read, close


@pytest.mark.usefixtures("file_path")
@pytest.mark.parametrize(("offset", "length"), [(0, len(DATA)), (100, 50), (0, 0), (2047, 1)])
def test_a_region_is_sent_whole(small_file: Path, offset: int, length: int) -> None:
    result = run(request(serve(lambda: FileBody(small_file, offset=offset, length=length))))
    assert result.status == 200
    assert result.header("content-length") == str(length)
    assert result.body == DATA[offset : offset + length]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
@pytest.mark.usefixtures("file_path")
def test_the_file_is_closed(small_file: Path) -> None:
    result = run(request(serve(lambda: FileBody(small_file, length=len(DATA)))))
    assert result.body == DATA
    assert open_descriptors_of(small_file) == []


@pytest.mark.usefixtures("file_path")
def test_a_file_that_grew_sends_the_promised_length(small_file: Path) -> None:
    def grown() -> FileBody:
        body = FileBody(small_file, length=len(DATA))
        small_file.write_bytes(DATA + b"more")  # after the length was taken
        return body

    result = run(request(serve(grown)))
    assert result.body == DATA


@pytest.mark.usefixtures("file_path")
def test_a_file_that_shrank_sends_what_it_has_then_fails(small_file: Path) -> None:
    def shrunk() -> FileBody:
        body = FileBody(small_file, length=len(DATA))
        small_file.write_bytes(DATA[:100])
        return body

    sent: list[Message] = []

    async def on_send(message: Message) -> None:
        sent.append(message)

    with pytest.raises(Exception, match="shrank"):
        run(request(serve(shrunk), on_send=on_send))
    assert sent[0]["type"] == "http.response.start"
    assert body_messages(sent) == [(DATA[:100], True)]


@pytest.mark.usefixtures("file_path")
def test_a_file_that_shrank_to_nothing_is_a_500(small_file: Path) -> None:
    def emptied() -> FileBody:
        body = FileBody(small_file, length=len(DATA))
        small_file.write_bytes(b"")
        return body

    # Nothing was sent yet, so the error can still become a 500.
    assert run(request(serve(emptied))).status == 500


@pytest.mark.usefixtures("file_path")
def test_a_missing_file_is_a_500(tmp_path: Path) -> None:
    assert run(request(serve(lambda: FileBody(tmp_path / "missing", length=3)))).status == 500


@pytest.fixture(autouse=True)
def _no_descriptor_left(small_file: Path) -> Iterator[None]:
    yield
    if os.path.isdir("/proc/self/fd"):
        assert open_descriptors_of(small_file) == []
