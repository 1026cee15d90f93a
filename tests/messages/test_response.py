"""Response, JSONResponse and redirect: bodies, status, headers, cookies, validators."""

from __future__ import annotations

import encodings.idna
import json
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import JSONResponse, Response, redirect
from sansio_http.http._headers import Headers, HeaderValueError, MutableHeaders
from sansio_http.messages._files import FileBody
from sansio_http.messages._request import Request

TEXT_PLAIN = (b"content-type", b"text/plain; charset=utf-8")


def chunks() -> Iterator[bytes]:
    yield b"a"
    yield b"b"


async def async_chunks() -> AsyncIterator[bytes]:
    yield b"a"


# -- bodies ----------------------------------------------------------------------------


def test_text_body() -> None:
    response = Response("héllo")
    assert response.body == "héllo".encode()
    assert response.status == 200
    assert response.raw_headers() == [TEXT_PLAIN, (b"content-length", b"6")]
    assert response.headers["content-length"] == "6"
    assert response.content_type == "text/plain; charset=utf-8"


def test_bytes_body_has_no_default_content_type() -> None:
    response = Response(b"\x00\x01")
    assert response.body == b"\x00\x01"
    assert response.raw_headers() == [(b"content-length", b"2")]
    assert response.content_type is None


def test_empty_default() -> None:
    assert Response().raw_headers() == [(b"content-length", b"0")]
    assert Response().body == b""


@pytest.mark.parametrize("body", [bytearray(b"abc"), memoryview(b"abc")])
def test_buffers_become_bytes(body: bytearray | memoryview) -> None:
    response = Response(body)  # type: ignore[arg-type]
    assert type(response.body) is bytes
    assert response.body == b"abc"
    assert response.headers["content-length"] == "3"


def test_str_is_encoded_by_the_content_type_charset() -> None:
    response = Response("café", content_type="text/plain; charset=latin-1")
    assert response.body == b"caf\xe9"
    assert response.headers["content-length"] == "4"
    response = Response("café", headers={"Content-Type": "text/csv; charset=ISO-8859-1"})
    assert response.body == b"caf\xe9"


def test_str_body_with_a_type_without_charset_is_utf_8() -> None:
    response = Response("é", content_type="application/xml")
    assert response.body == b"\xc3\xa9"
    assert response.content_type == "application/xml"


def test_text_types_get_a_charset() -> None:
    assert Response("x", content_type="text/html").content_type == "text/html; charset=utf-8"
    assert Response(b"x", content_type="text/css").content_type == "text/css; charset=utf-8"
    kept = "text/html; charset=iso-8859-1"
    assert Response("x", content_type=kept).content_type == kept


def test_unencodable_or_unknown_charset_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="encode"):
        Response("☃", content_type="text/plain; charset=latin-1")
    with pytest.raises(ValueError, match="unknown charset"):
        Response("x", content_type="text/plain; charset=klingon")


def test_unknown_charset_with_headers_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown charset"):
        Response("x", headers={"x-a": "b"}, content_type="text/plain; charset=klingon")


CONTENT_TYPES = [
    "text/plain; charset=utf-8",
    "text/html",
    "application/json",
    "text/csv; charset=latin-1",
    "application/octet-stream",
]


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
@pytest.mark.parametrize("body", ["café", b"caf\xc3\xa9", "", b""])
@pytest.mark.parametrize("status", [200, 204, 304, 404])
def test_a_content_type_alone_gives_what_headers_give(
    content_type: str, body: str | bytes, status: int
) -> None:
    # A content type given alone takes a shorter path than one given with
    # headers; both make the same response, the first time and the next, and
    # both refuse content for a 204 or 304.
    for _ in range(2):
        if body and status in (204, 304):
            with pytest.raises(ValueError, match="has no content"):
                Response(body, status, content_type=content_type)
            with pytest.raises(ValueError, match="has no content"):
                Response(body, status, {}, content_type)
            continue
        alone = Response(body, status, content_type=content_type)
        with_headers = Response(body, status, {}, content_type)
        assert alone.body == with_headers.body
        assert alone.raw_headers() == with_headers.raw_headers()
        assert alone.content_type == with_headers.content_type


