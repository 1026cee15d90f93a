"""The example App of ``make serve``: its middleware under WSGI and ASGI."""

from __future__ import annotations

import gzip

import pytest

from examples.app import CORS_ORIGINS, app
from sansio_http.testing import Client


@pytest.fixture(params=["wsgi", "asgi"])
def client(request: pytest.FixtureRequest) -> Client:
    return Client(app, interface=request.param)


def test_the_session_counts_visits(client: Client) -> None:
    assert client.get("/api/visits").json() == {"visits": 1}
    assert client.get("/api/visits").json() == {"visits": 2}
    assert "HttpOnly" in client.get("/api/visits").headers["set-cookie"]


def test_a_page_of_an_allowed_origin_may_call_the_api(client: Client) -> None:
    origin = CORS_ORIGINS[0]
    preflight = client.options(
        "/api/hello",
        headers={"origin": origin, "access-control-request-method": "POST"},
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == origin
    answer = client.get("/api/hello", headers={"origin": origin})
    assert answer.headers["access-control-allow-origin"] == origin
    assert answer.headers["access-control-allow-credentials"] == "true"


def test_the_page_is_gzipped_for_clients_that_ask(client: Client) -> None:
    response = client.get("/", headers={"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert b"sansio-http" in gzip.decompress(response.raw_content)
    assert "content-encoding" not in client.get("/").headers
