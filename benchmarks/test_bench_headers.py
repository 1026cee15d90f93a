"""Header lookups and urlencoded decoding next to Starlette, Werkzeug, urllib and Falcon.

Each group gives every implementation the same input, prepared before the
timing, and times building the headers and reading from them:

- ``headers-get``: the twelve fields of a browser GET as the byte pairs an
  ASGI server hands over; ours and Starlette's headers, one lookup;
- ``headers-get-text``: the same fields as text pairs (decoded before the
  timing, since Werkzeug's ``Headers`` takes text only); ours and Werkzeug's;
- ``headers-get-environ``: the same fields as a WSGI environ; the WSGI
  adapter's ``EnvironHeaders`` view and Werkzeug's ``EnvironHeaders``;
- ``headers-five-lookups``: five lookups (two of absent fields) on headers
  built from fresh bytes objects, whose hashes are not cached yet;
- ``urlencoded-1000-fields``: 1,000 fields from the same bytes, decoded by
  ``parse_urlencoded``, urllib's ``parse_qsl`` and Falcon's parser.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

import falcon.uri
import pytest
import starlette.datastructures
import werkzeug.datastructures
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.conftest import BROWSER_GET_RAW
from sansio_http import Headers, parse_urlencoded
from sansio_http.wsgi._environ import EnvironHeaders

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


BROWSER_GET_TEXT = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in BROWSER_GET_RAW]


@pytest.mark.benchmark(group="headers-get")
def test_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return Headers(BROWSER_GET_RAW).get("accept-language")

    benchmark.extra_info["implementation"] = "sansio-http"
    assert benchmark(run) == LANGUAGE


@pytest.mark.benchmark(group="headers-get")
def test_starlette_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return starlette.datastructures.Headers(raw=BROWSER_GET_RAW).get("accept-language")

    benchmark.extra_info["implementation"] = "starlette"
    assert benchmark(run) == LANGUAGE


@pytest.mark.benchmark(group="headers-get-text")
def test_headers_get_from_text_pairs(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return Headers(BROWSER_GET_TEXT).get("accept-language")

    benchmark.extra_info["implementation"] = "sansio-http"
    assert benchmark(run) == LANGUAGE


@pytest.mark.benchmark(group="headers-get-text")
def test_werkzeug_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return werkzeug.datastructures.Headers(BROWSER_GET_TEXT).get("accept-language")

    benchmark.extra_info["implementation"] = "werkzeug"
    assert benchmark(run) == LANGUAGE


@pytest.mark.benchmark(group="headers-get-environ")
def test_environ_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return EnvironHeaders(BROWSER_GET_ENVIRON).get("accept-language")

    benchmark.extra_info["implementation"] = "sansio-http"
    assert benchmark(run) == LANGUAGE


@pytest.mark.benchmark(group="headers-get-environ")
def test_werkzeug_environ_headers_get(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return werkzeug.datastructures.EnvironHeaders(BROWSER_GET_ENVIRON).get("accept-language")

    benchmark.extra_info["implementation"] = "werkzeug"
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


@pytest.mark.benchmark(group="headers-five-lookups")
def test_headers_five_lookups(benchmark: BenchmarkFixture) -> None:
    def run(raw: list[tuple[bytes, bytes]]) -> list[str | None]:
        return _read_fields(Headers(raw))

    result = benchmark.pedantic(  # type: ignore[no-untyped-call]
        run, setup=_fresh_raw, rounds=20_000, warmup_rounds=100
    )
    assert result == LOOKED_UP


@pytest.mark.benchmark(group="headers-five-lookups")
def test_starlette_headers_five_lookups(benchmark: BenchmarkFixture) -> None:
    def run(raw: list[tuple[bytes, bytes]]) -> list[str | None]:
        return _read_fields(starlette.datastructures.Headers(raw=raw))

    result = benchmark.pedantic(  # type: ignore[no-untyped-call]
        run, setup=_fresh_raw, rounds=20_000, warmup_rounds=100
    )
    assert result == LOOKED_UP


@pytest.mark.benchmark(group="urlencoded-1000-fields")
def test_parse_urlencoded(benchmark: BenchmarkFixture) -> None:
    benchmark.extra_info["implementation"] = "sansio-http"
    assert benchmark(parse_urlencoded, FORM_BODY) == FORM_PAIRS


@pytest.mark.benchmark(group="urlencoded-1000-fields")
def test_urllib_parse_qsl(benchmark: BenchmarkFixture) -> None:
    def run() -> list[tuple[str, str]]:
        return parse_qsl(FORM_BODY.decode("utf-8"), keep_blank_values=True)

    benchmark.extra_info["implementation"] = "urllib"
    assert benchmark(run) == FORM_PAIRS


@pytest.mark.benchmark(group="urlencoded-1000-fields")
def test_falcon_parse_query_string(benchmark: BenchmarkFixture) -> None:
    def run() -> dict[str, str | list[str]]:
        return falcon.uri.parse_query_string(FORM_BODY.decode("utf-8"), keep_blank=True)

    benchmark.extra_info["implementation"] = "falcon"
    assert benchmark(run) == dict(FORM_PAIRS)