@given(content_type=st.text(max_size=40), body=st.text(max_size=8))
def test_any_content_type_alone_gives_what_headers_give(content_type: str, body: str) -> None:
    try:
        expected = Response(body, headers={}, content_type=content_type)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            Response(body, content_type=content_type)
        return
    for _ in range(2):
        alone = Response(body, content_type=content_type)
        assert (alone.body, alone.raw_headers()) == (expected.body, expected.raw_headers())


def test_a_refused_content_type_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(HeaderValueError):
            Response("x", content_type="text/plain\r\nx-a: b")
        with pytest.raises(TypeError):
            Response("x", content_type=b"text/plain")  # type: ignore[arg-type]


def test_sync_iterable_body() -> None:
    body = chunks()
    response = Response(body)
    assert response.body is body
    assert response.raw_headers() == []


def test_async_iterable_body() -> None:
    body = async_chunks()
    response = Response(body, content_type="text/event-stream")
    assert response.body is body
    assert response.raw_headers() == [(b"content-type", b"text/event-stream; charset=utf-8")]


def test_stream_keeps_the_callers_content_length() -> None:
    response = Response(chunks(), headers={"Content-Length": "2"})
    assert response.headers["content-length"] == "2"


def test_known_length_overrides_a_wrong_content_length() -> None:
    # A length that disagrees with the body would desynchronise the connection.
    response = Response(b"abc", headers=[("Content-Length", "10")])
    assert response.raw_headers() == [(b"content-length", b"3")]


def test_file_body() -> None:
    body = FileBody("/srv/a.bin", offset=10, length=90)
    response = Response(body, content_type="application/octet-stream")
    assert response.body is body
    assert response.headers["content-length"] == "90"


def test_file_body_to_end_of_file_has_no_length() -> None:
    response = Response(FileBody("/srv/a.bin"))
    assert "content-length" not in response.headers


@pytest.mark.parametrize("body", [42, None, 1.5, object()])
def test_other_bodies_are_refused(body: Any) -> None:
    with pytest.raises(TypeError, match="a body is bytes"):
        Response(body, headers={})


def test_body_setter_updates_the_length() -> None:
    response = Response("abc")
    response.body = "abcdef"
    assert response.headers["content-length"] == "6"
    response.body = b"\xff"
    assert response.body == b"\xff"
    assert response.headers["content-length"] == "1"
    response.body = chunks()
    assert "content-length" not in response.headers
    response.body = FileBody("/x", length=5)
    assert response.headers["content-length"] == "5"
    response.body = FileBody("/x")
    assert "content-length" not in response.headers


def test_body_setter_encodes_text_as_utf_8_without_a_content_type() -> None:
    response = Response(b"")
    response.body = "é"
    assert stored_body(response) == b"\xc3\xa9"
    assert response.content_type is None


def test_body_setter_encodes_with_the_current_charset() -> None:
    response = Response(b"", content_type="text/plain; charset=latin-1")
    response.body = "é"
    assert stored_body(response) == b"\xe9"


@pytest.mark.parametrize("status", [100, 101, 103, 204, 304])
def test_no_content_length_where_rfc_9110_forbids_it(status: int) -> None:
    assert "content-length" not in Response(status=status).headers
    assert Response("", status).raw_headers() == [TEXT_PLAIN]
    assert Response(b"", status, headers={}).raw_headers() == []
    response = Response(status=status, headers={"X": "y"})
    response.body = b""
    assert "content-length" not in response.headers


# -- status ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "line"),
    [(200, "200 OK"), (404, "404 Not Found"), (418, "418 I'm a teapot"), (299, "299 Successful")],
)
def test_status_line(status: int, line: str) -> None:
    response = Response(status=status)
    assert response.status_line == line
    assert response.reason == line[4:]


def test_http_status_is_accepted_as_a_plain_int() -> None:
    response = Response(status=HTTPStatus.CREATED)
    assert response.status == 201
    assert type(response.status) is int
    assert response.status_line == "201 Created"


