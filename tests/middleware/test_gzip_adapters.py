"""GZipMiddleware under to_wsgi and to_asgi, with one view source.

Each test runs the App below through the test client twice (the
``interface`` fixture). The bodies count how often they are opened and
closed, so that every path (read to the end, HEAD, an error, a client that
leaves) can be checked to release each body exactly once.
"""

from __future__ import annotations

import gzip
import inspect
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import pytest

from sansio_http import App, GZipMiddleware, Request, Response
from sansio_http.testing import Client

LINE = b"sansio-http sends this line of text, gzipped when the client asks.\n"
# Above the size compressed in one call: sent in bounded slices.
LARGE = LINE * 16_000  # about 1 MiB
# Below it: compressed at once, with its Content-Length.
SMALL = LINE * 200
GZIP = {"accept-encoding": "gzip"}
SLICE = GZipMiddleware.slice_size


class BodyFailed(Exception):
    """What a failing body raises."""


class Counts:
    """How often the bodies of the current test were opened and closed."""

    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0
        self.sources: list[Any] = []


counts = Counts()


class ClosingChunks:
    """A sync iterator with close(), like a file or a database cursor."""

    def __init__(self, fail: bool) -> None:
        self.remaining = 20
        self.fail = fail
        counts.opened += 1

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self.remaining == 0:
            raise StopIteration
        if self.fail and self.remaining == 10:
            raise BodyFailed
        self.remaining -= 1
        return LINE * 10

    def close(self) -> None:
        counts.closed += 1


def generated(fail: bool) -> Iterator[bytes]:
    counts.opened += 1
    try:
        for index in range(20):
            if fail and index == 10:
                raise BodyFailed
            yield LINE * 10
    finally:
        counts.closed += 1


async def agenerated(fail: bool) -> AsyncIterator[bytes]:
    counts.opened += 1
    try:
        for index in range(20):
            if fail and index == 10:
                raise BodyFailed
            yield LINE * 10
    finally:
        counts.closed += 1


def make_body(kind: str, fail: bool) -> Any:
    body: Any
    if kind == "iterator":
        body = ClosingChunks(fail)
    elif kind == "generator":
        body = generated(fail)
    else:
        body = agenerated(fail)
    counts.sources.append(body)
    return body


app = App("gzip")
app.add_middleware(GZipMiddleware())


@app.get("/large")
def large(request: Request) -> Response:
    return Response(LARGE, content_type="text/plain")


@app.get("/small")
def small(request: Request) -> Response:
    return Response(SMALL, content_type="text/plain")


@app.get("/typed")
def typed(request: Request) -> Response:
    # The body is text whatever the type claims: only the type decides.
    return Response(SMALL, content_type=request.args["type"])


@app.get("/stream/<kind>")
def stream(request: Request, kind: str) -> Response:
    return Response(make_body(kind, "fail" in request.args), content_type="text/plain")


@app.get("/tagged")
def tagged(request: Request) -> Response:
    response = Response(SMALL, content_type="text/plain", headers={"ETag": '"v1"'})
    return response.make_conditional(request)


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Literal["wsgi", "asgi"]:
    return "wsgi" if request.param == "wsgi" else "asgi"


@pytest.fixture
def client(interface: Literal["wsgi", "asgi"]) -> Client:
    global counts
    counts = Counts()
    return Client(app, interface=interface)


def inflate_each(chunks: list[bytes]) -> list[bytes]:
    inflater = zlib.decompressobj(31)
    return [inflater.decompress(chunk) for chunk in chunks]


# -- bounded work per step ---------------------------------------------------------------


def test_a_large_body_is_sent_in_bounded_slices(client: Client) -> None:
    with client.stream("GET", "/large", headers=GZIP) as response:
        chunks = list(response.iter_raw())
    assert response.headers["content-encoding"] == "gzip"
    assert "content-length" not in response.headers
    inflated = inflate_each(chunks)
    # Each chunk the adapter sent holds one slice of input: no step did more.
    assert len(chunks) >= len(LARGE) // SLICE
    assert max(len(piece) for piece in inflated) <= SLICE
    assert b"".join(inflated) == LARGE


