"""GZipMiddleware on core values: negotiation, skips, streaming, ETags."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import FileBody, GZipMiddleware, GZipTransform, Request, Response, file_response

BIG = b"sansio-http compresses this line. " * 100


def request(accept_encoding: str | None = "gzip, deflate, br") -> Request:
    headers = [] if accept_encoding is None else [("accept-encoding", accept_encoding)]
    return Request("GET", "/", b"", headers, "https", "127.0.0.1", "")


def run(response: Response, accept_encoding: str | None = "gzip, deflate, br") -> Response:
    return GZipMiddleware().process_response(request(accept_encoding), response)


def test_a_big_body_is_gzipped_with_its_length_and_vary() -> None:
    response = run(Response(BIG, content_type="text/plain"))
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["vary"] == "Accept-Encoding"
    assert isinstance(response.body, bytes)
    assert response.headers["content-length"] == str(len(response.body))
    assert gzip.decompress(response.body) == BIG
    assert len(response.body) < len(BIG) // 10


@pytest.mark.parametrize(
    "accept",
    [None, "", "identity", "gzip;q=0", "gzip;q=0, deflate", "br", "*;q=0", "identity, gzip;q=0.5"],
)
def test_clients_that_do_not_choose_gzip_get_identity_and_vary(accept: str | None) -> None:
    response = run(Response(BIG), accept)
    assert response.body == BIG
    assert "content-encoding" not in response.headers
    assert response.headers["vary"] == "Accept-Encoding"


@pytest.mark.parametrize("accept", ["gzip", "x-gzip", "*", "GZIP;q=0.5", "br;q=1, gzip;q=0.1"])
def test_clients_that_accept_gzip_get_it(accept: str) -> None:
    assert run(Response(BIG), accept).headers["content-encoding"] == "gzip"


def test_a_small_body_is_left_alone_without_vary() -> None:
    response = run(Response(b"x" * 499))
    assert response.body == b"x" * 499
    assert "vary" not in response.headers
    assert run(Response(b"x" * 500)).headers["content-encoding"] == "gzip"


@pytest.mark.parametrize(
    "response",
    [
        pytest.param(Response(BIG, status=206, headers={"Content-Range": "bytes 0-1/9"}), id="206"),
        pytest.param(Response(BIG, headers={"Content-Range": "bytes 0-1/9"}), id="content-range"),
        pytest.param(Response(b"", status=204), id="204"),
        pytest.param(Response(b"", status=304, headers={"ETag": '"a"'}), id="304"),
        pytest.param(Response(BIG, headers={"Content-Encoding": "br"}), id="encoded"),
        pytest.param(
            Response(BIG, headers={"Cache-Control": "public, No-Transform"}), id="no-transform"
        ),
        pytest.param(Response(iter([BIG]), headers={"Content-Length": "10"}), id="short-stream"),
    ],
)
def test_responses_that_must_not_be_transformed_are_left_alone(response: Response) -> None:
    before = response.raw_headers()
    body = response.body
    after = run(response)
    assert after.body is body
    assert after.raw_headers() == before


def test_a_file_body_is_left_to_the_adapter() -> None:
    response = file_response("/nonexistent", size=len(BIG), mtime=0.0)
    assert isinstance(response.body, FileBody)
    assert run(response).body is response.body


def test_a_strong_etag_becomes_weak_and_a_weak_one_stays() -> None:
    strong = run(Response(BIG, headers={"ETag": '"v1"', "Accept-Ranges": "bytes"}))
    assert strong.headers["etag"] == 'W/"v1"'
    assert "accept-ranges" not in strong.headers
    assert run(Response(BIG, headers={"ETag": 'W/"v1"'})).headers["etag"] == 'W/"v1"'


def chunks_of(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_a_streamed_body_is_compressed_chunk_by_chunk() -> None:
    response = run(Response(chunks_of(BIG, 1000), headers={"Content-Length": str(len(BIG))}))
    assert "content-length" not in response.headers
    body = response.body
    assert isinstance(body, Iterable)
    inflater = zlib.decompressobj(31)
    received = b""
    pieces = iter(cast(Iterable[bytes], body))
    for chunk in chunks_of(BIG, 1000):
        # Each output chunk inflates to exactly its input chunk: nothing is held back.
        assert inflater.decompress(next(pieces)) == chunk
        received += chunk
    rest = b"".join(pieces)
    assert inflater.decompress(rest) == b""
    assert inflater.eof
    assert received == BIG


def test_an_async_streamed_body_stays_async() -> None:
    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks_of(BIG, 700):
            yield chunk

    response = run(Response(stream()))
    assert response.headers["content-encoding"] == "gzip"

    async def collect() -> bytes:
        return b"".join([piece async for piece in response.body])  # type: ignore[union-attr]

    assert gzip.decompress(asyncio.run(collect())) == BIG


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="negative"):
        GZipMiddleware(minimum_size=-1)
    with pytest.raises(ValueError, match="level"):
        GZipMiddleware(level=10)


@given(data=st.binary(max_size=5000), cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_gzip_round_trips_whatever_the_chunking(data: bytes, cuts: list[int]) -> None:
    edges = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    transform = GZipTransform()
    output = b"".join(transform.feed(data[a:b]) for a, b in itertools.pairwise(edges))
    assert gzip.decompress(output + transform.close()) == data


def test_a_long_accept_encoding_is_negotiated_like_a_short_one() -> None:
    long_value = ", ".join(f"x-coding-{index};q=0.1" for index in range(12))
    assert len(long_value) > 100
    assert "content-encoding" not in run(Response(BIG), long_value).headers
    assert run(Response(BIG), long_value + ", gzip").headers["content-encoding"] == "gzip"


def test_a_streamed_body_with_a_big_enough_length_is_compressed() -> None:
    response = run(Response(iter([BIG]), headers={"Content-Length": str(len(BIG))}))
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(b"".join(response.body)) == BIG  # type: ignore[arg-type]


def test_an_empty_chunk_gives_no_output() -> None:
    transform = GZipTransform()
    assert transform.feed(b"") == b""
    assert gzip.decompress(transform.feed(b"a") + transform.feed(b"") + transform.close()) == b"a"