@pytest.mark.parametrize("status", [0, 99, 600, 1000, -200])
def test_status_out_of_range(status: int) -> None:
    with pytest.raises(ValueError, match="between 100 and 599"):
        Response(status=status)
    response = Response()
    with pytest.raises(ValueError, match="between 100 and 599"):
        response.status = status


@pytest.mark.parametrize("status", [True, "200", 200.0, None])
def test_status_must_be_an_int(status: Any) -> None:
    with pytest.raises(TypeError, match="status must be an int"):
        Response(status=status)


def test_status_setter() -> None:
    response = Response()
    response.status = 404
    assert response.status_line == "404 Not Found"


# -- headers ---------------------------------------------------------------------------


def test_headers_are_copied() -> None:
    given = MutableHeaders({"X-A": "1"})
    response = Response("x", headers=given)
    response.headers["x-a"] = "2"
    assert given["x-a"] == "1"


@pytest.mark.parametrize(
    "headers",
    [
        {"X-A": "1"},
        [("X-A", "1")],
        [(b"x-a", b"1")],
        Headers([(b"x-a", b"1")]),
    ],
)
def test_headers_in_any_form(headers: Any) -> None:
    response = Response("x", headers=headers)
    assert response.raw_headers() == [
        (b"x-a", b"1"),
        TEXT_PLAIN,
        (b"content-length", b"1"),
    ]


def test_content_type_argument_wins_over_headers() -> None:
    response = Response("x", headers={"Content-Type": "text/csv"}, content_type="text/html")
    assert response.content_type == "text/html; charset=utf-8"


def test_content_type_property() -> None:
    response = Response("x")
    response.content_type = "text/markdown"
    assert response.content_type == "text/markdown; charset=utf-8"
    response.content_type = None
    assert response.content_type is None
    assert response.raw_headers() == [(b"content-length", b"1")]


def test_raw_headers_is_a_new_list() -> None:
    response = Response("x")
    response.raw_headers().clear()
    assert len(response.raw_headers()) == 2
    response.headers.add("vary", "accept")
    response.raw_headers().clear()
    assert len(response.raw_headers()) == 3


@pytest.mark.parametrize(
    ("name", "value"),
    [("X-A", "a\r\nSet-Cookie: x=y"), ("X-A", "a\nb"), ("X-A", "a\x00"), ("X A", "v")],
)
def test_header_injection_is_refused(name: str, value: str) -> None:
    response = Response("x")
    with pytest.raises(HeaderValueError):
        response.headers[name] = value
    with pytest.raises(HeaderValueError):
        Response("x", headers={name: value})


@pytest.mark.parametrize("value", ["text/html\r\nX-A: b", "text/plain\x00"])
def test_content_type_injection_is_refused(value: str) -> None:
    with pytest.raises(HeaderValueError):
        Response("x", content_type=value)


@given(name=st.text(), value=st.text())
def test_arbitrary_headers_raise_value_error_or_are_safe(name: str, value: str) -> None:
    response = Response("x")
    try:
        response.headers.add(name, value)
    except ValueError:
        return
    for field_name, field_value in response.raw_headers():
        assert not any(byte in field_name + field_value for byte in b"\r\n\x00")


def test_repr() -> None:
    assert repr(Response("x", 404)) == "<Response '404 Not Found' 'text/plain; charset=utf-8'>"


# -- cookies ---------------------------------------------------------------------------


def test_set_and_delete_cookies() -> None:
    response = Response("x")
    response.set_cookie("sid", "a b", max_age=60, secure=True, httponly=True, samesite="Strict")
    response.delete_cookie("old", path="/app", domain="example.com")
    assert response.headers.getlist("set-cookie") == [
        r'sid="a\040b"; Max-Age=60; Path=/; Secure; HttpOnly; SameSite=Strict',
        "old=; Domain=example.com; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/app",
    ]


