"""What a def view pays to read its body under ASGI: the blocking-read bridge.

Four rows of the App under ``to_asgi`` answer a POST of 1 KiB of JSON: the
same view as ``async def`` (no thread) and as ``def`` (in the App's thread
pool), each either answering at once or reading the JSON. So:

- the thread hop is ``def, no read`` minus ``async, no read``;
- the bridge is what reading costs a def view beyond what it costs an async
  view: ``(def, read) - (def, no read) - ((async, read) - (async, no read))``.

The target is a bridge that costs no more than the hop plus 20% (one
round trip to the event loop and back, like the hop itself).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http import App, BodyRequest

from ._drive import BATCH, drive_asgi, mounted_asgi
from .test_bench_asgi import browser_scope

PATH = "/catalogue/books/"
DOCUMENT = {"items": [{"id": n, "title": f"Book {n:04d}", "tags": ["a", "b"]} for n in range(24)]}
BODY = json.dumps(DOCUMENT).encode()
SCOPE = browser_scope(
    "POST",
    [
        (b"host", b"shop.example.com"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(BODY)).encode()),
    ],
)


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


def bridge_app(view: str, read: bool) -> App:
    """An App whose one view answers the item count, reading the JSON or not."""
    app = App("bridge")
    if view == "def":

        @app.post(PATH)
        def count(request: BodyRequest) -> str:
            return str(len(request.get_json()["items"]) if read else 24)

    else:

        @app.post(PATH)
        async def count_async(request: BodyRequest) -> str:
            return str(len((await request.json())["items"]) if read else 24)

    return app


@pytest.mark.benchmark(group="asgi-body-bridge")
@pytest.mark.parametrize("read", [False, True], ids=["no-read", "read-json"])
@pytest.mark.parametrize("view", ["async", "def"])
def test_app_reads_json_under_asgi(
    benchmark: BenchmarkFixture, loop: asyncio.AbstractEventLoop, view: str, read: bool
) -> None:
    assert len(BODY) > 1024
    extra: dict[str, Any] = {
        "implementation": f"sansio-http App, {view} view, {'reads' if read else 'no'} JSON",
        "requests_per_round": BATCH,
    }
    benchmark.extra_info.update(extra)
    with mounted_asgi(bridge_app(view, read)) as asgi:
        assert benchmark(drive_asgi(loop, asgi, SCOPE, BODY)) == (200, b"24")
