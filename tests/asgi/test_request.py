from __future__ import annotations

import asyncio
import concurrent.futures
import io
import itertools
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.asgi import _request as asgi_request
from sansio_http.asgi._request import DEFAULT_SPOOL_MEMORY, FORM_BATCH_SIZE
from sansio_http.asgi._types import Message
from sansio_http.bodies._formdata import FormLimits
from sansio_http.messages._errors import BadRequest, ClientDisconnected, RequestEntityTooLarge
from sansio_http.messages._response import Response
from tests.asgi.checker import http_scope, request, run

FORM = (b"content-type", b"application/x-www-form-urlencoded")
BOUNDARY = "b0undary"
MULTIPART = (b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode())


class Canned:
    """A receive callable that returns prepared messages, then waits."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = list(messages)
        self.calls = 0

    async def __call__(self) -> Message:
        self.calls += 1
        await asyncio.sleep(0)
        if self.messages:
            return self.messages.pop(0)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def chunks(*parts: bytes) -> list[Message]:
    return [
        {"type": "http.request", "body": part, "more_body": index < len(parts) - 1}
        for index, part in enumerate(parts)
    ]


def make(
    messages: Sequence[Message] = (), *, headers: Sequence[tuple[bytes, bytes]] = (), **args: Any
) -> tuple[ASGIRequest, Canned]:
    scope_args = {key: args.pop(key) for key in ("root_path", "query_string") if key in args}
    path = args.pop("path", "/")
    receive = Canned(messages)
    scope = http_scope("POST", path, headers=headers, **scope_args)
    return ASGIRequest(scope, receive, **args), receive


def multipart(*parts: tuple[str, str | None, bytes]) -> bytes:
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
        out += data + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


@pytest.mark.parametrize("path", ["/app/users/7", "/users/7"])
def test_path_and_root_path_mean_the_same_on_every_server(path: str) -> None:
    request, _ = make(path=path, root_path="/app", query_string=b"a=1&b=%C3%A9")
    assert (request.path, request.root_path) == ("/users/7", "/app")
    assert request.url == "http://testserver/app/users/7?a=1&b=%C3%A9"
    assert request.args["b"] == "é"


def test_replace_keeps_values_replaced_before_whether_read_or_not() -> None:
    async def scenario() -> None:
        original, _ = make(query_string=b"a=1", root_path="/app", path="/app/x")
        # A proxy policy replaces some values; a later replace() changes others.
        behind_proxy = original.replace(scheme="https", remote_addr="192.0.2.9")
        moved = behind_proxy.replace(path="/elsewhere")
        assert (moved.scheme, moved.remote_addr) == ("https", "192.0.2.9")
        assert (moved.path, moved.root_path) == ("/elsewhere", "/app")
        # What neither replaced is still read from the scope.
        assert moved.query_string == b"a=1"
        assert moved.server == original.scope["server"]
        assert moved.headers.raw() == original.scope["headers"]

    asyncio.run(scenario())


def test_headers_are_wrapped_once_and_replace_works_before_they_are_read() -> None:
    # The headers are made from the scope on first access (PERF): the same
    # object from then on, and a replacement wins whether they were read or not.
    request, _ = make(headers=[(b"x-token", b"abc")])
    replaced = request.replace(headers=[("x-token", "new")])
    assert replaced.headers["x-token"] == "new"
    assert request.headers["x-token"] == "abc"
    assert request.headers is request.headers
    assert request.replace(path="/x").headers["x-token"] == "abc"


def test_scope_values_are_read_as_they_are() -> None:
    request, _ = make(headers=[(b"x-token", b"abc"), (b"x-token", b"def")])
    assert request.method == "POST"
    assert request.headers.getlist("x-token") == ["abc", "def"]
    assert request.remote_addr == "127.0.0.1"
    assert request.server == ("127.0.0.1", 8000)
    assert request.scheme == "http"
    assert request.raw_path == b"/"
    assert request.http_version == "1.1"
    assert request.scope["type"] == "http"


def test_state_starts_as_a_copy_of_the_lifespan_state() -> None:
    lifespan = {"db": "scope"}
    request = ASGIRequest(http_scope(state=lifespan), Canned([]))
    assert request.state == {"db": "scope"}
    assert request.state.db == "scope"
    request.state.user = "ada"
    assert lifespan == {"db": "scope"}
    assert ASGIRequest(http_scope(), Canned([]), state={"db": "app"}).state == {"db": "app"}
    assert ASGIRequest(http_scope(), Canned([])).state == {}


def test_body_joins_the_chunks_and_skips_empty_ones() -> None:
    async def main() -> tuple[bytes, bytes, int]:
        request, receive = make(chunks(b"", b"ab", b"", b"cd", b""))
        first = await request.body()
        second = await request.body()
        return first, second, receive.calls

    assert run(main()) == (b"abcd", b"abcd", 5)


def test_stream_yields_chunks_as_they_arrive() -> None:
    async def main() -> list[bytes]:
        request, _ = make(chunks(b"ab", b"", b"cd"))
        return [chunk async for chunk in request.stream()]

    assert run(main()) == [b"ab", b"cd"]


def test_stream_twice_is_an_error_at_the_call() -> None:
    async def main() -> None:
        request, _ = make(chunks(b"ab"))
        async for _ in request.stream():
            pass
        with pytest.raises(RuntimeError, match="already streamed"):
            request.stream()
        with pytest.raises(RuntimeError, match="already streamed"):
            await request.body()

    run(main())


def test_stream_after_body_replays_the_kept_body() -> None:
    async def main() -> list[bytes]:
        request, _ = make(chunks(b"ab", b"cd"))
        await request.body()
        return [chunk async for chunk in request.stream()]

    assert run(main()) == [b"abcd"]


def test_empty_body_streams_nothing() -> None:
    async def main() -> list[bytes]:
        request, _ = make(chunks(b""))
        await request.body()
        return [chunk async for chunk in request.stream()]

    assert run(main()) == []


def test_declared_length_over_the_limit_is_refused_before_reading() -> None:
    async def main() -> int:
        request, receive = make(
            chunks(b"x" * 11), headers=[(b"content-length", b"11")], max_content_length=10
        )
        with pytest.raises(RequestEntityTooLarge):
            await request.body()
        return receive.calls

    assert run(main()) == 0


def test_chunked_body_over_the_limit_is_refused_while_streaming() -> None:
    async def main() -> list[bytes]:
        request, _ = make(chunks(b"x" * 6, b"x" * 5), max_content_length=10)
        seen: list[bytes] = []

        async def collect() -> None:
            async for chunk in request.stream():
                seen.append(chunk)

        with pytest.raises(RequestEntityTooLarge):
            await collect()
        return seen

    assert run(main()) == [b"x" * 6]


def test_body_at_the_limit_is_accepted() -> None:
    async def main() -> bytes:
        request, _ = make(chunks(b"x" * 6, b"x" * 4), max_content_length=10)
        return await request.body()

    assert run(main()) == b"x" * 10


def test_disconnect_mid_body_raises_client_disconnected() -> None:
    async def main() -> None:
        request, _ = make([*chunks(b"ab", b"more")[:1], {"type": "http.disconnect"}])
        with pytest.raises(ClientDisconnected):
            await request.body()
        assert await request.is_disconnected()

    run(main())


def test_unknown_messages_are_skipped() -> None:
    async def main() -> bytes:
        request, _ = make([{"type": "http.future"}, *chunks(b"ok")])
        return await request.body()

    assert run(main()) == b"ok"


def test_is_disconnected_does_not_lose_the_body() -> None:
    async def main() -> tuple[bool, bytes, bool]:
        request, _ = make([*chunks(b"ab", b"cd"), {"type": "http.disconnect"}])
        before = await request.is_disconnected()
        body = await request.body()
        after = await request.is_disconnected()
        await request.close()
        return before, body, after

    assert run(main()) == (False, b"abcd", True)


def test_json() -> None:
    async def main() -> Any:
        request, _ = make(
            chunks(b'{"a": [1, ', b'"\xc3\xa9"]}'), headers=[(b"content-type", b"application/json")]
        )
        return await request.json()

    assert run(main()) == {"a": [1, "é"]}


def test_invalid_json_is_a_400() -> None:
    async def main() -> None:
        request, _ = make(chunks(b"{nope"), headers=[(b"content-type", b"application/json")])
        with pytest.raises(BadRequest):
            await request.json()

    run(main())


def test_urlencoded_form() -> None:
    async def main() -> tuple[list[str], str, int]:
        request, _ = make(chunks(b"a=1&b=caf", b"%C3%A9&a=2"), headers=[FORM])
        form = await request.form()
        files = await request.files()
        return form.getlist("a"), form["b"], len(files)

    assert run(main()) == (["1", "2"], "café", 0)


def test_multipart_form_with_a_file_closed_by_close() -> None:
    body = multipart(("title", None, b"report"), ("upload", "a.txt", b"hello\r\nworld"))

    async def main() -> None:
        request, _ = make(chunks(body[:30], body[30:]), headers=[MULTIPART])
        form = await request.form()
        upload = (await request.files())["upload"]
        assert form["title"] == "report"
        assert (upload.filename, upload.read()) == ("a.txt", b"hello\r\nworld")
        await request.close()
        assert upload.stream.closed  # type: ignore[attr-defined]

    run(main())


def test_form_of_another_media_type_is_empty_and_leaves_the_body() -> None:
    async def main() -> tuple[int, bytes]:
        request, _ = make(chunks(b'{"a": 1}'), headers=[(b"content-type", b"application/json")])
        form = await request.form()
        return len(form), await request.body()

    assert run(main()) == (0, b'{"a": 1}')


def test_form_limits_apply() -> None:
    async def main() -> None:
        request, _ = make(
            chunks(b"a=1&b=2&c=3"), headers=[FORM], form_limits=FormLimits(max_form_parts=2)
        )
        with pytest.raises(RequestEntityTooLarge):
            await request.form()

    run(main())


def test_malformed_multipart_is_a_400_and_discards_spooled_files() -> None:
    made: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        made.append(io.BytesIO())
        return made[-1]

    body = multipart(("upload", "a.bin", b"x" * 100))[:-10]

    async def main() -> None:
        request, _ = make(chunks(body), headers=[MULTIPART], spool=spool)
        with pytest.raises(BadRequest):
            await request.form()

    run(main())
    assert made
    assert all(file.closed for file in made)


def test_a_body_error_while_decoding_discards_spooled_files() -> None:
    made: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        made.append(io.BytesIO())
        return made[-1]

    body = multipart(("upload", "a.bin", b"x" * (3 * DEFAULT_SPOOL_MEMORY)))
    step = 64 * 1024
    parts = [body[i : i + step] for i in range(0, len(body), step)]

    async def main() -> None:
        request, _ = make(
            [*chunks(*parts)[:-3], {"type": "http.disconnect"}], headers=[MULTIPART], spool=spool
        )
        with pytest.raises(ClientDisconnected):
            await request.form()

    run(main())
    assert made
    assert all(file.closed for file in made)


class ThreadRecordingSpool(io.BytesIO):
    """A spool file that remembers which thread wrote how many bytes."""

    def __init__(self, log: list[tuple[int, int]]) -> None:
        super().__init__()
        self.log = log

    def write(self, data: Any, /) -> int:
        self.log.append((threading.get_ident(), len(data)))
        return super().write(data)


def test_uploads_past_the_memory_threshold_are_written_off_the_loop() -> None:
    size = 5 * DEFAULT_SPOOL_MEMORY
    body = multipart(("upload", "big.bin", b"y" * size))
    step = 64 * 1024
    parts = [body[i : i + step] for i in range(0, len(body), step)]
    log: list[tuple[int, int]] = []

    async def main() -> int:
        request, _ = make(
            chunks(*parts), headers=[MULTIPART], spool=lambda: ThreadRecordingSpool(log)
        )
        upload = (await request.files())["upload"]
        assert upload.size == size
        await request.close()
        return threading.get_ident()

    loop_thread = run(main())
    on_loop = sum(length for thread, length in log if thread == loop_thread)
    assert sum(length for _, length in log) == size
    assert on_loop <= DEFAULT_SPOOL_MEMORY


class SlowDisk(io.BytesIO):
    """Past the memory threshold, each write waits until ``release`` is set.

    On the event loop's thread such a write would stall every other request;
    the wait is bounded so that the test fails instead of hanging.
    """

    def __init__(self, release: threading.Event, spooling: threading.Event) -> None:
        super().__init__()
        self.release = release
        self.spooling = spooling

    def write(self, data: Any, /) -> int:
        if self.tell() + len(data) > DEFAULT_SPOOL_MEMORY:
            self.spooling.set()
            if not self.release.wait(30):
                raise TimeoutError("the other request never answered")
        return super().write(data)


def test_another_request_answers_while_a_50_mib_upload_spools() -> None:
    release = threading.Event()
    spooling = threading.Event()
    size = 50 * 1024 * 1024
    body = multipart(("upload", "big.bin", b"z" * size))
    step = 256 * 1024
    parts = [body[i : i + step] for i in range(0, len(body), step)]
    order: list[str] = []

    async def handler(req: ASGIRequest) -> Response:
        if req.path == "/upload":
            upload = (await req.files())["upload"]
            order.append("upload done")
            return Response(str(upload.size))
        order.append("hello answered")
        return Response(b"hello")

    app = asgi_app(
        handler,
        form_limits=FormLimits(max_content_length=None),
        spool=lambda: SlowDisk(release, spooling),
    )

    async def main() -> tuple[int, bytes]:
        upload = asyncio.ensure_future(
            request(app, "POST", "/upload", body=parts, headers=[MULTIPART])
        )
        while not spooling.is_set():
            await asyncio.sleep(0.001)
        hello = await request(app, "GET", "/hello")
        release.set()
        result = await upload
        return hello.status, result.body

    assert run(main()) == (200, str(size).encode())
    assert order == ["hello answered", "upload done"]


def test_a_limit_hit_while_a_batch_is_decoded_discards_the_files() -> None:
    made: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        made.append(io.BytesIO())
        return made[-1]

    body = multipart(("upload", "big.bin", b"q" * (6 * DEFAULT_SPOOL_MEMORY)))
    step = 256 * 1024
    parts = [body[i : i + step] for i in range(0, len(body), step)]

    async def main() -> None:
        request, _ = make(
            chunks(*parts),
            headers=[MULTIPART],
            spool=spool,
            max_content_length=4 * DEFAULT_SPOOL_MEMORY,
        )
        with pytest.raises(RequestEntityTooLarge):
            await request.form()

    run(main())
    assert made
    assert all(file.closed for file in made)


# -- batches: the chunks of a form body are decoded in batches ---------------------


async def _collect_batches(pieces: list[bytes]) -> list[bytes]:
    request, _ = make(chunks(*pieces) or chunks(b""), headers=[MULTIPART])
    return [batch async for batch in request._form_batches()]


@settings(max_examples=200)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=40), max_size=60),
    limit=st.integers(min_value=1, max_value=100),
    most=st.integers(min_value=1, max_value=6),
)
def test_batches_keep_every_byte_and_stay_within_their_bounds(
    sizes: list[int], limit: int, most: int
) -> None:
    pieces = [bytes([index % 256]) * size for index, size in enumerate(sizes)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asgi_request, "FORM_BATCH_SIZE", limit)
        patch.setattr(asgi_request, "FORM_BATCH_PIECES", most)
        batches = asyncio.run(_collect_batches(pieces))
    assert b"".join(batches) == b"".join(pieces)
    # Each batch is whole consecutive chunks: find which chunks it holds.
    ends = list(itertools.accumulate(sizes))
    start = 0
    for number, batch in enumerate(batches):
        end = start + len(batch)
        assert end in ends
        held = sizes[ends.index(start) + 1 if start else 0 : ends.index(end) + 1]
        assert len(held) <= most
        # Under the size bound until its last chunk, which may cross it.
        assert sum(held[:-1]) < limit
        if number < len(batches) - 1:
            # Only the last batch may stop short of both bounds.
            assert sum(held) >= limit or len(held) == most
        start = end


@pytest.mark.parametrize("size", [0, 10, 3 * FORM_BATCH_SIZE])
def test_a_form_after_body_decodes_the_kept_body(size: int) -> None:
    body = multipart(("title", None, b"hi"), ("upload", "a.bin", b"k" * size))

    async def main() -> tuple[bytes, str, bytes]:
        request, _ = make(chunks(*_cut(body, 64 * 1024)), headers=[MULTIPART], spool=io.BytesIO)
        kept = await request.body()
        form = await request.form()
        data = (await request.files())["upload"].read()
        await request.close()
        return kept, form["title"], data

    assert run(main()) == (body, "hi", b"k" * size)


def test_an_empty_kept_body_is_an_empty_form() -> None:
    async def main() -> int:
        request, _ = make(chunks(b""), headers=[FORM])
        assert await request.body() == b""
        return len(await request.form())

    assert run(main()) == 0


def test_a_form_after_the_body_was_streamed_is_an_error() -> None:
    async def main() -> None:
        request, _ = make(chunks(b"a=1"), headers=[FORM])
        assert [chunk async for chunk in request.stream()] == [b"a=1"]
        with pytest.raises(RuntimeError, match="already streamed"):
            await request.form()

    run(main())


def _body_of_length(length: int, field: str = "upload", filename: str | None = "a.bin") -> bytes:
    overhead = len(multipart((field, filename, b"")))
    body = multipart((field, filename, b"x" * (length - overhead)))
    assert len(body) == length
    return body


def _cut(body: bytes, step: int) -> list[bytes]:
    return [body[i : i + step] for i in range(0, len(body), step)]


# Sizes around which the batches fall differently: bodies of a few KiB cut into single
# bytes, and of several batches cut as uvicorn does and into batch-sized messages.
LIMIT_CASES = [
    (10_000, 1),
    (10_000, 999),
    (3 * FORM_BATCH_SIZE + 7, 64 * 1024),
    (3 * FORM_BATCH_SIZE + 7, FORM_BATCH_SIZE),
    (3 * FORM_BATCH_SIZE + 7, FORM_BATCH_SIZE + 1),
]


@pytest.mark.parametrize(("limit", "step"), LIMIT_CASES)
@pytest.mark.parametrize("over", [0, 1])
def test_max_content_length_trips_at_the_same_byte_whatever_the_chunks(
    limit: int, step: int, over: int
) -> None:
    body = _body_of_length(limit + over)

    async def main() -> int:
        request, _ = make(
            chunks(*_cut(body, step)),
            headers=[MULTIPART],
            form_limits=FormLimits(max_content_length=limit, max_form_parts=None),
            spool=io.BytesIO,
        )
        try:
            return (await request.files())["upload"].size
        finally:
            await request.close()

    if over:
        with pytest.raises(RequestEntityTooLarge, match="max_content_length"):
            run(main())
    else:
        assert run(main()) == limit - len(multipart(("upload", "a.bin", b"")))


@pytest.mark.parametrize(("limit", "step"), LIMIT_CASES[:2])
@pytest.mark.parametrize("over", [0, 1])
def test_max_form_memory_size_trips_at_the_same_byte_whatever_the_chunks(
    limit: int, step: int, over: int
) -> None:
    value = b"v" * (limit - len("note") + over)
    body = multipart(("note", None, value))

    async def main() -> int:
        request, _ = make(
            chunks(*_cut(body, step)),
            headers=[MULTIPART],
            form_limits=FormLimits(max_form_memory_size=limit),
        )
        return len((await request.form())["note"])

    if over:
        with pytest.raises(RequestEntityTooLarge, match="max_form_memory_size"):
            run(main())
    else:
        assert run(main()) == len(value)


@pytest.mark.parametrize("step", [1, FORM_BATCH_SIZE])
def test_an_upload_over_the_limit_is_a_413_whatever_the_chunks(step: int) -> None:
    limit = 4000 if step == 1 else 3 * FORM_BATCH_SIZE
    body = _body_of_length(limit + 1)

    async def handler(req: ASGIRequest) -> Response:
        return Response(str((await req.files())["upload"].size))

    app = asgi_app(handler, form_limits=FormLimits(max_content_length=limit))
    result = run(request(app, "POST", body=_cut(body, step), headers=[MULTIPART]))
    assert result.status == 413
    assert b"max_content_length" in result.body


class GatedSpool(io.BytesIO):
    """Past the memory threshold, writes wait until ``release`` is set.

    ``written`` counts the bytes whose write returned, across all files.
    """

    def __init__(self, gate: Gate) -> None:
        super().__init__()
        self.gate = gate

    def write(self, data: Any, /) -> int:
        if self.tell() + len(data) > DEFAULT_SPOOL_MEMORY:
            self.gate.blocked.set()
            if not self.gate.release.wait(30):
                raise TimeoutError("the test never released the write")
        written = super().write(data)
        self.gate.written += written
        return written


@dataclass
class Gate:
    release: threading.Event = field(default_factory=threading.Event)
    blocked: threading.Event = field(default_factory=threading.Event)
    written: int = 0


async def _settle(receive: Canned) -> int:
    """Let the request read all it will; return how many messages it took."""
    calls = -1
    while calls != receive.calls:
        calls = receive.calls
        for _ in range(200):
            await asyncio.sleep(0)
    return calls


def test_a_slow_disk_holds_the_body_at_two_batches() -> None:
    step = 64 * 1024
    size = 8 * FORM_BATCH_SIZE
    body = multipart(("upload", "big.bin", b"s" * size))
    parts = _cut(body, step)
    gate = Gate()

    async def main() -> tuple[int, int]:
        request, receive = make(chunks(*parts), headers=[MULTIPART], spool=lambda: GatedSpool(gate))
        reading = asyncio.ensure_future(request.files())
        while not gate.blocked.is_set():
            await asyncio.sleep(0.001)
        calls = await _settle(receive)
        # What was received and not yet written is all the request holds.
        held = sum(len(part) for part in parts[:calls]) - gate.written
        gate.release.set()
        upload = (await reading)["upload"]
        await request.close()
        return held, upload.size

    held, uploaded = run(main())
    assert uploaded == size
    # The batch being written and the one waiting for it; no third is read.
    assert FORM_BATCH_SIZE < held <= 2 * (FORM_BATCH_SIZE + step)


def test_the_writer_gives_its_thread_back_while_the_client_is_slow() -> None:
    body = multipart(("upload", "big.bin", b"w" * (4 * FORM_BATCH_SIZE)))
    parts = _cut(body, 64 * 1024)
    # The client sends 3 MiB, then goes quiet: the last message says more is coming.
    messages = [{"type": "http.request", "body": part, "more_body": True} for part in parts[:48]]
    made: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        made.append(io.BytesIO())
        return made[-1]

    async def main() -> int:
        loop = asyncio.get_running_loop()
        # One thread: a worker that kept it while waiting for the body would
        # leave nothing for anybody else.
        loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(1))
        request, receive = make(messages, headers=[MULTIPART], spool=spool)
        reading = asyncio.ensure_future(request.files())
        while receive.calls <= len(messages):
            await asyncio.sleep(0.001)
        answer = await loop.run_in_executor(None, int, "42")
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        return answer

    assert run(main()) == 42
    # What was written before the client went quiet went through the worker.
    assert made[0].closed


def test_a_spool_error_off_the_loop_fails_the_form_and_discards_the_files() -> None:
    made: list[io.BytesIO] = []

    class FullDisk(io.BytesIO):
        def write(self, data: Any, /) -> int:
            if self.tell() + len(data) > DEFAULT_SPOOL_MEMORY:
                raise OSError(28, "No space left on device")
            return super().write(data)

    def spool() -> io.BytesIO:
        made.append(FullDisk())
        return made[-1]

    body = multipart(("upload", "big.bin", b"f" * (4 * FORM_BATCH_SIZE)))

    async def main() -> None:
        request, _ = make(chunks(*_cut(body, 64 * 1024)), headers=[MULTIPART], spool=spool)
        with pytest.raises(OSError, match="No space left"):
            await request.form()

    run(main())
    assert len(made) == 1
    assert made[0].closed


def test_a_cancelled_upload_waits_for_the_write_then_discards_the_files() -> None:
    gate = Gate()
    made: list[GatedSpool] = []

    def spool() -> GatedSpool:
        made.append(GatedSpool(gate))
        return made[-1]

    body = multipart(("upload", "big.bin", b"c" * (4 * FORM_BATCH_SIZE)))

    async def main() -> None:
        request, _ = make(chunks(*_cut(body, 64 * 1024)), headers=[MULTIPART], spool=spool)
        reading = asyncio.ensure_future(request.files())
        while not gate.blocked.is_set():
            await asyncio.sleep(0.001)
        reading.cancel()
        for _ in range(10):
            await asyncio.sleep(0)
        # The write in progress cannot be stopped: the files stay open until it ends.
        assert not reading.done()
        assert not made[0].closed
        gate.release.set()
        with pytest.raises(asyncio.CancelledError):
            await reading

    run(main())
    assert made[0].closed


@pytest.mark.parametrize(
    ("script_name", "path_info"),
    [("", "/users/7"), ("/app", "/users/7"), ("/app", ""), ("/app", "/"), ("/a/b", "/caf\xc3\xa9")],
)
@pytest.mark.parametrize("includes_root", [True, False])
def test_the_same_request_reads_the_same_under_wsgi(
    script_name: str, path_info: str, includes_root: bool
) -> None:
    from sansio_http.wsgi import WSGIRequest

    environ = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path_info,
        "QUERY_STRING": "q=1",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "wsgi.url_scheme": "http",
    }
    below = path_info.encode("latin-1").decode("utf-8")
    path = script_name + below if includes_root else below
    asgi, _ = make(path=path or "/", root_path=script_name, query_string=b"q=1")
    wsgi = WSGIRequest(environ)
    assert (asgi.path, asgi.root_path, asgi.url) == (wsgi.path, wsgi.root_path, wsgi.url)


def test_asgi_app_passes_its_request_options() -> None:
    made: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        made.append(io.BytesIO())
        return made[-1]

    async def handler(req: ASGIRequest) -> Response:
        files = await req.files()
        return Response(f"{req.host} {len(files)}")

    app = asgi_app(handler, spool=spool, trusted_hosts=["testserver"])
    body = multipart(("upload", "a.txt", b"abc"))
    ok = run(request(app, "POST", body=body, headers=[MULTIPART]))
    refused = run(request(app, headers=[(b"host", b"evil.example")], path="/x"))
    assert (ok.status, ok.body) == (200, b"testserver 1")
    assert len(made) == 1
    assert refused.status == 400
    assert b"not served here" in refused.body


class ClosingSpool(tempfile.SpooledTemporaryFile):  # type: ignore[type-arg]
    """A default-kind spool that remembers the thread that closed it."""

    closed_on: list[str]

    def close(self) -> None:
        self.closed_on.append(threading.current_thread().name)
        super().close()


@pytest.mark.parametrize(("size", "on_loop"), [(100, True), (DEFAULT_SPOOL_MEMORY + 1, False)])
def test_uploads_in_memory_are_closed_without_a_thread_hop(size: int, on_loop: bool) -> None:
    body = multipart(("upload", "a.bin", b"x" * size))
    closed_on: list[str] = []

    def spool() -> ClosingSpool:
        file = ClosingSpool(max_size=DEFAULT_SPOOL_MEMORY)
        file.closed_on = closed_on
        return file

    async def main() -> None:
        request, _ = make(chunks(body), headers=[MULTIPART], spool=spool)
        await request.files()
        await request.close()

    run(main())
    assert len(closed_on) == 1
    assert (closed_on[0] == threading.main_thread().name) is on_loop


class TaggedRequest(ASGIRequest):
    """A framework's own request class."""

    tag = "mine"


