"""The Middleware base and transform_body on core values, without an adapter."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

from sansio_http import Middleware, Request, Response, transform_body


class Same:
    def feed(self, chunk: bytes) -> bytes:
        return chunk

    def close(self) -> bytes:
        return b""


def test_the_base_hooks_change_nothing() -> None:
    request = Request("GET", "/", b"", [], "http", None, "")
    response = Response(b"x")
    assert Middleware().process_request(request) is None
    assert Middleware().process_response(request, response) is response


def test_a_body_without_close_is_transformed_and_an_empty_end_adds_nothing() -> None:
    body = transform_body([b"a", b"b"], Same())
    assert isinstance(body, Iterable)
    assert list(body) == [b"a", b"b"]


class Chunks:
    """An async iterable without aclose()."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def test_an_async_body_without_aclose_is_transformed() -> None:
    body = transform_body(Chunks([b"a", b"", b"b"]), Same())

    async def collect() -> list[bytes]:
        return [chunk async for chunk in body]  # type: ignore[union-attr,misc]

    assert asyncio.run(collect()) == [b"a", b"b"]
