"""The blocking spelling of the body API under ASGI: reads handed to the loop.

A ``def`` view runs on a worker thread; each blocking read there runs on the
request's event loop and the thread waits for it. On the loop's own thread
a blocking read is refused with the awaited spelling in the message.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sansio_http.asgi import ASGIRequest
from sansio_http.messages._errors import ClientDisconnected, RequestEntityTooLarge
from tests.asgi.checker import http_scope, run

from .test_request import FORM, MULTIPART, Canned, chunks, make, multipart


async def in_thread(func: Any, *args: Any) -> Any:
    """Call ``func`` on a worker thread, as the App runs a def view."""
    return await asyncio.get_running_loop().run_in_executor(None, func, *args)


def test_get_data_on_a_worker_thread_reads_through_the_loop() -> None:
    async def main() -> tuple[bytes, bytes, int]:
        request, _ = make(chunks(b"ab", b"", b"cd"))
        data = await in_thread(request.get_data)
        # Kept: the awaited spelling sees the same bytes.
        return data, await request.body(), request.bytes_read

    data, again, read = run(main())
    assert data == again == b"abcd"
    assert read == 4


def test_iter_data_yields_each_chunk_as_it_arrives() -> None:
    async def main() -> tuple[list[bytes], list[int]]:
        request, _ = make(chunks(b"ab", b"", b"cd", b"e"))
        progress: list[int] = []

        def read() -> list[bytes]:
            seen = []
            for chunk in request.iter_data():
                seen.append(chunk)
                progress.append(request.bytes_read)
            return seen

        return await in_thread(read), progress

    assert run(main()) == ([b"ab", b"cd", b"e"], [2, 4, 5])


def test_iter_data_after_get_data_replays_the_kept_bytes() -> None:
    async def main() -> tuple[list[bytes], list[bytes]]:
        request, _ = make(chunks(b"ab", b"cd"))
        await request.body()
        empty, _ = make(chunks(b""))
        await empty.body()
        return (
            await in_thread(lambda: list(request.iter_data())),
            await in_thread(lambda: list(empty.iter_data())),
        )

    assert run(main()) == ([b"abcd"], [])


def test_a_consumed_body_fails_at_the_call_of_iter_data() -> None:
    async def main() -> str:
        request, _ = make(chunks(b"ab"))
        async for _ in request.stream():
            pass
        try:
            await in_thread(request.iter_data)
        except RuntimeError as exc:
            return str(exc)
        return ""

    assert "already streamed" in run(main())


def test_forms_and_json_through_the_loop() -> None:
    body = multipart(("title", None, b"notes"), ("upload", "a.txt", b"hello"))

    async def main() -> tuple[dict[str, str], bytes, Any]:
        request, _ = make(chunks(body[:7], body[7:]), headers=[MULTIPART])
        form = await in_thread(request.get_form)
        files = await in_thread(request.get_files)
        as_json, _ = make(
            chunks(b'{"n": ', b"[1]}"), headers=[(b"content-type", b"application/json")]
        )
        try:
            return form.to_dict(), files["upload"].read(), await in_thread(as_json.get_json)
        finally:
            await request.close()

    assert run(main()) == ({"title": "notes"}, b"hello", {"n": [1]})


def test_limits_and_disconnects_raise_the_same_errors_on_the_thread() -> None:
    async def main() -> list[type[BaseException]]:
        raised: list[type[BaseException]] = []
        big, _ = make(chunks(b"x" * 10, b"y" * 10), max_content_length=15)
        gone, _ = make([{"type": "http.request", "body": b"a", "more_body": True},
                        {"type": "http.disconnect"}])  # fmt: skip
        form, _ = make(chunks(b"a=" + b"1" * 50), headers=[FORM], max_content_length=20)
        for call in (big.get_data, gone.get_data, form.get_form):
            try:
                await in_thread(call)
            except Exception as exc:
                raised.append(type(exc))
        return raised

    assert run(main()) == [RequestEntityTooLarge, ClientDisconnected, RequestEntityTooLarge]


def test_check_disconnected_on_a_worker_thread() -> None:
    async def main() -> tuple[bool, bool]:
        here, _ = make(chunks(b""))
        gone, _ = make([{"type": "http.disconnect"}])
        await here.body()
        await asyncio.sleep(0)
        return await in_thread(here.check_disconnected), await in_thread(gone.check_disconnected)

    assert run(main()) == (False, True)


@pytest.mark.parametrize(
    ("name", "spelling"),
    [
        ("get_data", "await request.body()"),
        ("iter_data", "async for chunk in request.stream()"),
        ("get_form", "await request.form()"),
        ("get_files", "await request.files()"),
        ("get_json", "await request.json()"),
        ("check_disconnected", "await request.is_disconnected()"),
    ],
)
def test_a_blocking_read_on_the_loop_thread_is_refused(name: str, spelling: str) -> None:
    async def main() -> str:
        request, receive = make(chunks(b"{}"), headers=[FORM])
        try:
            getattr(request, name)()
        except RuntimeError as exc:
            assert receive.calls == 0
            return str(exc)
        return ""

    message = run(main())
    assert message.startswith(f"request.{name}() blocks")
    assert spelling in message


def test_a_request_built_outside_a_loop_cannot_bridge() -> None:
    request = ASGIRequest(http_scope("POST", "/"), Canned(chunks(b"ab")))
    with pytest.raises(RuntimeError, match="no running event loop"):
        request.get_data()


def test_a_request_whose_loop_has_closed_cannot_bridge() -> None:
    async def build() -> ASGIRequest:
        return make(chunks(b"ab"))[0]

    request = asyncio.run(build())
    with pytest.raises(RuntimeError, match="no running event loop"):
        request.get_data()


def test_a_failing_read_raises_its_own_error_on_the_thread() -> None:
    async def main() -> str:
        request, _ = make(chunks(b"{"), headers=[(b"content-type", b"application/json")])
        try:
            await in_thread(request.get_json)
        except Exception as exc:
            return type(exc).__name__
        return ""

    assert run(main()) == "BadRequest"