def test_a_small_body_is_compressed_at_once_with_its_length(client: Client) -> None:
    with client.stream("GET", "/small", headers=GZIP) as response:
        chunks = list(response.iter_raw())
    assert len(chunks) == 1
    assert response.headers["content-length"] == str(len(chunks[0]))
    assert gzip.decompress(chunks[0]) == SMALL


# -- media types that are compressed already ---------------------------------------------


@pytest.mark.parametrize(
    "media_type",
    ["image/png", "image/jpeg", "video/mp4", "audio/ogg", "application/zip", "font/woff2"],
)
def test_compressed_media_types_are_sent_as_they_are(client: Client, media_type: str) -> None:
    response = client.get("/typed", params={"type": media_type}, headers=GZIP)
    assert response.content == SMALL
    assert "content-encoding" not in response.headers
    # No other client would get another coding: nothing varies.
    assert "vary" not in response.headers


@pytest.mark.parametrize("media_type", ["image/svg+xml", "text/html", "application/json"])
def test_text_media_types_are_compressed(client: Client, media_type: str) -> None:
    response = client.get("/typed", params={"type": media_type}, headers=GZIP)
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(response.raw_content) == SMALL


# -- every body is closed exactly once ---------------------------------------------------

KINDS = ["iterator", "generator", "async"]


def assert_released_once(started: bool) -> None:
    (source,) = counts.sources
    expected = 1 if started or isinstance(source, ClosingChunks) else 0
    assert (counts.opened, counts.closed) == (expected, expected)
    # A generator that never started has nothing to release, but is closed.
    if inspect.isgenerator(source):
        assert inspect.getgeneratorstate(source) == inspect.GEN_CLOSED
    elif inspect.isasyncgen(source):
        assert source.ag_frame is None


@pytest.mark.parametrize("kind", KINDS)
def test_a_streamed_body_read_to_the_end_is_closed_once(client: Client, kind: str) -> None:
    response = client.get(f"/stream/{kind}", headers=GZIP)
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(response.raw_content) == LINE * 200
    assert_released_once(started=True)


@pytest.mark.parametrize("kind", KINDS)
def test_a_streamed_body_answering_head_is_closed_once(client: Client, kind: str) -> None:
    response = client.head(f"/stream/{kind}", headers=GZIP)
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert response.content == b""
    assert_released_once(started=False)


@pytest.mark.parametrize("kind", KINDS)
def test_a_failing_streamed_body_is_closed_once(client: Client, kind: str) -> None:
    with pytest.raises(BodyFailed):
        client.get(f"/stream/{kind}", params={"fail": "1"}, headers=GZIP)
    assert_released_once(started=True)


@pytest.mark.parametrize("kind", KINDS)
def test_a_streamed_body_left_by_the_client_is_closed_once(client: Client, kind: str) -> None:
    with client.stream("GET", f"/stream/{kind}", headers=GZIP) as response:
        first = next(response.iter_raw())
    assert zlib.decompressobj(31).decompress(first).startswith(LINE)
    assert_released_once(started=True)


def test_a_large_body_answering_head_is_never_compressed(client: Client) -> None:
    response = client.head("/large", headers=GZIP)
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert response.content == b""


# -- Vary on the answers that stand for a 200 --------------------------------------------


def test_a_304_carries_the_vary_of_its_200(client: Client) -> None:
    full = client.get("/tagged", headers=GZIP)
    assert full.headers["vary"] == "Accept-Encoding"
    etag = full.headers["etag"]
    response = client.get("/tagged", headers={**GZIP, "if-none-match": etag})
    assert response.status_code == 304
    assert response.headers["vary"] == "Accept-Encoding"
    # A client that takes no gzip gets the same Vary on its 304.
    plain = client.get("/tagged", headers={"if-none-match": '"v1"'})
    assert plain.status_code == 304
    assert plain.headers["vary"] == "Accept-Encoding"


def test_a_206_carries_the_vary_of_its_200(client: Client) -> None:
    response = client.get("/tagged", headers={**GZIP, "range": "bytes=0-9"})
    assert response.status_code == 206
    assert "content-encoding" not in response.headers
    assert response.content == SMALL[:10]
    assert response.headers["vary"] == "Accept-Encoding"
