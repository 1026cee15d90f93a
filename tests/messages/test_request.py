"""Tests for the sans-IO Request: normalisation, cached attributes, hosts, URLs."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import BadRequest, Headers, Request, UntrustedHost
from sansio_http.http import MIMEAccept

Pairs = list[tuple[str, str]]


def make(
    headers: Any = (),
    *,
    method: str = "GET",
    path: str = "/",
    query_string: bytes = b"",
    scheme: str = "http",
    remote_addr: str | None = "192.0.2.7",
    root_path: str = "",
    server: tuple[str, int | None] | None = ("127.0.0.1", 8000),
    trusted_hosts: Collection[str] | None = None,
) -> Request:
    return Request(
        method,
        path,
        query_string,
        list(headers) if not isinstance(headers, (Headers, dict)) else headers,
        scheme,
        remote_addr,
        root_path,
        server,
        trusted_hosts=trusted_hosts,
    )


# -- construction -------------------------------------------------------------


def test_constructor_stores_its_values() -> None:
    headers = Headers([(b"host", b"example.com")])
    request = Request(
        "get", "/a", b"x=1", headers, "https", "192.0.2.1", "/app", ("example.com", 443)
    )
    assert request.method == "GET"
    assert request.path == "/a"
    assert request.query_string == b"x=1"
    assert request.headers is headers
    assert request.scheme == "https"
    assert request.remote_addr == "192.0.2.1"
    assert request.root_path == "/app"
    assert request.server == ("example.com", 443)
    assert request.trusted_hosts is None


@pytest.mark.parametrize(
    ("path", "expected"), [("/", "/"), ("", "/"), ("a/b", "/a/b"), ("/a/", "/a/")]
)
def test_path_always_starts_with_a_slash(path: str, expected: str) -> None:
    assert make(path=path).path == expected


@pytest.mark.parametrize(
    ("root_path", "expected"),
    [("", ""), ("/", ""), ("/app", "/app"), ("/app/", "/app"), ("/app//", "/app"), ("app", "/app")],
)
def test_root_path_has_no_trailing_slash(root_path: str, expected: str) -> None:
    assert make(root_path=root_path).root_path == expected


@pytest.mark.parametrize(
    "headers",
    [
        [(b"X-Token", b"abc")],
        [("X-Token", "abc")],
        {"X-Token": "abc"},
        Headers([("x-token", "abc")]),
    ],
)
def test_headers_accept_every_form(headers: Any) -> None:
    request = Request("GET", "/", b"", headers, "http", None, "")
    assert isinstance(request.headers, Headers)
    assert request.headers.get("x-token") == "abc"


def test_attributes_are_computed_once_and_cached() -> None:
    request = make(query_string=b"a=1")
    assert "args" not in request.__dict__
    args = request.args
    assert request.__dict__["args"] is args
    assert request.args is args


def test_cached_attributes_are_documented_descriptors() -> None:
    assert isinstance(Request.__dict__["host"], functools.cached_property)
    assert Request.host.__doc__


def test_repr_shows_method_and_target() -> None:
    request = make(method="post", path="/a b", query_string=b"q=1")
    assert repr(request) == "<Request POST '/a%20b?q=1'>"


# -- host ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scheme", "host_header", "server", "expected"),
    [
        ("http", "example.com", None, "example.com"),
        ("http", "Example.COM", None, "example.com"),
        ("http", "example.com:80", None, "example.com"),
        ("http", "example.com:443", None, "example.com:443"),
        ("https", "example.com:443", None, "example.com"),
        ("ws", "example.com:80", None, "example.com"),
        ("wss", "example.com:443", None, "example.com"),
        ("http", "example.com:", None, "example.com"),
        ("http", "example.com:08080", None, "example.com:8080"),
        ("http", "192.0.2.1:8000", None, "192.0.2.1:8000"),
        ("http", "[2001:db8::1]:8000", None, "[2001:db8::1]:8000"),
        ("http", "[v1.fe80::a+en1]", None, "[v1.fe80::a+en1]"),
        ("http", "xn--caf-dma.example", None, "xn--caf-dma.example"),
        ("http", "my_service", None, "my_service"),
        ("http", None, ("example.com", 8000), "example.com:8000"),
        ("http", None, ("example.com", 80), "example.com"),
        ("https", None, ("example.com", 443), "example.com"),
        ("http", None, ("2001:db8::1", 8000), "[2001:db8::1]:8000"),
        ("http", None, ("café.example", 80), "xn--caf-dma.example"),
        ("http", None, ("/run/app.sock", None), ""),
        ("http", None, None, ""),
        ("http", "", ("example.com", 80), "example.com"),
    ],
)
def test_host(
    scheme: str, host_header: str | None, server: tuple[str, int | None] | None, expected: str
) -> None:
    headers = [] if host_header is None else [("host", host_header)]
    assert make(headers, scheme=scheme, server=server).host == expected


@pytest.mark.parametrize(
    "host_header",
    [
        "example.com\r\nX-Evil: 1",
        "example.com evil.com",
        "exa mple.com",
        "user@example.com",
        "example.com/path",
        "example.com:99999",
        "example.com:123456",
        "example.com:8o",
        "[2001:db8::1",
        "[not:an:address:at:all:zz]",
        "[::1::2]",
        "café.example",
        "example.com%",
        "\x00",
    ],
)
def test_a_malformed_host_header_falls_back_to_the_server(host_header: str) -> None:
    request = make([("host", host_header)], server=("example.org", 80))
    assert request.host == "example.org"


def test_a_repeated_host_header_counts_as_malformed() -> None:
    # RFC 9112 §3.2: a request with more than one Host field is invalid.
    request = make([("host", "a.example"), ("host", "b.example")], server=("example.org", 80))
    assert request.host == "example.org"


@pytest.mark.parametrize("server_name", ["exa mple.com", "a..b\u00e9" + "x" * 70])
def test_an_unusable_server_name_gives_no_host(server_name: str) -> None:
    assert make(server=(server_name, 80)).host == ""


# -- trusted hosts ------------------------------------------------------------


@pytest.mark.parametrize(
    ("trusted", "host_header", "expected"),
    [
        (["example.com"], "example.com", "example.com"),
        (["example.com"], "EXAMPLE.com:8080", "example.com:8080"),
        (["example.com"], "example.com.", "example.com."),
        (["Example.COM:8000"], "example.com", "example.com"),
        ([".example.com"], "example.com", "example.com"),
        ([".example.com"], "api.example.com", "api.example.com"),
        ([".example.com"], "a.b.example.com:81", "a.b.example.com:81"),
        (["café.example"], "xn--caf-dma.example", "xn--caf-dma.example"),
        ([".café.example"], "www.xn--caf-dma.example", "www.xn--caf-dma.example"),
        (["[::1]"], "[::1]:8000", "[::1]:8000"),
        (["other.com", "example.com"], "example.com", "example.com"),
        ("example.com", "example.com", "example.com"),
    ],
)
def test_trusted_hosts_accept(trusted: Collection[str], host_header: str, expected: str) -> None:
    assert make([("host", host_header)], trusted_hosts=trusted).host == expected


@pytest.mark.parametrize(
    ("trusted", "headers"),
    [
        (["example.com"], [("host", "evil.com")]),
        (["example.com"], [("host", "notexample.com")]),
        (["example.com"], [("host", "api.example.com")]),
        ([".example.com"], [("host", "evilexample.com")]),
        ([".example.com"], [("host", "example.com.evil.com")]),
        (["example.com"], [("host", "example.com\r\n")]),
        (["example.com"], [("host", "example.com"), ("host", "example.com")]),
        (["example.com"], []),
        (["."], [("host", "example.com")]),
        (["\u00e9" * 70], [("host", "example.com")]),
        ([], [("host", "example.com")]),
    ],
)
def test_trusted_hosts_refuse(trusted: Collection[str], headers: Pairs) -> None:
    request = make(headers, trusted_hosts=trusted, server=None)
    with pytest.raises(UntrustedHost) as info:
        _ = request.host
    assert isinstance(info.value, BadRequest)
    assert info.value.status == 400


def test_a_malformed_host_header_is_untrusted_even_if_the_server_is_trusted() -> None:
    request = make(
        [("host", "bad host")], server=("example.com", 80), trusted_hosts=["example.com"]
    )
    with pytest.raises(UntrustedHost):
        _ = request.host


def test_the_server_name_is_checked_when_there_is_no_host_header() -> None:
    assert make(server=("example.com", 80), trusted_hosts=["example.com"]).host == "example.com"
    with pytest.raises(UntrustedHost):
        _ = make(server=("internal", 80), trusted_hosts=["example.com"]).host


@pytest.mark.parametrize("name", ["url", "base_url", "root_url"])
def test_urls_of_an_untrusted_host_raise(name: str) -> None:
    request = make([("host", "evil.com")], trusted_hosts=["example.com"])
    with pytest.raises(UntrustedHost):
        getattr(request, name)


def test_trusted_hosts_as_a_class_setting() -> None:
    class AppRequest(Request):
        trusted_hosts = (".example.com",)

    request = AppRequest("GET", "/", b"", [("host", "evil.com")], "http", None, "")
    with pytest.raises(UntrustedHost):
        _ = request.host
    overridden = AppRequest(
        "GET", "/", b"", [("host", "evil.com")], "http", None, "", trusted_hosts=["evil.com"]
    )
    assert overridden.host == "evil.com"
    assert AppRequest.trusted_hosts == (".example.com",)


# -- URLs ---------------------------------------------------------------------


def test_urls_of_a_plain_request() -> None:
    request = make([("host", "example.com")], path="/b/c", query_string=b"x=1&y=2", root_path="/a")
    assert request.url == "http://example.com/a/b/c?x=1&y=2"
    assert request.base_url == "http://example.com/a/b/c"
    assert request.root_url == "http://example.com/a/"
    assert request.full_path == "/b/c?x=1&y=2"


def test_urls_without_a_root_path_or_query() -> None:
    request = make([("host", "example.com:8080")], scheme="https")
    assert request.url == "https://example.com:8080/"
    assert request.root_url == "https://example.com:8080/"
    assert request.full_path == "/"


def test_urls_percent_encode_the_decoded_path() -> None:
    request = make([("host", "example.com")], path="/caf\u00e9 100%/a?b#c", root_path="/r\u00f4le")
    assert request.base_url == "http://example.com/r%C3%B4le/caf%C3%A9%20100%25/a%3Fb%23c"
    assert request.root_url == "http://example.com/r%C3%B4le/"
    assert request.full_path == "/caf%C3%A9%20100%25/a%3Fb%23c"


def test_urls_keep_reserved_path_characters() -> None:
    request = make([("host", "example.com")], path="/a:b@c/!$&'()*+,;=-._~")
    assert request.base_url == "http://example.com/a:b@c/!$&'()*+,;=-._~"


def test_urls_keep_a_path_decoded_with_surrogateescape() -> None:
    request = make([("host", "example.com")], path=b"/\xff".decode("utf-8", "surrogateescape"))
    assert request.base_url == "http://example.com/%FF"


def test_urls_survive_a_lone_surrogate() -> None:
    request = make([("host", "example.com")], path="/\ud800")
    assert request.base_url == "http://example.com/%ED%A0%80"


def test_urls_encode_the_raw_query_string() -> None:
    request = make(
        [("host", "example.com")], query_string=b"q=caf\xc3\xa9 ok&p=%41&r=100%&s=a#b&t=/?:@"
    )
    assert request.url == "http://example.com/?q=caf%C3%A9%20ok&p=%41&r=100%25&s=a%23b&t=/?:@"


def test_is_secure() -> None:
    assert make(scheme="https").is_secure
    assert make(scheme="wss").is_secure
    assert not make(scheme="http").is_secure
    assert not make(scheme="ws").is_secure


# -- query string and cookies -------------------------------------------------


def test_args_keep_order_and_repeats() -> None:
    args = make(query_string=b"a=1&b=%C3%A9&a=2&c=x+y").args
    assert args["a"] == "1"
    assert args.getlist("a") == ["1", "2"]
    assert args["b"] == "\u00e9"
    assert args["c"] == "x y"
    assert make().args.to_dict() == {}


def test_cookies() -> None:
    cookies = make([("cookie", "sid=abc; theme=dark; sid=def")]).cookies
    assert cookies["sid"] == "abc"
    assert cookies.getlist("sid") == ["abc", "def"]
    assert cookies["theme"] == "dark"


def test_cookies_split_over_several_fields_are_joined() -> None:
    # RFC 9113 §8.2.3: an HTTP/2 client may send one cookie per field.
    cookies = make([("cookie", "a=1"), ("cookie", "b=2")]).cookies
    assert cookies.to_dict() == {"a": "1", "b": "2"}


def test_no_cookies() -> None:
    assert len(make().cookies) == 0


# -- body description ---------------------------------------------------------


def test_content_type() -> None:
    request = make([("content-type", 'Text/HTML; Charset="utf-8"')])
    assert request.content_type == 'Text/HTML; Charset="utf-8"'
    assert request.mimetype == "text/html"
    assert request.mimetype_params == {"charset": "utf-8"}
    assert not request.is_json


def test_no_content_type() -> None:
    request = make()
    assert request.content_type is None
    assert request.mimetype == ""
    assert request.mimetype_params == {}
    assert not request.is_json


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("application/json", True),
        ("application/json; charset=utf-8", True),
        ("application/problem+json", True),
        ("application/vnd.api+json", True),
        ("text/json", False),
        ("application/jsonp", False),
        ("application/json-seq", False),
        ("text/plain+json", False),
    ],
)
def test_is_json(content_type: str, expected: bool) -> None:
    assert make([("content-type", content_type)]).is_json is expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], None),
        (["0"], 0),
        (["42"], 42),
        (["0042"], 42),
        ([" 42 "], 42),
        (["42", "42"], 42),
        (["42, 42"], 42),
        (["42", "43"], None),
        (["42, 43"], None),
        (["-1"], None),
        (["+1"], None),
        (["1.0"], None),
        (["0x10"], None),
        (["1_000"], None),
        (["\u00b2"], None),
        ([""], None),
        (["abc"], None),
        (["9223372036854775807"], 2**63 - 1),
        # Too large for any body, but not "no length": read as 2**63, so that
        # every limit refuses it (it used to read as None: unknown length).
        (["9223372036854775808"], 2**63),
        (["1" * 5000], 2**63),
        (["0" * 5000 + "7"], 7),
    ],
)
def test_content_length(values: list[str], expected: int | None) -> None:
    assert make([("content-length", value) for value in values]).content_length == expected


# -- connection ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "remote_addr", "expected"),
    [
        ([], "192.0.2.7", ["192.0.2.7"]),
        ([], None, []),
        ([("x-forwarded-for", "203.0.113.5, 10.0.0.1")], "10.0.0.2", ["203.0.113.5", "10.0.0.1"]),
        ([("x-forwarded-for", "a"), ("x-forwarded-for", "b")], None, ["a", "b"]),
        ([("x-forwarded-for", "203.0.113.5:4711, , [2001:DB8::1]:80")], None,
         ["203.0.113.5", "2001:db8::1"]),
        ([("forwarded", 'for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"')], None,
         ["192.0.2.60", "2001:db8:cafe::17"]),
        ([("forwarded", "for=unknown, by=10.0.0.1, for=_hidden")], None, ["unknown", "_hidden"]),
        ([("forwarded", "for=192.0.2.1"), ("x-forwarded-for", "192.0.2.2")], None,
         ["192.0.2.1"]),
    ],
)  # fmt: skip
def test_access_route(headers: Pairs, remote_addr: str | None, expected: list[str]) -> None:
    assert make(headers, remote_addr=remote_addr).access_route == expected


# -- content negotiation ------------------------------------------------------


def test_accept_mimetypes_with_quality_matching() -> None:
    request = make([("accept", "text/html;q=0.5, application/json"), ("accept", "*/*;q=0.1")])
    accept = request.accept_mimetypes
    assert isinstance(accept, MIMEAccept)
    assert accept.best_match(["text/html", "application/json"]) == "application/json"
    assert accept.quality("text/html") == 0.5
    assert accept.quality("image/png") == 0.1


def test_accept_languages_encodings_charsets() -> None:
    request = make(
        [
            ("accept-language", "fr-CH, fr;q=0.9, en;q=0.8"),
            ("accept-encoding", "gzip, br;q=0.9, identity;q=0"),
            ("accept-charset", "utf-8, iso-8859-1;q=0.5"),
        ]
    )
    assert request.accept_languages.best_match(["en", "fr"]) == "fr"
    assert request.accept_encodings.best_match(["br", "gzip"]) == "gzip"
    assert request.accept_encodings.quality("identity") == 0
    assert request.accept_charsets.best_match(["iso-8859-1", "utf-8"]) == "utf-8"


def test_no_accept_headers() -> None:
    request = make()
    assert request.accept_mimetypes.best_match(["text/html"], "x") in {"text/html", "x"}
    assert list(request.accept_languages) == []
    assert list(request.accept_encodings) == []
    assert list(request.accept_charsets) == []


# -- conditional requests -----------------------------------------------------


def test_conditional_headers() -> None:
    request = make(
        [
            ("if-match", '"a", W/"b"'),
            ("if-none-match", '"c"'),
            ("if-none-match", '"d"'),
            ("if-modified-since", "Sun, 06 Nov 1994 08:49:37 GMT"),
            ("if-unmodified-since", "Sunday, 06-Nov-94 08:49:37 GMT"),
            ("if-range", '"e"'),
            ("range", "bytes=0-99,-5"),
        ]
    )
    moment = datetime(1994, 11, 6, 8, 49, 37, tzinfo=timezone.utc)
    assert request.if_match.contains_strong("a")
    assert not request.if_match.contains_strong("b")
    assert "b" in request.if_match
    assert "c" in request.if_none_match
    assert "d" in request.if_none_match
    assert request.if_modified_since == moment
    assert request.if_unmodified_since == moment
    assert request.if_range.etag == "e"
    assert request.if_range.date is None
    assert request.range is not None
    assert request.range.unit == "bytes"
    assert request.range.ranges == [(0, 99), (None, 5)]


def test_no_conditional_headers() -> None:
    request = make()
    assert "x" not in request.if_match
    assert not request.if_none_match.is_star
    assert request.if_modified_since is None
    assert request.if_unmodified_since is None
    assert request.if_range.etag is None
    assert request.if_range.date is None
    assert request.range is None


def test_malformed_conditional_headers() -> None:
    request = make(
        [("if-modified-since", "yesterday"), ("range", "bytes=9-1"), ("range", "lines=1-2")]
    )
    assert request.if_modified_since is None
    assert request.range is None


# -- other headers ------------------------------------------------------------


def test_authorization() -> None:
    request = make([("authorization", "Basic YWxhZGRpbjpvcGVuc2VzYW1l")])
    auth = request.authorization
    assert auth is not None
    assert auth.scheme.lower() == "basic"
    assert auth.username == "aladdin"
    assert auth.password == "opensesame"
    assert make().authorization is None


def test_cache_control_and_pragma() -> None:
    request = make(
        [("cache-control", "no-cache, max-age=0"), ("pragma", "no-cache"), ("pragma", "x=1")]
    )
    assert request.cache_control.no_cache
    assert request.cache_control.max_age == 0
    assert request.pragma == ("no-cache", "x=1")
    assert make().pragma == ()


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("0", 0), ("10", 10), ("-1", None), ("ten", None), ("1" * 30, None)],
)
def test_max_forwards(value: str | None, expected: int | None) -> None:
    headers = [] if value is None else [("max-forwards", value)]
    assert make(headers).max_forwards == expected


def test_plain_text_headers() -> None:
    request = make(
        [
            ("user-agent", "Mozilla/5.0"),
            ("origin", "https://example.com"),
            ("referer", "https://example.com/page"),
            ("date", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ]
    )
    assert request.user_agent == "Mozilla/5.0"
    assert request.origin == "https://example.com"
    assert request.referrer == "https://example.com/page"
    assert request.date == datetime(1994, 11, 6, 8, 49, 37, tzinfo=timezone.utc)
    empty = make()
    assert (empty.user_agent, empty.origin, empty.referrer, empty.date) == (None,) * 4


# -- replace ------------------------------------------------------------------


def test_replace_changes_values_and_recomputes_cached_ones() -> None:
    request = make([("host", "example.com")], query_string=b"a=1", trusted_hosts=["example.com"])
    assert request.args["a"] == "1"
    assert request.url == "http://example.com/?a=1"
    copy = request.replace(
        method="post",
        path="x",
        query_string=b"a=2",
        headers=[("host", "example.org")],
        scheme="https",
        remote_addr=None,
        root_path="/app/",
        server=None,
        trusted_hosts=None,
    )
    assert (copy.method, copy.path, copy.root_path, copy.remote_addr) == (
        "POST",
        "/x",
        "/app",
        None,
    )
    assert copy.args["a"] == "2"
    assert copy.url == "https://example.org/app/x?a=2"
    assert request.url == "http://example.com/?a=1"
    assert request.args["a"] == "1"


def test_replace_keeps_the_headers_object() -> None:
    headers = Headers([("a", "b")])
    assert make(headers).replace(headers=headers).headers is headers


def test_replace_refuses_unknown_names() -> None:
    with pytest.raises(TypeError, match="body"):
        make().replace(body=b"")  # type: ignore[call-arg]


def test_replace_keeps_subclass_state_and_drops_its_cached_values() -> None:
    class BodyRequest(Request):
        def __init__(self, body: bytes) -> None:
            super().__init__("POST", "/", b"", [], "http", None, "")
            self.body = body

        @functools.cached_property
        def size(self) -> int:
            return len(self.body)

    request = BodyRequest(b"abc")
    assert request.size == 3
    copy = request.replace(remote_addr="192.0.2.1")
    assert type(copy) is BodyRequest
    assert copy.body is request.body
    assert "size" not in copy.__dict__
    assert copy.remote_addr == "192.0.2.1"


def test_replace_copies_slots_of_a_subclass() -> None:
    class SlottedRequest(Request):
        __slots__ = ("stream",)

        def __init__(self, stream: object) -> None:
            super().__init__("GET", "/", b"", [], "http", None, "")
            self.stream = stream

    stream = object()
    assert SlottedRequest(stream).replace(path="/b").stream is stream


def test_replace_with_no_trusted_hosts_returns_to_the_class_setting() -> None:
    class AppRequest(Request):
        trusted_hosts = ("example.com",)

    request = AppRequest(
        "GET", "/", b"", [("host", "evil.com")], "http", None, "", trusted_hosts=["evil.com"]
    )
    assert request.host == "evil.com"
    assert request.replace(trusted_hosts=["x", "evil.com"]).host == "evil.com"
    with pytest.raises(UntrustedHost):
        _ = request.replace(trusted_hosts=None).host
    with pytest.raises(UntrustedHost):
        _ = AppRequest("GET", "/", b"", [("host", "evil.com")], "http", None, "").host


# -- the guide ----------------------------------------------------------------

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "request.rst"
CODE_BLOCK_RE = re.compile(r"^\.\. code-block:: python\n\n((?:    .*\n|\n)+)", re.MULTILINE)


def test_the_guide_examples_run() -> None:
    blocks = CODE_BLOCK_RE.findall(GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) == 7
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec("\n".join(line[4:] for line in block.splitlines()), namespace)


# -- arbitrary input ----------------------------------------------------------

HEADER_NAMES = [
    "host",
    "cookie",
    "content-type",
    "content-length",
    "accept",
    "accept-language",
    "accept-encoding",
    "accept-charset",
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
    "if-range",
    "range",
    "authorization",
    "cache-control",
    "user-agent",
    "origin",
    "referer",
    "date",
    "max-forwards",
    "pragma",
    "forwarded",
    "x-forwarded-for",
]
ATTRIBUTES = [
    "args",
    "cookies",
    "content_type",
    "mimetype",
    "mimetype_params",
    "content_length",
    "full_path",
    "is_secure",
    "is_json",
    "access_route",
    "accept_mimetypes",
    "accept_languages",
    "accept_encodings",
    "accept_charsets",
    "if_match",
    "if_none_match",
    "if_modified_since",
    "if_unmodified_since",
    "if_range",
    "range",
    "authorization",
    "cache_control",
    "user_agent",
    "origin",
    "referrer",
    "date",
    "max_forwards",
    "pragma",
]
HOST_ATTRIBUTES = ["host", "url", "base_url", "root_url"]

raw_headers = st.lists(
    st.tuples(st.sampled_from(HEADER_NAMES).map(str.encode), st.binary(max_size=40)), max_size=8
)
header_text = st.text(st.characters(codec="latin-1"), max_size=40)
servers = st.none() | st.tuples(st.text(max_size=20), st.none() | st.integers(0, 70000))


@given(
    headers=raw_headers,
    path=st.text(max_size=20),
    query_string=st.binary(max_size=30),
    root_path=st.text(max_size=10),
    server=servers,
    scheme=st.sampled_from(["http", "https", "ws", "wss"]),
)
def test_arbitrary_input_never_makes_an_attribute_raise(
    headers: list[tuple[bytes, bytes]],
    path: str,
    query_string: bytes,
    root_path: str,
    server: tuple[str, int | None] | None,
    scheme: str,
) -> None:
    request = Request("GET", path, query_string, headers, scheme, "192.0.2.1", root_path, server)
    for name in ATTRIBUTES + HOST_ATTRIBUTES:
        getattr(request, name)
    assert not any(char in request.host for char in " \t\r\n\x00/@")
    assert request.url.isascii()
    repr(request)


@given(
    values=st.lists(st.tuples(st.sampled_from(HEADER_NAMES), header_text), max_size=8),
    trusted=st.lists(st.sampled_from(["example.com", ".example.com", "[::1]", "\u00e9"])),
    server=servers,
)
def test_with_trusted_hosts_only_the_host_attributes_may_raise(
    values: Pairs, trusted: list[str], server: tuple[str, int | None] | None
) -> None:
    request = Request("GET", "/", b"", values, "http", None, "", server, trusted_hosts=trusted)
    for name in ATTRIBUTES:
        getattr(request, name)
    for name in HOST_ATTRIBUTES:
        try:
            value = getattr(request, name)
        except UntrustedHost:
            continue
        assert not any(char in value for char in " \t\r\n\x00")


@given(host=header_text, trusted=st.sampled_from([["example.com"], [".example.com"]]))
def test_a_trusted_host_is_always_in_the_trusted_domain(host: str, trusted: list[str]) -> None:
    request = make([("host", host)], trusted_hosts=trusted)
    try:
        name = request.host.partition(":")[0].rstrip(".")
    except UntrustedHost:
        return
    assert name == "example.com" or (trusted[0][0] == "." and name.endswith(".example.com"))


@pytest.mark.parametrize("path", ["//evil.example", "//evil.example/a", "///x"])
def test_urls_of_a_double_slash_path_stay_on_the_host(path: str) -> None:
    request = Request("GET", path, b"q=1", [("host", "example.com")], "http", None, "")
    assert request.full_path.startswith("/%2F")
    assert request.url.startswith("http://example.com/%2F")
    assert unquote(request.full_path.partition("?")[0]) == path
