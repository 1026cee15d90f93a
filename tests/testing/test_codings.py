"""The client undoes a response's Content-Encoding, as httpx and requests do.

One App serves every test under WSGI and under ASGI (the ``interface``
fixture): GZipMiddleware for what it compresses itself, and a view that
sends a body already encoded, cut into chunks as the test asks.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator

import pytest

from sansio_http import App, GZipMiddleware, Request, Response
from sansio_http.testing import Client, DecodingError

TEXT = "sansio-http sends this line, gzipped when the client asks: é.\n" * 2000
PLAIN = TEXT.encode()


def deflate(data: bytes, wbits: int) -> bytes:
    compressor = zlib.compressobj(wbits=wbits)
    return compressor.compress(data) + compressor.flush()


# The body of /encoded/<name>: its Content-Encoding and its bytes.
ENCODED: dict[str, tuple[str, bytes]] = {
    "gzip": ("gzip", gzip.compress(PLAIN)),
    "x-gzip": ("x-gzip", gzip.compress(PLAIN)),
    "upper": ("GZIP", gzip.compress(PLAIN)),
    "members": ("gzip", gzip.compress(PLAIN[:1000]) + gzip.compress(PLAIN[1000:])),
    "deflate": ("deflate", deflate(PLAIN, zlib.MAX_WBITS)),
    "raw-deflate": ("deflate", deflate(PLAIN, -zlib.MAX_WBITS)),
    "twice": ("gzip, gzip", gzip.compress(gzip.compress(PLAIN))),
    "deflate-then-gzip": ("deflate,gzip", gzip.compress(deflate(PLAIN, zlib.MAX_WBITS))),
    "identity": ("identity, gzip", gzip.compress(PLAIN)),
    "br": ("br", b"\x1b\x03not really brotli"),
    "br-then-gzip": ("br, gzip", gzip.compress(b"brotli bytes")),
    "gzip-then-br": ("gzip, br", b"brotli bytes"),
    "corrupt": ("gzip", b"\x1f\x8b\x08\x00 this is not gzip"),
    "truncated": ("gzip", gzip.compress(PLAIN)[:-20]),
    "corrupt-deflate": ("deflate", b"x\x9c this is not deflate"),
    "trailing-deflate": ("deflate", deflate(PLAIN, zlib.MAX_WBITS) + b"more"),
    "json": ("gzip", gzip.compress(json.dumps({"text": TEXT}).encode())),
    "empty": ("gzip", b""),
}


def chunked(data: bytes, how: str) -> Iterator[bytes]:
    if how == "whole":
        yield data
    elif how == "bytes":
        yield from (data[i : i + 1] for i in range(len(data)))
    else:
        yield b""
        yield data
        yield b""


app = App("codings")
app.add_middleware(GZipMiddleware())


@app.get("/text")
def text(request: Request) -> Response:
    return Response(PLAIN, content_type="text/plain; charset=utf-8")


@app.get("/encoded/<name>")
def encoded(request: Request, name: str) -> Response:
    coding, body = ENCODED[name]
    return Response(
        chunked(body, request.args.get("chunks", "whole")),
        content_type="text/plain; charset=utf-8",
        headers={"Content-Encoding": coding, "Content-Length": str(len(body))},
    )


@pytest.fixture
def client(interface: str) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi")


def test_gzip_middleware_answer_is_read_as_text(client: Client) -> None:
    response = client.get("/text", headers={"Accept-Encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert response.text == TEXT
    assert response.content == PLAIN
    assert response.raw_content.startswith(b"\x1f\x8b")
    assert gzip.decompress(response.raw_content) == PLAIN
    assert response.headers.get("content-length") in (None, str(len(response.raw_content)))


def test_the_client_asks_for_no_coding_by_default(client: Client) -> None:
    # As before: no Accept-Encoding, so GZipMiddleware answers plain; a test
    # of compression asks for it, as a browser would.
    assert "accept-encoding" not in client.headers
    response = client.get("/text")
    assert "content-encoding" not in response.headers
    assert response.raw_content == response.content == PLAIN


@pytest.mark.parametrize("how", ["whole", "bytes", "empty-chunks"])
@pytest.mark.parametrize(
    "name",
    [
        "gzip",
        "x-gzip",
        "upper",
        "members",
        "deflate",
        "raw-deflate",
        "twice",
        "deflate-then-gzip",
        "identity",
    ],
)
def test_known_codings_are_undone(client: Client, name: str, how: str) -> None:
    coding, body = ENCODED[name]
    response = client.get(f"/encoded/{name}", params={"chunks": how})
    assert response.content == PLAIN
    assert response.text == TEXT
    assert response.raw_content == body
    # The fields stay as the application sent them.
    assert response.headers["content-encoding"] == coding
    assert response.headers["content-length"] == str(len(body))


@pytest.mark.parametrize("how", ["whole", "bytes"])
def test_streamed_chunks_are_decoded_as_they_come(client: Client, how: str) -> None:
    with client.stream("GET", "/encoded/gzip", params={"chunks": how}) as response:
        chunks = response.iter_bytes()
        first = next(chunks)
        assert PLAIN.startswith(first)
        assert first + b"".join(chunks) == PLAIN
    with client.stream("GET", "/encoded/deflate") as response:
        assert "".join(response.iter_text()) == TEXT
    with client.stream("GET", "/encoded/gzip", params={"chunks": how}) as response:
        assert b"".join(response.iter_raw()) == ENCODED["gzip"][1]
        assert response.content == PLAIN
        assert list(response.iter_bytes()) == [PLAIN]


def test_json_is_decoded(client: Client) -> None:
    assert client.get("/encoded/json").json() == {"text": TEXT}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("br", b"\x1b\x03not really brotli"),
        ("br-then-gzip", b"brotli bytes"),
        ("gzip-then-br", b"brotli bytes"),
    ],
)
def test_an_unknown_coding_is_left_as_sent(client: Client, name: str, expected: bytes) -> None:
    # Decoding stops at the first coding it does not know, from the last.
    response = client.get(f"/encoded/{name}")
    assert response.content == expected
    assert response.headers["content-encoding"] == ENCODED[name][0]


def test_an_empty_body_needs_no_decoding(client: Client) -> None:
    response = client.get("/encoded/empty")
    assert response.content == response.raw_content == b""
    assert client.head("/text", headers={"Accept-Encoding": "gzip"}).content == b""


@pytest.mark.parametrize(
    ("name", "coding"),
    [
        ("corrupt", "gzip"),
        ("truncated", "gzip"),
        ("corrupt-deflate", "deflate"),
        ("trailing-deflate", "deflate"),
    ],
)
@pytest.mark.parametrize("how", ["whole", "bytes"])
def test_a_body_that_does_not_decode_fails_when_read(
    client: Client, name: str, coding: str, how: str
) -> None:
    response = client.get(f"/encoded/{name}", params={"chunks": how})  # no error yet
    assert response.status_code == 200
    assert response.raw_content == ENCODED[name][1]
    for read in (lambda: response.content, lambda: response.text, response.json):
        with pytest.raises(DecodingError, match=f"'{coding}'") as caught:
            read()
        assert caught.value.coding == coding
    with (
        client.stream("GET", f"/encoded/{name}", params={"chunks": how}) as streamed,
        pytest.raises(DecodingError),
    ):
        b"".join(streamed.iter_bytes())
