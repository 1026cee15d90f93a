"""The trailing-slash 308: its Location stays on this origin, whatever the path."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes, urljoin, urlsplit

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sansio_http.app import App
from sansio_http.http._urls import path_location
from sansio_http.messages._request import Request
from sansio_http.routing import RequestRedirect, Router, Rule

ORIGIN = "http://origin.example/base/"
ROUTER = Router([Rule("/<name>/", "named"), Rule("/<path:rest>/end/", "deep")])


def request_for(path: str, query: bytes = b"", root_path: str = "") -> Request:
    return Request("GET", path, query, [(b"host", b"origin.example")], "http", None, root_path)


def location_for(path: str, query: bytes = b"", root_path: str = "") -> str:
    request = request_for(path, query, root_path)
    with pytest.raises(RequestRedirect) as info:
        ROUTER.match(request.path)
    response = info.value.to_response(request)
    assert response.status == 308
    return response.headers["location"]


def resolve_like_a_browser(location: str) -> str:
    """Resolve a Location against ORIGIN as the WHATWG URL parser would.

    The URL Standard strips leading and trailing C0 controls and spaces,
    removes tabs and newlines anywhere, and reads ``\\`` as ``/`` in http(s)
    URLs; then RFC 3986 resolution (``urljoin``) does the rest.
    """
    cleaned = location.strip("".join(map(chr, range(0x21))))
    cleaned = cleaned.replace("\t", "").replace("\n", "").replace("\r", "")
    return urljoin(ORIGIN, cleaned.replace("\\", "/"))


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/docs", "/docs/"),
        ("/\\evil.example", "/%5Cevil.example/"),
        ("/a?b", "/a%3Fb/"),
        ("/a#b", "/a%23b/"),
        ("/100%", "/100%25/"),
        ("/\r\nSet-Cookie: x=1", "/%0D%0ASet-Cookie:%20x=1/"),
        ("/café", "/caf%C3%A9/"),
        ("/\t/evil.example/end", "/%09/evil.example/end/"),
    ],
)
def test_location_is_the_encoded_path(path: str, location: str) -> None:
    assert location_for(path) == location


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("//evil.example/", "/%2Fevil.example/"),
        ("///evil.example/", "/%2F/evil.example/"),
        ("/\\\\evil.example/", "/%5C%5Cevil.example/"),
    ],
)
def test_location_never_starts_with_two_slashes(path: str, location: str) -> None:
    # The router matches no empty first segment, but a RequestRedirect raised by other
    # code may carry such a path: "//host/" would be a network-path reference.
    assert RequestRedirect(path).to_response(request_for(path)).headers["location"] == location


def test_query_string_and_root_path_are_kept() -> None:
    location = location_for("/docs", b"page=2&q=caf%C3%A9", root_path="/app")
    assert location == "/app/docs/?page=2&q=caf%C3%A9"


def test_query_string_is_encoded_where_it_must_be() -> None:
    raw = b"a=\\b&c=#d&e=%zz&f=\r\n&g=\xff"
    assert location_for("/docs", raw) == "/docs/?a=%5Cb&c=%23d&e=%25zz&f=%0D%0A&g=%FF"


def test_root_path_from_a_proxy_cannot_leave_the_origin() -> None:
    # X-Forwarded-Prefix may set root_path: it is request data too.
    assert location_for("/docs", root_path="//evil.example") == "/%2Fevil.example/docs/"


def test_without_a_request_the_location_is_the_encoded_path() -> None:
    with pytest.raises(RequestRedirect) as info:
        ROUTER.match("/\\evil.example")
    assert info.value.path == "/\\evil.example/"
    assert info.value.location == "/%5Cevil.example/"
    assert info.value.to_response().headers["location"] == "/%5Cevil.example/"


def test_the_app_redirects_with_the_request_root_path_and_query() -> None:
    app = App()
    app.add_route("/<name>/", lambda request, name: name, endpoint="named")
    response = app.dispatch_sync(request_for("/\r\n", b"x=1", root_path="/mount"))
    assert response.status == 308
    assert response.headers["location"] == "/mount/%0D%0A/?x=1"


texts = st.text(st.characters(codec="utf-8"))


@given(path=texts, root_path=texts, query=st.binary())
@example(path="/\\evil.example", root_path="", query=b"")
@example(path="//evil.example", root_path="", query=b"")
@example(path="/evil.example", root_path="/", query=b"")
@example(path="/x", root_path="http:", query=b"#@evil.example")
def test_no_path_resolves_to_another_origin(path: str, root_path: str, query: bytes) -> None:
    request = request_for("/" + path, query, root_path)
    location = RequestRedirect(request.path + "/").to_response(request).headers["location"]
    assert location.isascii()
    assert not any(char <= " " or char in '\\"<>^`{|}\x7f' for char in location)
    assert location.startswith("/")
    assert not location.startswith("//")
    resolved = urlsplit(resolve_like_a_browser(location))
    assert (resolved.scheme, resolved.netloc) == ("http", "origin.example")
    # The client comes back to the same decoded path.
    target = unquote_to_bytes(location.partition("?")[0])
    assert target == (request.root_path + request.path + "/").encode()
    # And the same query string once its escapes are decoded.
    assert unquote_to_bytes(location.partition("?")[2]) == unquote_to_bytes(query)


# st.text() never draws surrogates; mix them in.
any_text = st.lists(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr))).map("".join)


@given(path=any_text)
def test_lone_surrogates_still_give_a_same_origin_location(path: str) -> None:
    location = path_location("/" + path + "/")
    assert location.isascii()
    assert location.startswith("/")
    assert not location.startswith("//")
    assert urlsplit(resolve_like_a_browser(location)).netloc == "origin.example"


def test_a_path_without_its_leading_slash_still_gives_an_absolute_path() -> None:
    # A relative reference whose first segment holds ":" would read as a scheme.
    assert RequestRedirect("javascript:alert(1)/").location == "/javascript:alert(1)/"
    assert RequestRedirect("/docs/").to_response(None).headers["location"] == "/docs/"
