"""Header parsing next to werkzeug.http: Accept negotiation and Cookie parsing."""

from __future__ import annotations

import werkzeug.datastructures
import werkzeug.http
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.conftest import BROWSER_GET_RAW
from sansio_http.http import MIMEAccept, parse_accept_header, parse_cookie

_FIELDS = {name.decode("latin-1"): value.decode("latin-1") for name, value in BROWSER_GET_RAW}
#: Firefox's Accept for a top-level navigation.
ACCEPT = _FIELDS["accept"]
#: Firefox's six cookies: a session, a CSRF token, preferences and analytics.
COOKIE = _FIELDS["cookie"]
#: What a JSON-or-HTML view can send, in the server's order of preference.
OFFERS = ["application/json", "text/html"]
COOKIE_NAMES = ["sessionid", "csrftoken", "theme", "cart", "_ga", "consent"]


def test_accept_best_match(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        return parse_accept_header(ACCEPT, MIMEAccept).best_match(OFFERS)

    assert benchmark(run) == "text/html"


def test_werkzeug_accept_best_match(benchmark: BenchmarkFixture) -> None:
    def run() -> str | None:
        accept = werkzeug.http.parse_accept_header(ACCEPT, werkzeug.datastructures.MIMEAccept)
        return accept.best_match(OFFERS)

    assert benchmark(run) == "text/html"


def test_parse_cookie(benchmark: BenchmarkFixture) -> None:
    pairs = benchmark(parse_cookie, COOKIE)
    assert [name for name, _ in pairs] == COOKIE_NAMES


def test_werkzeug_parse_cookie(benchmark: BenchmarkFixture) -> None:
    cookies = benchmark(werkzeug.http.parse_cookie, COOKIE)
    assert list(cookies) == COOKIE_NAMES