def test_delete_a_partitioned_prefixed_cookie() -> None:
    response = Response()
    response.delete_cookie(
        "__Host-id", secure=True, httponly=True, samesite="None", partitioned=True
    )
    assert response.headers["set-cookie"] == (
        "__Host-id=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; Secure; HttpOnly;"
        " SameSite=None; Partitioned"
    )


def test_bad_cookie_is_refused_when_set() -> None:
    response = Response()
    with pytest.raises(ValueError, match="SameSite=None"):
        response.set_cookie("k", samesite="None")
    assert "set-cookie" not in response.headers


# -- validators ------------------------------------------------------------------------


def test_etag() -> None:
    assert Response("x").etag == (None, False)
    response = Response("x")
    response.set_etag("abc")
    assert response.headers["etag"] == '"abc"'
    assert response.etag == ("abc", False)
    response.set_etag("v2", weak=True)
    assert response.headers.getlist("etag") == ['W/"v2"']
    assert response.etag == ("v2", True)


@pytest.mark.parametrize("tag", ['a"b', "a b", "a\nb", "\x7f"])
def test_bad_etags_are_refused(tag: str) -> None:
    with pytest.raises(ValueError, match="entity tag"):
        Response().set_etag(tag)


def test_last_modified() -> None:
    response = Response("x")
    assert response.last_modified is None
    when = datetime(2015, 10, 21, 7, 28, tzinfo=timezone.utc)
    response.last_modified = when
    assert response.headers["last-modified"] == "Wed, 21 Oct 2015 07:28:00 GMT"
    assert response.last_modified == when
    assert response.last_modified.tzinfo is not None
    response.last_modified = 0
    assert response.headers["last-modified"] == "Thu, 01 Jan 1970 00:00:00 GMT"
    response.last_modified = datetime(2015, 10, 21, 7, 28)  # naive: UTC
    assert response.last_modified == when
    response.last_modified = None
    assert "last-modified" not in response.headers
    response.headers["last-modified"] = "yesterday"
    assert response.last_modified is None


def test_make_conditional_answers_304() -> None:
    response = Response("hello")
    response.set_etag("v1")
    request = Request("GET", "/", b"", [("if-none-match", '"v1"')], "http", None, "")
    answer = response.make_conditional(request)
    assert answer.status == 304
    assert answer.body == b""
    assert answer.headers["etag"] == '"v1"'


# -- JSON ------------------------------------------------------------------------------


def test_json_response_is_compact_utf_8() -> None:
    response = JSONResponse({"name": "Zoë", "tags": ["a", 1, None]}, 201)
    assert response.status == 201
    expected = '{"name":"Zoë","tags":["a",1,null]}'.encode()
    assert response.body == expected
    assert response.raw_headers() == [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(expected)).encode()),
    ]


def test_json_response_with_headers_or_no_content() -> None:
    response = JSONResponse([], headers={"X-A": "1"})
    assert response.raw_headers() == [
        (b"x-a", b"1"),
        (b"content-type", b"application/json"),
        (b"content-length", b"2"),
    ]
    with pytest.raises(ValueError, match="204 response has no content"):
        JSONResponse(None, 204)
    with pytest.raises(ValueError, match="between 100 and 599"):
        JSONResponse({}, 999)


def test_json_response_escapes_lone_surrogates() -> None:
    response = JSONResponse(["\ud800", "é"])
    assert response.body == b'["\\ud800","\\u00e9"]'
    assert isinstance(response.body, bytes)
    assert json.loads(response.body) == ["\ud800", "é"]


@pytest.mark.parametrize("result", ['{"a":1}', b'{"a":1}'])
def test_json_dumps_hook(result: str | bytes) -> None:
    seen: list[object] = []

    def dumps(data: object) -> str | bytes:
        seen.append(data)
        return result

    response = JSONResponse({"a": 1}, headers={"X-A": "1"}, dumps=dumps)
    assert seen == [{"a": 1}]
    assert response.body == b'{"a":1}'
    assert response.headers["x-a"] == "1"
    assert response.content_type == "application/json"


def test_json_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        JSONResponse({"when": datetime(2020, 1, 1)})


