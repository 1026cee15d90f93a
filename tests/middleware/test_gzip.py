"""GZipMiddleware on core values: negotiation, skips, streaming, ETags."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterable, Iterator
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import FileBody, GZipMiddleware, GZipTransform, Request, Response, file_response
from sansio_http.app._middleware import add_checked_fields
from sansio_http.middleware import _gzip as gzip_module

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
        # A part of a representation too small to compress: its 200 has no Vary.
        pytest.param(
            Response(BIG, status=206, headers={"Content-Range": "bytes 0-1/9"}), id="206-small"
        ),
        pytest.param(Response(BIG, headers={"Content-Range": "bytes 0-1/9"}), id="range-small"),
        pytest.param(Response(b"", status=204), id="204"),
        pytest.param(Response(b"", status=100), id="100"),
        pytest.param(
            Response(b"", status=304, headers={"Cache-Control": "no-transform"}),
            id="304-no-transform",
        ),
        pytest.param(
            Response(b"", status=304, headers={"Content-Type": "image/png"}), id="304-png"
        ),
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
        return b"".join([piece async for piece in response.body])  # type: ignore[union-attr,misc]

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


# -- large bytes bodies: bounded slices ------------------------------------------------

LARGE = b"".join(
    b"line %d of a large text body that gzip shrinks well\n" % n for n in range(20_000)
)


def test_a_large_bytes_body_becomes_a_stream_of_bounded_slices() -> None:
    assert len(LARGE) > GZipMiddleware.max_inline_size
    response = run(Response(LARGE, content_type="text/plain", headers={"ETag": '"v"'}))
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["etag"] == 'W/"v"'
    assert "content-length" not in response.headers
    body = response.body
    assert not isinstance(body, bytes)
    pieces = list(cast(Iterable[bytes], body))
    inflater = zlib.decompressobj(31)
    slices = list(chunks_of(LARGE, GZipMiddleware.slice_size))
    # One piece per slice of input, each inflating to exactly that slice, then
    # the gzip trailer: no step compressed more than one slice.
    assert len(pieces) == len(slices) + 1
    for piece, expected in zip(pieces, slices, strict=False):
        assert inflater.decompress(piece) == expected
    assert inflater.decompress(pieces[-1]) == b""
    assert inflater.eof


def test_the_inline_limit_keeps_its_length() -> None:
    limit = GZipMiddleware.max_inline_size
    inline = run(Response(LARGE[:limit]))
    assert isinstance(inline.body, bytes)
    assert inline.headers["content-length"] == str(len(inline.body))
    assert gzip.decompress(inline.body) == LARGE[:limit]
    streamed = run(Response(LARGE[: limit + 1]))
    assert not isinstance(streamed.body, bytes)
    assert gzip.decompress(b"".join(cast(Iterable[bytes], streamed.body))) == LARGE[: limit + 1]


def test_a_large_body_left_unread_costs_no_compression(monkeypatch: pytest.MonkeyPatch) -> None:
    fed: list[bytes] = []

    class Recording(GZipTransform):
        def feed(self, chunk: bytes) -> bytes:
            fed.append(chunk)
            return super().feed(chunk)

    monkeypatch.setattr(gzip_module, "GZipTransform", Recording)
    body = cast(Generator[bytes, None, None], run(Response(LARGE)).body)
    body.close()  # what an adapter does in answer to HEAD
    assert fed == []
    body = cast(Generator[bytes, None, None], run(Response(LARGE)).body)
    next(body)
    assert fed == [LARGE[: GZipMiddleware.slice_size]]


# -- streamed bodies are closed exactly once -------------------------------------------


class ClosingSource:
    def __init__(self) -> None:
        self.closed = 0
        self.chunks = iter([BIG, BIG])

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks

    def close(self) -> None:
        self.closed += 1


class AsyncClosingSource:
    def __init__(self) -> None:
        self.closed = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield BIG

    async def aclose(self) -> None:
        self.closed += 1


def test_an_unread_stream_closes_its_source_once() -> None:
    source = ClosingSource()
    body = cast(Iterator[bytes], run(Response(source)).body)
    body.close()  # type: ignore[attr-defined]
    body.close()  # type: ignore[attr-defined]
    assert source.closed == 1
    assert list(body) == []


def test_a_stream_read_to_the_end_closes_its_source_once() -> None:
    source = ClosingSource()
    body = cast(Iterator[bytes], run(Response(source)).body)
    assert gzip.decompress(b"".join(body)) == BIG * 2
    body.close()  # type: ignore[attr-defined]
    assert source.closed == 1


def test_an_exception_thrown_into_an_unread_stream_closes_its_source() -> None:
    source = ClosingSource()
    body = cast(Generator[bytes, None, None], run(Response(source)).body)
    with pytest.raises(KeyError):
        body.throw(KeyError("gone"))
    assert source.closed == 1
    with pytest.raises(StopIteration):
        body.send(None)


def test_an_unread_async_stream_closes_its_source_once() -> None:
    source = AsyncClosingSource()
    body = cast(AsyncGenerator[bytes, None], run(Response(source)).body)

    async def close_twice() -> None:
        await body.aclose()
        await body.aclose()

    asyncio.run(close_twice())
    assert source.closed == 1


def test_an_exception_thrown_into_an_unread_async_stream_closes_its_source() -> None:
    source = AsyncClosingSource()
    body = cast(AsyncGenerator[bytes, None], run(Response(source)).body)

    async def throw_then_resume() -> None:
        with pytest.raises(KeyError):
            await body.athrow(KeyError("gone"))
        with pytest.raises(StopAsyncIteration):
            await body.asend(None)

    asyncio.run(throw_then_resume())
    assert source.closed == 1


def test_a_started_async_stream_closes_its_source_once() -> None:
    source = AsyncClosingSource()
    body = cast(AsyncGenerator[bytes, None], run(Response(source)).body)

    async def read_then_close() -> bytes:
        first = await body.__anext__()
        await body.aclose()
        return first

    assert zlib.decompressobj(31).decompress(asyncio.run(read_then_close())) == BIG
    assert source.closed == 1


# -- media types compressed already ----------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "image/png",
        "IMAGE/JPEG",
        "image/webp",
        "video/mp4",
        "audio/mpeg",
        "application/zip",
        "application/gzip",
        "application/x-7z-compressed",
        "application/vnd.rar",
        "application/x-bzip2",
        "application/x-xz",
        "application/zstd",
        "font/woff2",
        "application/pdf",
    ],
)
def test_compressed_media_types_are_left_alone_without_vary(content_type: str) -> None:
    for response in (
        Response(BIG, content_type=content_type),
        Response(BIG, headers={"Content-Type": content_type, "ETag": '"e"'}),
        Response(iter([BIG]), headers={"Content-Type": content_type}),
    ):
        body = response.body
        after = run(response)
        assert after.body is body
        assert "content-encoding" not in after.headers
        assert "vary" not in after.headers


@pytest.mark.parametrize(
    "content_type",
    ["image/svg+xml", "image/svg+xml; charset=utf-8", "text/html", "application/json", None],
)
def test_text_media_types_are_compressed(content_type: str | None) -> None:
    response = run(
        Response(BIG, headers={} if content_type is None else {"Content-Type": content_type})
    )
    assert response.headers["content-encoding"] == "gzip"
    response = run(Response(BIG, content_type=content_type))
    assert response.headers["content-encoding"] == "gzip"


def test_the_excluded_types_can_be_replaced() -> None:
    middleware = GZipMiddleware(
        exclude_types=(GZipMiddleware.DEFAULT_EXCLUDE_TYPES - {"application/pdf"}) | {"Text/CSV"}
    )
    pdf = middleware.process_response(request(), Response(BIG, content_type="application/pdf"))
    assert pdf.headers["content-encoding"] == "gzip"
    csv = middleware.process_response(request(), Response(BIG, content_type="text/csv"))
    assert "content-encoding" not in csv.headers
    everything = GZipMiddleware(exclude_types=[])
    png = everything.process_response(request(), Response(BIG, content_type="image/png"))
    assert png.headers["content-encoding"] == "gzip"
    assert everything.exclude_types == frozenset()


def test_a_wildcard_spares_text_suffixes_but_not_an_exact_type() -> None:
    middleware = GZipMiddleware(exclude_types=["application/*", "image/svg+xml"])
    for content_type, compressed in [
        ("application/octet-stream", False),
        ("application/ld+json", True),
        ("application/atom+xml", True),
        ("image/svg+xml", False),
        ("image/png", True),
    ]:
        response = middleware.process_response(request(), Response(BIG, content_type=content_type))
        assert ("content-encoding" in response.headers) is compressed, content_type


@pytest.mark.parametrize("value", ["image", "*/*", "/png", "image/", "text/html; q=1"])
def test_a_malformed_excluded_type_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="'image/png' or 'image/\\*'"):
        GZipMiddleware(exclude_types=[value])


def test_a_single_string_of_excluded_types_is_refused() -> None:
    with pytest.raises(TypeError, match="wrap a single one"):
        GZipMiddleware(exclude_types="image/png")


def test_the_decisions_kept_per_type_are_bounded() -> None:
    middleware = GZipMiddleware()
    for index in range(300):
        middleware.process_response(request(), Response(BIG, content_type=f"text/x-{index}"))
    assert len(middleware._excluded) == 256
    answer = middleware.process_response(request(), Response(BIG, content_type="text/x-299"))
    assert answer.headers["content-encoding"] == "gzip"


# -- Vary on the answers that stand for a 200 ------------------------------------------


@pytest.mark.parametrize("accept", ["gzip", None])
def test_a_304_gets_the_vary_of_its_200(accept: str | None) -> None:
    response = run(Response(b"", status=304, headers={"ETag": '"a"'}), accept)
    assert response.status == 304
    assert response.body == b""
    assert response.headers["vary"] == "Accept-Encoding"
    assert "content-encoding" not in response.headers


def test_a_304_keeps_a_vary_that_covers_it_already() -> None:
    response = run(Response(b"", status=304, headers={"Vary": "Origin, accept-encoding"}))
    assert response.headers.getlist("vary") == ["Origin, accept-encoding"]


@pytest.mark.parametrize("status", [200, 206])
def test_a_part_of_a_large_representation_gets_vary_uncompressed(status: int) -> None:
    headers = {"Content-Range": f"bytes 0-{len(BIG) - 1}/{len(BIG) * 4}"}
    response = run(Response(BIG, status=status, headers=headers))
    assert response.body == BIG
    assert "content-encoding" not in response.headers
    assert response.headers["vary"] == "Accept-Encoding"


def test_a_part_of_an_unknown_length_gets_vary() -> None:
    response = run(Response(BIG[:10], status=206, headers={"Content-Range": "bytes 0-9/*"}))
    assert response.headers["vary"] == "Accept-Encoding"


def test_a_type_set_by_an_earlier_middleware_is_found() -> None:
    response = Response(BIG)
    # An untouched response with its content type after its length.
    add_checked_fields(response, [(b"content-type", b"image/png")])
    after = run(response)
    assert after.body == BIG
    assert "content-encoding" not in after.headers


def test_unread_sources_without_close_are_left_as_they_are() -> None:
    body = cast(Generator[bytes, None, None], run(Response([BIG])).body)
    body.close()
    assert list(body) == []

    class NoClose:
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield BIG

    abody = cast(AsyncGenerator[bytes, None], run(Response(NoClose())).body)
    asyncio.run(abody.aclose())
