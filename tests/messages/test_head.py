"""The request-head checks every adapter applies: targets, Host, framing, limits."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import HeadLimits, check_head
from sansio_http.messages._errors import (
    BadRequest,
    HTTPError,
    NotImplemented,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestURITooLong,
)
from sansio_http.messages._head import check_framing, check_target
from sansio_http.messages._length import TOO_LARGE, parse_content_length
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.server import Config

Fields = list[tuple[bytes, bytes]]
HOST: Fields = [(b"host", b"example.com")]


def check(
    target: bytes = b"/",
    fields: Fields | None = None,
    *,
    method: str = "GET",
    path: str | None = None,
    version: str = "1.1",
    limits: HeadLimits | None = None,
) -> Response | None:
    if path is None:
        path = target.partition(b"?")[0].decode("latin-1")
    return check_head(
        method, target, path, version, HOST if fields is None else fields, limits or HeadLimits()
    )


def refusal(**kwargs: object) -> HTTPError:
    with pytest.raises(HTTPError) as info:
        check(**kwargs)  # type: ignore[arg-type]
    return info.value


def test_the_limits_are_the_development_servers() -> None:
    limits, config = HeadLimits(), Config()
    assert (limits.max_target_size, limits.max_header_count, limits.max_header_size) == (
        config.max_target_size,
        config.max_header_count,
        config.max_header_size,
    )


def test_an_ordinary_request_passes() -> None:
    # sec-fetch-dest and x-forwarded-proto have the lengths of the names
    # checked (content-length, transfer-encoding) without being them.
    fields = [
        *HOST,
        (b"accept", b"*/*"),
        (b"sec-fetch-dest", b"document"),
        (b"x-forwarded-proto", b"https"),
        (b"content-length", b"3"),
    ]
    assert check(b"/a/b?c=d", fields, method="POST") is None


# -- request targets (RFC 9112 §3.2) -------------------------------------------------


@pytest.mark.parametrize(
    ("target", "path"),
    [
        (b"url", "url"),
        (b"a:b", "a:b"),
        (b"%2Fetc", "/etc"),  # decoded, it would look like a path
        (b"", ""),
        (b"ftp://example.com/x", "/x"),
    ],
)
def test_a_target_of_no_allowed_form_is_400(target: bytes, path: str) -> None:
    error = refusal(target=target, path=path)
    assert isinstance(error, BadRequest)
    assert error.status == 400


def test_a_double_slash_path_is_a_path() -> None:
    # Origin-form: "//x" is an absolute path whose first segment is empty.
    assert check(b"//example.com/x") is None


@pytest.mark.parametrize("path", ["url", "http://example.com/p", "*"])
def test_a_path_without_a_leading_slash_is_never_repaired(path: str) -> None:
    # uvicorn's h11 mode hands "GET url" and absolute-form targets over as the
    # path; routed as "/url", they would reach a handler.
    error = refusal(target=b"/p", path=path)
    assert error.status == 400
    assert error.detail == "The request path must start with /"


def test_an_empty_path_is_the_mount_root() -> None:
    # PEP 3333: PATH_INFO is empty for a request to SCRIPT_NAME itself.
    assert check(b"/app", path="") is None


def test_options_asterisk_is_answered_without_the_application() -> None:
    response = check(b"*", method="OPTIONS")
    assert response is not None
    assert (response.status, response.body) == (204, b"")


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_asterisk_is_only_for_options(method: str) -> None:
    assert refusal(target=b"*", method=method).status == 400


def test_connect_is_not_implemented() -> None:
    error = refusal(target=b"example.com:443", method="CONNECT")
    assert isinstance(error, NotImplemented)


@pytest.mark.parametrize("target", [b"http://example.com/p?q", b"HTTPS://Example.COM/p"])
def test_absolute_form_with_the_host_of_its_authority_passes(target: bytes) -> None:
    assert check(target, path="/p") is None


@pytest.mark.parametrize(
    ("target", "host"),
    [
        (b"http://other.example/p", b"example.com"),
        (b"http://example.com:8080/p", b"example.com"),
        (b"http://example.com/p", None),
    ],
)
def test_absolute_form_naming_another_host_is_400(target: bytes, host: bytes | None) -> None:
    fields = [] if host is None else [(b"host", host)]
    error = refusal(target=target, path="/p", fields=fields, version="1.0")
    assert error.detail == "The request target's authority does not match the Host header"


@pytest.mark.parametrize(
    ("target", "detail"),
    [
        # RFC 9110 §4.2.4: userinfo in an http(s) URI is an error.
        (b"http://user@example.com/p", "userinfo in the request target"),
        (b"http://example.com/a b", "a request target starts with '/' or 'http://'"),
        (b"ftp://example.com/p", "only http and https URIs are served"),
        (b"http:///p", "the request target has no host"),
    ],
)
def test_absolute_form_is_checked_against_the_uri_grammar(target: bytes, detail: str) -> None:
    error = refusal(target=target, path="/p", fields=[(b"host", b"example.com")])
    assert error.status == 400
    assert error.detail == detail


def test_a_target_past_the_limit_is_414() -> None:
    limits = HeadLimits(max_target_size=20)
    assert check(b"/" + b"a" * 19, limits=limits) is None
    error = refusal(target=b"/" + b"a" * 20, limits=limits)
    assert isinstance(error, RequestURITooLong)


# -- Host (RFC 9112 §3.2) --------------------------------------------------------------


def test_http_11_without_host_is_400() -> None:
    assert refusal(fields=[]).detail == "An HTTP/1.1 request needs a Host header"


@pytest.mark.parametrize("version", ["1.0", "2", "3"])
def test_other_versions_may_omit_host(version: str) -> None:
    assert check(fields=[], version=version) is None


@pytest.mark.parametrize("version", ["1.0", "1.1", "2"])
def test_two_host_fields_are_400(version: str) -> None:
    fields = [(b"host", b"a.example"), (b"Host", b"b.example")]
    assert refusal(fields=fields, version=version).detail == "More than one Host header"


# -- framing (RFC 9112 §6.3) -----------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        [(b"content-length", b"3"), (b"transfer-encoding", b"chunked")],
        [(b"Transfer-Encoding", b"chunked"), (b"Content-Length", b"0")],
        [(b"TRANSFER-ENCODING", b"gzip, chunked"), (b"content-length", b"10")],
    ],
)
def test_content_length_with_transfer_encoding_is_400_and_closes(fields: Fields) -> None:
    error = refusal(fields=[*HOST, *fields], method="POST")
    assert error.status == 400
    assert error.headers == {"Connection": "close"}


def test_transfer_encoding_alone_passes() -> None:
    assert check(fields=[*HOST, (b"transfer-encoding", b"chunked")], method="POST") is None


@pytest.mark.parametrize("value", [b"-1", b"abc", b"1,2", b"", b"0x10", b"\xb2", b"1 2"])
def test_an_invalid_content_length_is_400_and_closes(value: bytes) -> None:
    error = refusal(fields=[*HOST, (b"content-length", value)], method="POST")
    assert error.status == 400
    assert error.headers == {"Connection": "close"}


def test_conflicting_content_lengths_are_400() -> None:
    fields = [*HOST, (b"content-length", b"1"), (b"content-length", b"2")]
    assert refusal(fields=fields).detail == "Conflicting Content-Length values"


@pytest.mark.parametrize("value", [b"9223372036854775808", b"9" * 20, b"1" * 5000])
def test_a_content_length_no_body_can_have_is_413(value: bytes) -> None:
    error = refusal(fields=[*HOST, (b"content-length", value)], method="POST")
    assert isinstance(error, RequestEntityTooLarge)


# -- header count and size --------------------------------------------------------------


def test_more_fields_than_the_limit_is_431() -> None:
    limits = HeadLimits(max_header_count=3)
    fields = [*HOST, (b"a", b"1"), (b"b", b"2")]
    assert check(fields=fields, limits=limits) is None
    error = refusal(fields=[*fields, (b"c", b"3")], limits=limits)
    assert isinstance(error, RequestHeaderFieldsTooLarge)


def head_size(method: str, target: bytes, fields: Fields) -> int:
    """The size of the head as sent on the wire, CRLFs included."""
    line = b"%s %s HTTP/1.1\r\n" % (method.encode(), target)
    return len(line) + sum(len(b"%s: %s\r\n" % field) for field in fields)


@given(
    fields=st.lists(
        st.tuples(
            st.sampled_from([b"accept", b"cookie", b"x-a", b"user-agent"]),
            st.binary(max_size=300),
        ),
        max_size=12,
    ),
    limit=st.integers(min_value=0, max_value=3000),
)
def test_the_size_limit_counts_the_head_as_sent(fields: Fields, limit: int) -> None:
    limits = HeadLimits(max_header_size=limit)
    fields = [*HOST, *fields]
    too_large = head_size("GET", b"/x", fields) > limit
    try:
        check(b"/x", fields, limits=limits)
    except RequestHeaderFieldsTooLarge:
        assert too_large
    else:
        assert not too_large


# -- the properties of the whole --------------------------------------------------------

methods = st.sampled_from(["GET", "POST", "OPTIONS", "CONNECT", "PUT"])
targets = st.one_of(
    st.binary(max_size=30),
    st.builds(lambda rest: b"/" + rest, st.binary(max_size=30)),
    st.sampled_from([b"*", b"http://example.com/p", b"example.com:443"]),
)
paths = st.one_of(st.text(max_size=20), st.builds(lambda rest: "/" + rest, st.text(max_size=20)))
field_lists = st.lists(
    st.tuples(
        st.sampled_from(
            [b"host", b"Host", b"content-length", b"Transfer-Encoding", b"accept", b"x"]
        ),
        st.sampled_from([b"example.com", b"0", b"12", b"chunked", b"-1", b""]),
    ),
    max_size=6,
)


@given(
    method=methods,
    target=targets,
    path=paths,
    fields=field_lists,
    version=st.sampled_from(["1.0", "1.1", "2"]),
)
def test_what_passes_is_one_of_the_allowed_forms(
    method: str, target: bytes, path: str, fields: Fields, version: str
) -> None:
    try:
        response = check_head(method, target, path, version, fields, HeadLimits())
    except HTTPError as exc:
        status = exc.status
    else:
        status = 0
    if status:
        assert status in (400, 413, 414, 431, 501)
        return
    names = [name.lower() for name, _ in fields]
    if response is not None:
        assert (method, target) == ("OPTIONS", b"*")
        return
    # Never a path the application could route without it being one.
    assert path == "" or path.startswith("/")
    assert target.startswith(b"/") or re.match(rb"(?i)https?://", target)
    assert method != "CONNECT"
    assert names.count(b"host") <= 1
    assert version != "1.1" or b"host" in names
    assert not (b"content-length" in names and b"transfer-encoding" in names)


# -- Content-Length -------------------------------------------------------------------


@given(
    number=st.integers(min_value=0, max_value=2**70),
    zeros=st.integers(min_value=0, max_value=3),
    copies=st.integers(min_value=1, max_value=3),
    space=st.sampled_from(["", " ", "\t"]),
)
def test_content_length_reads_any_valid_value(
    number: int, zeros: int, copies: int, space: str
) -> None:
    item = space + "0" * zeros + str(number) + space
    assert parse_content_length([",".join([item] * copies)]) == min(number, TOO_LARGE)
    assert parse_content_length([item] * copies) == min(number, TOO_LARGE)


@given(value=st.text(max_size=12))
def test_content_length_is_a_number_or_400(value: str) -> None:
    items = [item.strip(" \t") for item in value.split(",")]
    valid = (
        all(item.isascii() and item.isdigit() for item in items)
        and len({int(item) for item in items if item.isascii() and item.isdigit()}) == 1
    )
    try:
        length = parse_content_length([value])
    except BadRequest:
        assert not valid
    else:
        assert valid
        assert length == int(items[0])


def test_no_content_length_is_none() -> None:
    assert parse_content_length([]) is None


def test_limits_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        HeadLimits().max_header_count = 1  # type: ignore[misc]


def test_a_query_kept_apart_counts_toward_the_target() -> None:
    # An ASGI scope holds the query apart from raw_path.
    limits = HeadLimits(max_target_size=10)
    assert check_head("GET", b"/abcd", "/abcd", "1.1", HOST, limits, b"q=12") is None
    with pytest.raises(RequestURITooLong):
        check_head("GET", b"/abcd", "/abcd", "1.1", HOST, limits, b"q=123")


def test_a_query_after_the_asterisk_is_not_the_asterisk_form() -> None:
    with pytest.raises(BadRequest):
        check_head("OPTIONS", b"*", "*", "1.1", HOST, HeadLimits(), b"x")
    assert check_head("GET", b"http://example.com/p", "/p", "1.1", HOST, HeadLimits(), b"q") is None


def test_the_rules_one_by_one() -> None:
    # The WSGI adapter calls them separately, with what an environ tells.
    limits = HeadLimits(max_target_size=4)
    with pytest.raises(RequestURITooLong):
        check_target("GET", b"/abcd", "/abcd", None, limits)
    assert check_target("GET", b"/abc", "/abc", None, limits) is None
    check_framing([], transfer_encoding=True)  # chunked alone: no ambiguity
    with pytest.raises(BadRequest):
        check_framing(["3"], transfer_encoding=True)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (HOST, None),
        ([*HOST, (b"Content-Length", b"12")], 12),
        ([*HOST, (b"content-length", b"7, 7"), (b"content-length", b"7")], 7),
    ],
)
def test_the_checked_length_becomes_the_requests(fields: Fields, expected: int | None) -> None:
    # The request's own headers say otherwise, so the value can only come from the check.
    request = Request("POST", "/", b"", [(b"content-length", b"999")], "http", None, "")
    assert check_head("POST", b"/", "/", "1.1", fields, HeadLimits(), request=request) is None
    assert request.content_length == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (HOST, None),
        ([*HOST, (b"Content-Type", b"application/json")], "application/json"),
        (
            [*HOST, (b"content-type", b"text/plain; charset=caf\xe9"), (b"CONTENT-TYPE", b"x/y")],
            "text/plain; charset=caf\xe9",
        ),
    ],
)
def test_the_first_content_type_becomes_the_requests(fields: Fields, expected: str | None) -> None:
    # As for the length, the request's own headers say otherwise: the value
    # comes from the check's pass over the fields, the first field as
    # latin-1 text, as Headers.get reads it.
    request = Request("POST", "/", b"", [(b"content-type", b"a/b")], "http", None, "")
    assert check_head("POST", b"/", "/", "1.1", fields, HeadLimits(), request=request) is None
    assert request.content_type == expected
    assert request.content_type == Request("GET", "/", b"", fields, "http", None, "").content_type


def test_a_refused_length_leaves_the_request_alone() -> None:
    request = Request("POST", "/", b"", [(b"content-length", b"5")], "http", None, "")
    with pytest.raises(BadRequest):
        check_head("POST", b"/", "/", "1.1", [*HOST, (b"content-length", b"x")], request=request)
    assert request.content_length == 5
