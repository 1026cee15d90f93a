"""CORS, gzip and sessions with one source under every adapter and server.

:mod:`tests.app.middleware_views` mounts the three built-in middleware on
one App; each test runs through the test client (``to_wsgi`` and
``to_asgi``) and through real gunicorn and uvicorn processes, with ``def``
and ``async def`` views, and expects the same answer everywhere. Bodies are
compared as sent (still gzipped), so the transports cannot hide the coding.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import pytest

from sansio_http.testing import Client

from .middleware_views import BIG, ORIGIN, app
from .servers import http_client, transports

MODULE = "tests.app.middleware_views"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def text(self) -> str:
        data = gzip.decompress(self.body) if self.headers.get("content-encoding") else self.body
        return data.decode()


Fetch = Callable[..., Answer]


def _client_fetch(interface: Literal["wsgi", "asgi"]) -> Fetch:
    def fetch(method: str, path: str, headers: dict[str, str] | None = None) -> Answer:
        # A new client each time: no cookie jar carries the session along.
        response = Client(app, interface=interface).request(method, path, headers=headers)
        return Answer(response.status_code, dict(response.headers.items()), response.raw_content)

    return fetch


TRANSPORTS = transports("gunicorn", "uvicorn")


@pytest.fixture(scope="module", params=TRANSPORTS)
def fetch(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Fetch]:
    name: str = request.param
    if name.startswith("client-"):
        yield _client_fetch("wsgi" if name == "client-wsgi" else "asgi")
        return
    with http_client(name, MODULE, tmp_path_factory) as http:

        def fetch_http(method: str, path: str, headers: dict[str, str] | None = None) -> Answer:
            http.cookies.clear()
            with http.stream(method, path, headers=headers) as response:
                body = b"".join(response.iter_raw())
                fields = {name.lower(): value for name, value in response.headers.items()}
                return Answer(response.status_code, fields, body)

        yield fetch_http


KINDS = ["sync", "async"]
GZIP = {"accept-encoding": "gzip"}


def vary(answer: Answer) -> set[str]:
    return {item.strip().lower() for item in answer.headers.get("vary", "").split(",") if item}


# -- CORS ------------------------------------------------------------------


def test_a_preflight_is_answered_before_the_view(fetch: Fetch) -> None:
    answer = fetch(
        "OPTIONS",
        "/sync/visit",
        {
            "origin": ORIGIN,
            "access-control-request-method": "PUT",
            "access-control-request-headers": "content-type, x-client",
        },
    )
    assert answer.status == 204
    assert answer.headers["access-control-allow-origin"] == ORIGIN
    assert answer.headers["access-control-allow-credentials"] == "true"
    assert answer.headers["access-control-allow-methods"] == "GET, POST, PUT"
    assert answer.headers["access-control-allow-headers"] == "content-type, x-client"
    assert answer.headers["access-control-max-age"] == "120"
    assert "set-cookie" not in answer.headers  # the session was never touched
    assert "origin" in vary(answer)


def test_a_preflight_from_another_origin_is_refused(fetch: Fetch) -> None:
    answer = fetch(
        "OPTIONS",
        "/sync/visit",
        {"origin": "https://evil.example", "access-control-request-method": "PUT"},
    )
    assert answer.status == 403
    assert not [name for name in answer.headers if name.startswith("access-control-")]


@pytest.mark.parametrize("kind", KINDS)
def test_an_actual_request_gets_the_cors_fields(fetch: Fetch, kind: str) -> None:
    answer = fetch("PUT", f"/{kind}/visit", {"origin": ORIGIN})
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == ORIGIN
    assert answer.headers["access-control-expose-headers"] == "x-visits"
    assert {"origin", "cookie"} <= vary(answer)


@pytest.mark.parametrize("origin", ["https://evil.example", "https://app.example/", "null"])
def test_a_disallowed_or_malformed_origin_gets_the_view_without_cors_fields(
    fetch: Fetch, origin: str
) -> None:
    answer = fetch("GET", "/sync/small", {"origin": origin})
    assert (answer.status, answer.body) == (200, b"small")
    assert "access-control-allow-origin" not in answer.headers
    assert "origin" in vary(answer)


# -- gzip ------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_big_body_is_gzipped_with_a_weak_etag(fetch: Fetch, kind: str) -> None:
    answer = fetch("GET", f"/{kind}/big", GZIP)
    assert answer.headers["content-encoding"] == "gzip"
    assert answer.headers["etag"] == 'W/"big"'
    assert int(answer.headers["content-length"]) == len(answer.body) < len(BIG) // 10
    assert gzip.decompress(answer.body) == BIG
    assert "accept-encoding" in vary(answer)


@pytest.mark.parametrize("kind", KINDS)
def test_a_streamed_body_is_gzipped(fetch: Fetch, kind: str) -> None:
    answer = fetch("GET", f"/{kind}/stream", GZIP)
    assert answer.headers["content-encoding"] == "gzip"
    assert "content-length" not in answer.headers
    assert gzip.decompress(answer.body) == BIG


@pytest.mark.parametrize("accept", ["gzip;q=0", "identity", "br"])
def test_no_gzip_unless_the_client_takes_it(fetch: Fetch, accept: str) -> None:
    answer = fetch("GET", "/async/big", {"accept-encoding": accept})
    assert "content-encoding" not in answer.headers
    assert answer.headers["etag"] == '"big"'
    assert answer.body == BIG
    assert "accept-encoding" in vary(answer)


def test_a_small_body_is_sent_as_it_is(fetch: Fetch) -> None:
    answer = fetch("GET", "/sync/small", GZIP)
    assert answer.body == b"small"
    assert "content-encoding" not in answer.headers


# -- sessions --------------------------------------------------------------


def session_cookie(answer: Answer) -> str:
    return answer.headers["set-cookie"].split(";")[0]


@pytest.mark.parametrize("kind", KINDS)
def test_the_session_survives_between_requests(fetch: Fetch, kind: str) -> None:
    first = fetch("GET", f"/{kind}/visit")
    assert first.text() == "1"
    header = first.headers["set-cookie"]
    assert "HttpOnly" in header
    assert "SameSite=Lax" in header
    assert "Secure" not in header  # plain http
    second = fetch("GET", f"/{kind}/visit", {"cookie": session_cookie(first)})
    assert second.text() == "2"
    peek = fetch("GET", f"/{kind}/peek", {"cookie": session_cookie(second)})
    assert json.loads(peek.text()) == {"visits": 2}
    assert "set-cookie" not in peek.headers  # only read: not written back
    assert "cookie" in vary(peek)


@pytest.mark.parametrize("kind", KINDS)
def test_a_forged_cookie_starts_a_new_session(fetch: Fetch, kind: str) -> None:
    first = fetch("GET", f"/{kind}/visit")
    name_value = session_cookie(first)
    _payload, stamp, signature = name_value.split(".")
    forged = "session=eyJ2aXNpdHMiOjk5fQ." + stamp + "." + signature  # {"visits":99}
    answer = fetch("GET", f"/{kind}/visit", {"cookie": forged})
    assert answer.status == 200
    assert answer.text() == "1"


def test_an_oversized_cookie_starts_a_new_session(fetch: Fetch) -> None:
    answer = fetch("GET", "/sync/peek", {"cookie": "session=" + "a" * 4097})
    assert answer.status == 200
    assert json.loads(answer.text()) == {"visits": 0}
    assert "Max-Age=0" in answer.headers["set-cookie"]  # the client is told to drop it