@pytest.mark.parametrize("limit", [None, 4])
def test_asgi_app_builds_the_given_request_class_with_its_settings(limit: int | None) -> None:
    seen: list[ASGIRequest] = []

    async def handler(req: ASGIRequest) -> Response:
        seen.append(req)
        return Response(str(len(await req.body())))

    app = asgi_app(handler, request_class=TaggedRequest, max_content_length=limit)
    result = run(request(app, "POST", body=b"abcdef"))
    assert isinstance(seen[0], TaggedRequest)
    assert seen[0].max_content_length == limit
    assert result.status == (413 if limit else 200)
    # The settings belong to this application's requests only.
    assert TaggedRequest.max_content_length is None


def test_propagating_exceptions_is_asked_by_a_scope_extension() -> None:
    from sansio_http.messages._request import RAISE_EXCEPTIONS

    async def scenario() -> None:
        scope = http_scope("GET", "/")
        assert not ASGIRequest(scope, Canned([])).propagate_exceptions
        scope["extensions"] = {RAISE_EXCEPTIONS: {}}
        assert ASGIRequest(scope, Canned([])).propagate_exceptions

    asyncio.run(scenario())


@pytest.mark.parametrize("reader", ["body", "stream"])
def test_messages_of_other_types_are_skipped_while_reading(reader: str) -> None:
    async def scenario() -> bytes:
        messages: list[Message] = [
            {"type": "http.request", "body": b"ab", "more_body": True},
            {"type": "http.unknown"},
            {"type": "http.request", "body": b"cd", "more_body": False},
        ]
        request, _ = make(messages)
        if reader == "body":
            return await request.body()
        return b"".join([chunk async for chunk in request.stream()])

    assert asyncio.run(scenario()) == b"abcd"
