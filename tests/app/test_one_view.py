"""One view source, every adapter: the body API under WSGI and ASGI alike.

Each view of :mod:`tests.app.body_views` exists as a ``def`` view using the
blocking spelling and an ``async def`` view using the awaited one. Both are
mounted with ``to_wsgi`` and ``to_asgi`` and driven by the test client and by
real gunicorn, uvicorn and development-server processes on 127.0.0.1; every
case expects the same response from every view kind and every transport.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest

from sansio_http.testing import Client

from . import servers
from .body_views import MAX_BODY, app

MODULE = "tests.app.body_views"

Post = Callable[..., tuple[int, Any]]


def _decode(status: int, content: bytes) -> tuple[int, Any]:
    try:
        return status, json.loads(content)
    except ValueError:
        return status, None


def _client_post(interface: Literal["wsgi", "asgi"]) -> Post:
    client = Client(app, interface=interface)

    def post(path: str, **options: Any) -> tuple[int, Any]:
        response = client.post(path, **options)
        return _decode(response.status_code, response.content)

    return post


TRANSPORTS = servers.transports("gunicorn", "uvicorn", "devserver-wsgi", "devserver-asgi")


@pytest.fixture(scope="module", params=TRANSPORTS)
def post(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Post]:
    name: str = request.param
    if name.startswith("client-"):
        yield _client_post("wsgi" if name == "client-wsgi" else "asgi")
        return
    with servers.http_client(name, MODULE, tmp_path_factory) as http:

        def post_http(path: str, **options: Any) -> tuple[int, Any]:
            response = http.post(path, **options)
            return _decode(response.status_code, response.content)

        yield post_http


def digest(data: bytes) -> dict[str, Any]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


KINDS = ["sync", "async"]
RAW = bytes(range(256)) * 40
# A body refused before it is read is left unread; gunicorn drains 64 KiB of
# it at most and then drops the connection (while its answer said
# keep-alive), so the over-limit cases ask for the connection to close.
CLOSE = {"connection": "close"}


@pytest.mark.parametrize("kind", KINDS)
def test_raw_body(post: Post, kind: str) -> None:
    assert post(f"/{kind}/raw", content=RAW) == (200, digest(RAW))


@pytest.mark.parametrize("kind", KINDS)
def test_empty_body(post: Post, kind: str) -> None:
    assert post(f"/{kind}/raw", content=b"") == (200, digest(b""))


@pytest.mark.parametrize("kind", KINDS)
def test_streamed_body(post: Post, kind: str) -> None:
    status, result = post(f"/{kind}/stream", content=RAW)
    assert (status, result) == (200, {"size": len(RAW), "empty_chunks": 0, "read": len(RAW)})


@pytest.mark.parametrize("kind", KINDS)
def test_chunked_body_is_streamed(post: Post, kind: str) -> None:
    def chunks() -> Iterator[bytes]:
        for start in range(0, len(RAW), 1000):
            yield RAW[start : start + 1000]

    status, result = post(f"/{kind}/stream", content=chunks())
    assert (status, result) == (200, {"size": len(RAW), "empty_chunks": 0, "read": len(RAW)})


@pytest.mark.parametrize("kind", KINDS)
def test_urlencoded_form(post: Post, kind: str) -> None:
    status, result = post(f"/{kind}/form", data={"a": ["1", "2"], "b": "café"})
    assert (status, result) == (200, {"form": {"a": ["1", "2"], "b": ["café"]}, "files": {}})


@pytest.mark.parametrize("kind", KINDS)
def test_multipart_with_a_file(post: Post, kind: str) -> None:
    status, result = post(
        f"/{kind}/form",
        data={"title": "notes"},
        files={"upload": ("notes.txt", RAW, "text/plain")},
    )
    assert status == 200
    assert result == {
        "form": {"title": ["notes"]},
        "files": {"upload": {"filename": "notes.txt", **digest(RAW)}},
    }


@pytest.mark.parametrize("kind", KINDS)
def test_json(post: Post, kind: str) -> None:
    value = {"n": [1, 2.5, None], "s": "café", "nested": {"t": True}}
    assert post(f"/{kind}/json", json=value) == (200, {"json": value})


@pytest.mark.parametrize("kind", KINDS)
def test_bad_json_is_a_400(post: Post, kind: str) -> None:
    status, _ = post(
        f"/{kind}/json", content=b'{"open": ', headers={"content-type": "application/json"}
    )
    assert status == 400


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", ["raw", "stream", "json"])
def test_a_body_over_the_limit_is_a_413(post: Post, kind: str, case: str) -> None:
    # Declared as JSON, so that the json case reaches the limit, not the 415.
    headers = {**CLOSE, "content-type": "application/json"}
    status, _ = post(f"/{kind}/{case}", content=b"x" * (MAX_BODY + 1), headers=headers)
    assert status == 413


@pytest.mark.parametrize("kind", KINDS)
def test_a_chunked_body_over_the_limit_is_a_413(post: Post, kind: str) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(MAX_BODY // 4096 + 2):
            yield b"y" * 4096

    status, _ = post(f"/{kind}/raw", content=chunks(), headers=CLOSE)
    assert status == 413


@pytest.mark.parametrize("kind", KINDS)
def test_a_form_over_the_limit_is_a_413(post: Post, kind: str) -> None:
    status, _ = post(
        f"/{kind}/form",
        data={"t": "x"},
        files={"f": ("big.bin", b"z" * MAX_BODY, "x/y")},
        headers=CLOSE,
    )
    assert status == 413


@pytest.mark.parametrize("kind", KINDS)
def test_facts_and_state(post: Post, kind: str) -> None:
    status, result = post(f"/{kind}/facts?q=1", content=b"")
    assert status == 200
    assert result["disconnected"] is False
    assert result["version"] == "1.1"
    assert result["raw_path"] == f"/{kind}/facts"
    assert result["state"] == {"seen": True}


def test_a_blocking_read_in_a_coroutine_names_the_awaited_spelling(post: Post) -> None:
    status, result = post("/async/misuse", content=b"abc")
    assert status == 200
    assert "await request.body()" in result["error"]
    assert "request.get_data() blocks" in result["error"]
