from __future__ import annotations

import pytest

from sansio_http import Headers
from sansio_http.testing import Client, ClientRequest
from sansio_http.testing._request import resolve_url


@pytest.mark.parametrize(
    ("base", "url", "params", "expected"),
    [
        ("http://testserver", "/a", None, "http://testserver/a"),
        ("http://testserver", "", None, "http://testserver/"),
        ("http://testserver/x/", "y?q=1#frag", None, "http://testserver/x/y?q=1"),
        ("http://testserver", "/caf%C3%A9/é x", None, "http://testserver/caf%C3%A9/%C3%A9%20x"),
        ("http://testserver", "/?a=b c", {"d": ["1", "2"]}, "http://testserver/?a=b%20c&d=1&d=2"),
        ("http://testserver", "https://other:8443/p", None, "https://other:8443/p"),
    ],
)
def test_resolve_url(
    base: str, url: str, params: dict[str, list[str]] | None, expected: str
) -> None:
    assert resolve_url(base, url, params) == expected


def test_client_request_facts() -> None:
    request = ClientRequest("GET", "https://Example.com/app/a%2Fb?x=1", Headers(), root_path="/app")
    assert (request.scheme, request.host, request.port) == ("https", "example.com", 443)
    assert (request.raw_path, request.path, request.path_bytes) == (
        "/app/a%2Fb",
        "/app/a/b",
        b"/app/a/b",
    )
    assert request.query_string == b"x=1"
    assert request.content == b""
    assert ClientRequest("POST", "http://h/", Headers(), iter([b"x"])).content is None


def test_build_request_without_sending() -> None:
    def wsgi(environ: object, start_response: object) -> list[bytes]:
        raise NotImplementedError

    client = Client(wsgi, cookies={"a": "1"})
    request = client.build_request("post", "/p", json=[1], headers={"X-A": "b"})
    assert request.method == "POST"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["content-length"] == "3"
    assert request.headers["cookie"] == "a=1"
    assert request.headers["x-a"] == "b"
    assert request.body == b"[1]"
