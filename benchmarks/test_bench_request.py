"""Building a Request and reading what a typical view reads, next to Werkzeug's.

One group, ``request``, on the same input for both: the captured Firefox
navigation's twelve header fields as text pairs, decoded before the timing
(Werkzeug's ``Headers`` takes text only, so decoding is no part of either
request's work). Each builds its request object and its headers from the
pairs, then reads the method, the path, one query argument, the User-Agent
and the session cookie.

A third row, ``sansio-http, raw bytes``, builds ours from the byte pairs an
ASGI server hands over, which it decodes lazily (only the fields it reads):
what it costs where no text pairs are at hand.
"""

from __future__ import annotations

from typing import Any

import pytest
import werkzeug.datastructures
import werkzeug.sansio.request
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.conftest import BROWSER_GET_RAW
from sansio_http import Request

PATH = "/catalogue/books/"
QUERY = b"page=2&sort=price"
SERVER = ("shop.example.com", 443)
EXPECTED = (
    "GET",
    PATH,
    "2",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "7f3c9a1e5b2d4c6e8f0a1b2c3d4e5f60",
)
BROWSER_GET_TEXT = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in BROWSER_GET_RAW]


def read_ours(headers: Any) -> tuple[str, str, str, str | None, str]:
    request = Request("GET", PATH, QUERY, headers, "https", "192.0.2.1", "", SERVER)
    return (
        request.method,
        request.path,
        request.args["page"],
        request.headers.get("user-agent"),
        request.cookies["sessionid"],
    )


def read_werkzeug(headers: list[tuple[str, str]]) -> tuple[str, str, str, str | None, str]:
    request = werkzeug.sansio.request.Request(
        "GET",
        "https",
        SERVER,
        "",
        PATH,
        QUERY,
        werkzeug.datastructures.Headers(headers),
        "192.0.2.1",
    )
    return (
        request.method,
        request.path,
        request.args["page"],
        request.headers.get("user-agent"),
        request.cookies["sessionid"],
    )


@pytest.mark.benchmark(group="request")
def test_request_sansio_http(benchmark: BenchmarkFixture) -> None:
    # PERF: the target is at most half of Werkzeug's time on the same input.
    benchmark.extra_info["implementation"] = "sansio-http"
    assert benchmark(read_ours, BROWSER_GET_TEXT) == EXPECTED


@pytest.mark.benchmark(group="request")
def test_request_sansio_http_from_bytes(benchmark: BenchmarkFixture) -> None:
    benchmark.extra_info["implementation"] = "sansio-http, raw bytes"
    assert benchmark(read_ours, BROWSER_GET_RAW) == EXPECTED


@pytest.mark.benchmark(group="request")
def test_request_werkzeug(benchmark: BenchmarkFixture) -> None:
    benchmark.extra_info["implementation"] = "werkzeug"
    assert benchmark(read_werkzeug, BROWSER_GET_TEXT) == EXPECTED
