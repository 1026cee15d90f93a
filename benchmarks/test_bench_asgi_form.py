"""A browser's multipart form under ASGI: six fields and two small files.

The body is the one Chromium sent for the fixture form of the form tests
(4 KiB, one ``http.request`` message as uvicorn delivers it). Both sides
read every field and file and release the uploads, as an application
handling the form would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import starlette.datastructures
import starlette.requests
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http.asgi import ASGIRequest

from .test_bench_asgi import browser_scope

_FIXTURES = Path(__file__).parent.parent / "tests" / "bodies" / "fixtures" / "forms"
_BROWSER = json.loads((_FIXTURES / "manifest.json").read_text())["chromium-multipart"]
BODY = (_FIXTURES / "chromium-multipart.body").read_bytes()
SCOPE = browser_scope(
    "POST",
    [
        (b"host", b"shop.example.com"),
        (b"content-type", _BROWSER["content_type"].encode()),
        (b"content-length", str(len(BODY)).encode()),
    ],
)
EXPECTED = (
    [(name, value) for name, value in _BROWSER["fields"]],
    [(name, filename, (_FIXTURES / "uploads" / path).read_bytes())
     for name, filename, _, path in _BROWSER["files"]],
)  # fmt: skip
Result = tuple[list[tuple[str, str]], list[tuple[str, str | None, bytes]]]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


def receive() -> Callable[[], Awaitable[dict[str, Any]]]:
    async def one() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    return one


async def ours() -> Result:
    request = ASGIRequest(SCOPE, receive())
    try:
        form = await request.form()
        files = await request.files()
        return (
            form.items(multi=True),
            [(n, f.filename, f.read()) for n, f in files.items(multi=True)],
        )
    finally:
        await request.close()


async def starlette_form() -> Result:
    request = starlette.requests.Request(SCOPE, receive())
    form = await request.form()
    try:
        fields, files = [], []
        for name, value in form.multi_items():
            if isinstance(value, starlette.datastructures.UploadFile):
                files.append((name, value.filename, await value.read()))
            else:
                fields.append((name, value))
        return fields, files
    finally:
        await form.close()


@pytest.mark.benchmark(group="asgi-browser-form")
@pytest.mark.parametrize("implementation", ["sansio-http", "starlette"])
def test_browser_form(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, implementation: str
) -> None:
    make = ours if implementation == "sansio-http" else starlette_form
    benchmark.extra_info["implementation"] = implementation
    fields, files = benchmark(lambda: loop.run_until_complete(make()))
    assert [value for _, value in fields] == [value for _, value in EXPECTED[0]]
    assert [data for _, _, data in files] == [data for _, _, data in EXPECTED[1]]
    if implementation == "sansio-http":
        # Starlette leaves Chromium's %22 (for a quote) in names as it is.
        assert (list(fields), files) == EXPECTED
