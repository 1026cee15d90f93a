"""Header lookups and urlencoded decoding next to Starlette, Werkzeug, urllib and Falcon."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

import falcon.uri
import starlette.datastructures
import werkzeug.datastructures
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.conftest import BROWSER_GET_RAW
from sansio_http import Headers, parse_urlencoded

LANGUAGE = "en-GB,en;q=0.5"

# The same request as a WSGI server presents it (PEP 3333 §environ Variables).
BROWSER_GET_ENVIRON = {
    "REQUEST_METHOD": "GET",
    "PATH_INFO": "/",
    **{
        "HTTP_" + name.decode("latin-1").upper().replace("-", "_"): value.decode("latin-1")
        for name, value in BROWSER_GET_RAW
    },
}

# A large but ordinary form: 1,000 fields, about a third of them needing "+" or %-decoding.
_VALUES = [
    "42",
    "on",
    "Ada Lovelace",
    "ada@example.com",
    "café crème",
    "2024-06-01",
    "a longer note, with punctuation & symbols!",
    "x",
    "",
]
FORM_PAIRS = [(f"field{i}", _VALUES[i % len(_VALUES)]) for i in range(1000)]
FORM_BODY = urlencode(FORM_PAIRS).encode("ascii")


def test_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return Headers(BROWSER_GET_RAW).get("accept-language")

    assert benchmark(run) == LANGUAGE


def test_headers_get_from_text_pairs(benchmark: BenchmarkFixture) -> None:
    pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in BROWSER_GET_RAW]

    def run() -> str | None:
        return Headers(pairs).get("accept-language")

    assert benchmark(run) == LANGUAGE


def test_starlette_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return starlette.datastructures.Headers(raw=BROWSER_GET_RAW).get("accept-language")

    assert benchmark(run) == LANGUAGE


def test_werkzeug_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in BROWSER_GET_RAW]
        return werkzeug.datastructures.Headers(pairs).get("accept-language")

    assert benchmark(run) == LANGUAGE


def test_werkzeug_environ_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return werkzeug.datastructures.EnvironHeaders(BROWSER_GET_ENVIRON).get("accept-language")

    assert benchmark(run) == LANGUAGE


# What a request typically reads: a few present fields and a few absent ones.
LOOKUPS = ("host", "content-type", "cookie", "accept", "content-length")
LOOKED_UP = [
    "shop.example.com",
    None,
    BROWSER_GET_RAW[7][1].decode(),
    BROWSER_GET_RAW[2][1].decode(),
    None,
]


def _fresh_raw() -> tuple[tuple[list[tuple[bytes, bytes]]], dict[str, object]]:
    # New bytes objects, as a server makes for every request: their hashes are not cached yet,
    # so an index built from them costs what it costs in production.
    raw = [(bytes(bytearray(name)), bytes(bytearray(value))) for name, value in BROWSER_GET_RAW]
    return (raw,), {}


def _read_fields(headers: Headers | starlette.datastructures.Headers) -> list[str | None]:
    return [headers.get(name) for name in LOOKUPS]


def test_headers_five_lookups(benchmark: BenchmarkFixture) -> None:
    def run(raw: list[tuple[bytes, bytes]]) -> list[str | None]:
        return _read_fields(Headers(raw))

    result = benchmark.pedantic(  # type: ignore[no-untyped-call]
        run, setup=_fresh_raw, rounds=20_000, warmup_rounds=100
    )
    assert result == LOOKED_UP


def test_starlette_headers_five_lookups(benchmark: BenchmarkFixture) -> None:
    def run(raw: list[tuple[bytes, bytes]]) -> list[str | None]:
        return _read_fields(starlette.datastructures.Headers(raw=raw))

    result = benchmark.pedantic(  # type: ignore[no-untyped-call]
        run, setup=_fresh_raw, rounds=20_000, warmup_rounds=100
    )
    assert result == LOOKED_UP


def test_parse_urlencoded(benchmark: BenchmarkFixture) -> None:
    assert benchmark(parse_urlencoded, FORM_BODY) == FORM_PAIRS


def test_urllib_parse_qsl(benchmark: BenchmarkFixture) -> None:
    def run() -> list[tuple[str, str]]:
        return parse_qsl(FORM_BODY.decode("utf-8"), keep_blank_values=True)

    assert benchmark(run) == FORM_PAIRS


def test_falcon_parse_query_string(benchmark: BenchmarkFixture) -> None:
    def run() -> dict[str, str | list[str]]:
        return falcon.uri.parse_query_string(FORM_BODY.decode("utf-8"), keep_blank=True)

    assert benchmark(run) == dict(FORM_PAIRS)