# -- redirects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "sent"),
    [
        ("/next", "/next"),
        ("https://example.com/a?b=c&d=e#f", "https://example.com/a?b=c&d=e#f"),
        ("/search?q=a b", "/search?q=a%20b"),
        ("/ünïcode/päth", "/%C3%BCn%C3%AFcode/p%C3%A4th"),
        ("/already%20escaped%2F", "/already%20escaped%2F"),
        ("/100%", "/100%25"),
        ("/%zz", "/%25zz"),
        ("http://exämple.com/ä", "http://xn--exmple-cua.com/%C3%A4"),
        ("//exämple.com:8080/", "//xn--exmple-cua.com:8080/"),
        ("http://usér@exämple.com/", "http://us%C3%A9r@xn--exmple-cua.com/"),
        ("http://[::1]:8080/ä", "http://[::1]:8080/%C3%A4"),
        ("/\t/evil.example/", "/%09/evil.example/"),
        ("/\\evil.example/", "/%5Cevil.example/"),
        ("/\\\\evil.example/", "/%5C%5Cevil.example/"),
        ("/\r\n/evil.example/", "/%0D%0A/evil.example/"),
        ("\x00/x", "%00/x"),
        (" //evil.example", "%20//evil.example"),
        ('/"><script>', "/%22%3E%3Cscript%3E"),
        # IDNA mapping must not move the host: a fullwidth "#" stays percent-encoded.
        ("http://evil.example\uff03.good.example/", "http://evil.example%EF%BC%83.good.example/"),
        ("http://" + "ä" * 70 + ".com/", "http://" + "%C3%A4" * 70 + ".com/"),
    ],
)
def test_redirect_location(location: str, sent: str) -> None:
    response = redirect(location)
    assert response.status == 302
    assert response.headers["location"] == sent
    assert response.content_type == "text/html; charset=utf-8"
    assert isinstance(response.body, bytes)
    assert b"Redirecting" in response.body
    assert b"<script>" not in response.body


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_statuses(status: int) -> None:
    assert redirect("/", status).status == status


@pytest.mark.parametrize("status", [200, 300, 304, 305, 306, 404])
def test_redirect_refuses_other_statuses(status: int) -> None:
    with pytest.raises(ValueError, match="redirect status"):
        redirect("/", status)


def test_redirect_refuses_lone_surrogates() -> None:
    with pytest.raises(UnicodeEncodeError, match="surrogate"):
        redirect("/\ud800")


def test_redirect_to_a_long_non_ascii_host_skips_idna(monkeypatch: pytest.MonkeyPatch) -> None:
    # SECURITY: punycode is quadratic in the label length; 4,000 distinct CJK characters
    # took seconds. No label longer than RFC 1035's 63 octets may reach the codec.
    labels: list[int] = []
    real = encodings.idna.ToASCII

    def spy(label: str) -> bytes:
        labels.append(len(label))
        return real(label)

    monkeypatch.setattr(encodings.idna, "ToASCII", spy)
    host = "".join(map(chr, range(0x4E00, 0x4E00 + 4000)))
    sent = redirect(f"http://{host}/path").headers["location"]
    assert sent == "http://" + quote(host) + "/path"
    assert all(length <= 63 for length in labels)
    # A host within the limits is still encoded by IDNA.
    assert redirect("http://例え.テスト/").headers["location"] == "http://xn--r8jz45g.xn--zckzah/"
    assert labels


@given(location=st.text())
def test_any_redirect_target_is_safe(location: str) -> None:
    try:
        response = redirect(location)
    except ValueError:
        return
    sent = response.headers["location"]
    assert sent.isascii()
    assert not any(char in sent for char in "\r\n\x00\t\\ ")
    # Escapes can never make a path-absolute target scheme-relative.
    if location.startswith("/") and not location.startswith("//"):
        assert not sent.startswith("//")


def stored_body(response: Response) -> object:
    # Read through a call: after ``response.body = "text"`` a type checker
    # takes the attribute for the str assigned, not the bytes stored.
    return response.body
