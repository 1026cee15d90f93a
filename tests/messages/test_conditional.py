"""Tests for make_conditional: preconditions, ranges and their answers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from sansio_http import FileBody, FileRegion, Headers, Response, make_conditional
from sansio_http.http import DEFAULT_MAX_RANGES
from sansio_http.messages._conditional import NOT_MODIFIED_HEADERS
from sansio_http.messages._request import Request

BODY = b"0123456789"
ETAG = '"v1"'
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
EARLIER = "Tue, 20 Oct 2015 07:28:00 GMT"
LATER = "Thu, 22 Oct 2015 07:28:00 GMT"


@dataclass
class Head:
    """The two things make_conditional reads from a request."""

    method: str
    headers: Headers


def request(method: str = "GET", **fields: str) -> Head:
    return Head(
        method, Headers([(name.replace("_", "-"), value) for name, value in fields.items()])
    )


def response(
    body: bytes | FileBody = BODY,
    *,
    status: int = 200,
    etag: str | None = ETAG,
    last_modified: str | None = LAST_MODIFIED,
    **extra: str,
) -> Response:
    headers = {"Content-Type": "text/plain"}
    if etag is not None:
        headers["ETag"] = etag
    if last_modified is not None:
        headers["Last-Modified"] = last_modified
    headers.update({name.replace("_", "-"): value for name, value in extra.items()})
    return Response(body, status, headers)


def materialize(body: object, data: bytes = BODY) -> bytes:
    """Return the bytes an adapter would send for ``body``, ``data`` being the file."""
    if isinstance(body, bytes):
        return body
    assert isinstance(body, FileBody)
    out = bytearray()
    for segment in body.segments:
        if isinstance(segment, bytes):
            out += segment
        else:
            end = None if segment.length is None else segment.offset + segment.length
            out += data[segment.offset : end]
    return bytes(out)


def parse_byteranges(answer: Response, data: bytes = BODY) -> list[tuple[str, bytes]]:
    """Split a multipart/byteranges answer into (Content-Range, content) parts."""
    match = re.fullmatch(r"multipart/byteranges; boundary=(\w+)", answer.headers["content-type"])
    assert match is not None
    boundary = match.group(1).encode()
    payload = materialize(answer.body, data)
    assert payload.startswith(b"--" + boundary + b"\r\n")
    assert payload.endswith(b"\r\n--" + boundary + b"--\r\n")
    chunks = payload[: -len(boundary) - 8].split(b"--" + boundary + b"\r\n")[1:]
    parts = []
    for index, chunk in enumerate(chunks):
        head, content = chunk.split(b"\r\n\r\n", 1)
        if index < len(chunks) - 1:
            assert content.endswith(b"\r\n")
            content = content[:-2]
        fields = dict(line.split(": ", 1) for line in head.decode("latin-1").split("\r\n"))
        parts.append((fields["Content-Range"], content))
    return parts


# -- which responses are looked at --------------------------------------------


@pytest.mark.parametrize("status", [201, 204, 301, 404, 500])
def test_only_200_answers_ranges(status: int) -> None:
    # A 204 has no content to take a range of (RFC 9110 §15.3.5).
    original = response(b"" if status == 204 else BODY, status=status)
    assert make_conditional(original, request(range="bytes=0-1")) is original


@pytest.mark.parametrize("status", [301, 404, 500])
def test_non_2xx_ignores_preconditions(status: int) -> None:
    original = response(status=status)
    assert make_conditional(original, request(if_none_match="*", if_match='"x"')) is original


def test_precondition_applies_to_other_2xx() -> None:
    assert make_conditional(response(status=201), request("PUT", if_match='"x"')).status == 412


def test_input_response_is_not_changed() -> None:
    original = response()
    before = original.headers.items()
    make_conditional(original, request(range="bytes=0-1"))
    make_conditional(original, request(if_none_match=ETAG))
    assert original.headers.items() == before
    assert original.status == 200
    assert original.body == BODY


# -- If-Match and If-Unmodified-Since ------------------------------------------


@pytest.mark.parametrize(
    ("if_match", "etag", "status"),
    [
        ('"v1"', ETAG, 200),
        ('"v0", "v1"', ETAG, 200),
        ("*", ETAG, 200),
        ("*", None, 200),
        ('"v2"', ETAG, 412),
        ('W/"v1"', ETAG, 412),
        ('"v1"', 'W/"v1"', 412),
        ('"v1"', None, 412),
        ("garbage", ETAG, 412),
    ],
)
def test_if_match_is_a_strong_comparison(if_match: str, etag: str | None, status: int) -> None:
    answer = make_conditional(response(etag=etag), request("PUT", if_match=if_match))
    assert answer.status == status


def test_blank_if_match_is_ignored() -> None:
    assert make_conditional(response(), request("PUT", if_match="  ")).status == 200


def test_if_match_spread_over_fields_is_joined() -> None:
    head = Head("PUT", Headers([("if-match", '"v0"'), ("if-match", '"v1"')]))
    assert make_conditional(response(), head).status == 200


@pytest.mark.parametrize(
    ("since", "status"),
    [(EARLIER, 412), (LAST_MODIFIED, 200), (LATER, 200), ("not a date", 200)],
)
def test_if_unmodified_since(since: str, status: int) -> None:
    assert make_conditional(response(), request("PUT", if_unmodified_since=since)).status == status


def test_if_unmodified_since_without_last_modified_is_ignored() -> None:
    answer = make_conditional(response(last_modified=None), request(if_unmodified_since=EARLIER))
    assert answer.status == 200


def test_if_match_takes_precedence_over_if_unmodified_since() -> None:
    head = request("PUT", if_match=ETAG, if_unmodified_since=EARLIER)
    assert make_conditional(response(), head).status == 200


def test_412_keeps_validators_and_has_an_empty_body() -> None:
    original = response(X_Custom="1", Content_Type="image/png")
    answer = make_conditional(original, request("PUT", if_match='"v2"'))
    assert answer.status == 412
    assert answer.body == b""
    assert answer.headers["etag"] == ETAG
    assert answer.headers["content-length"] == "0"
    assert "x-custom" not in answer.headers
    # The type of the empty body, not the representation's (wsgiref.validate wants one).
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"


# -- If-None-Match and If-Modified-Since ---------------------------------------


@pytest.mark.parametrize(
    ("if_none_match", "etag", "status"),
    [
        ('"v1"', ETAG, 304),
        ('W/"v1"', ETAG, 304),
        ('"v1"', 'W/"v1"', 304),
        ('"v0", W/"v1"', ETAG, 304),
        ("*", ETAG, 304),
        ("*", None, 304),
        ('"v2"', ETAG, 200),
        ('"v1"', None, 200),
        ("garbage", ETAG, 200),
    ],
)
def test_if_none_match_is_a_weak_comparison(
    if_none_match: str, etag: str | None, status: int
) -> None:
    answer = make_conditional(response(etag=etag), request(if_none_match=if_none_match))
    assert answer.status == status


@pytest.mark.parametrize(("method", "status"), [("HEAD", 304), ("POST", 412), ("DELETE", 412)])
def test_if_none_match_on_other_methods_fails_with_412(method: str, status: int) -> None:
    assert make_conditional(response(), request(method, if_none_match=ETAG)).status == status


@pytest.mark.parametrize(
    ("since", "status"),
    [(LAST_MODIFIED, 304), (LATER, 304), (EARLIER, 200), ("yesterday", 200)],
)
def test_if_modified_since(since: str, status: int) -> None:
    assert make_conditional(response(), request(if_modified_since=since)).status == status


def test_if_modified_since_is_for_get_and_head_only() -> None:
    head = request("POST", if_modified_since=LATER)
    original = response()
    assert make_conditional(original, head) is original


def test_if_modified_since_without_last_modified_is_ignored() -> None:
    answer = make_conditional(response(last_modified=None), request(if_modified_since=LATER))
    assert answer.status == 200


def test_if_none_match_takes_precedence_over_if_modified_since() -> None:
    head = request(if_none_match='"v2"', if_modified_since=LATER)
    assert make_conditional(response(), head).status == 200


def test_precondition_failure_comes_before_not_modified() -> None:
    head = request(if_match='"v2"', if_none_match=ETAG)
    assert make_conditional(response(), head).status == 412


def test_not_modified_comes_before_range() -> None:
    answer = make_conditional(response(), request(if_none_match=ETAG, range="bytes=0-1"))
    assert answer.status == 304


def test_304_keeps_only_the_allowed_headers() -> None:
    original = response(
        Cache_Control="max-age=60",
        Content_Location="/doc.txt",
        Date=LATER,
        Expires=LATER,
        Vary="Accept-Encoding",
        Set_Cookie="session=1",
        Content_Language="en",
        Content_Length="10",
        X_Custom="1",
    )
    answer = make_conditional(original, request(if_none_match=ETAG))
    assert answer.status == 304
    assert answer.body == b""
    assert {name for name, _ in answer.headers.items()} == NOT_MODIFIED_HEADERS
    assert answer.headers["etag"] == ETAG
    assert answer.headers["last-modified"] == LAST_MODIFIED
    assert answer.headers["set-cookie"] == "session=1"


def test_304_answers_a_file_body_without_a_body() -> None:
    answer = make_conditional(response(FileBody("f", length=10)), request(if_none_match=ETAG))
    assert answer.status == 304
    assert answer.body == b""


# -- Range ----------------------------------------------------------------------


def test_range_capable_200_says_so() -> None:
    answer = make_conditional(response(), request())
    assert answer.status == 200
    assert answer.body == BODY
    assert answer.headers["accept-ranges"] == "bytes"
    assert answer.headers["content-length"] == "10"


def test_already_range_capable_response_is_returned_as_is() -> None:
    original = response(Accept_Ranges="bytes", Content_Length="10")
    assert make_conditional(original, request()) is original


@pytest.mark.parametrize(
    ("header", "content_range", "content"),
    [
        ("bytes=2-4", "bytes 2-4/10", b"234"),
        ("bytes=0-0", "bytes 0-0/10", b"0"),
        ("bytes=7-", "bytes 7-9/10", b"789"),
        ("bytes=-3", "bytes 7-9/10", b"789"),
        ("bytes=-30", "bytes 0-9/10", BODY),
        ("bytes=5-100", "bytes 5-9/10", b"56789"),
        ("bytes=0-", "bytes 0-9/10", BODY),
        ("bytes=20-30, 3-3", "bytes 3-3/10", b"3"),
    ],
)
def test_single_range(header: str, content_range: str, content: bytes) -> None:
    answer = make_conditional(response(), request(range=header))
    assert answer.status == 206
    assert answer.body == content
    assert answer.headers["content-range"] == content_range
    assert answer.headers["content-length"] == str(len(content))
    assert answer.headers["content-type"] == "text/plain"
    assert answer.headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize("header", ["bytes=2-4", "bytes=0-1, 5-6", "bytes=20-30", "bytes=x"])
@pytest.mark.parametrize("body", [BODY, FileBody("/srv/f.txt", length=10)], ids=["bytes", "file"])
def test_head_ignores_range(header: str, body: bytes | FileBody) -> None:
    # RFC 9110 §14.2: GET is the only method with range handling; a HEAD gets
    # the fields of the 200 a GET without Range gets, never a 206 or a 416.
    original = response(body)
    answer = make_conditional(original, request("HEAD", range=header))
    plain = make_conditional(original, request("HEAD"))
    assert answer.status == 200
    assert answer.body is body
    assert list(answer.headers.items()) == list(plain.headers.items())
    assert answer.headers["content-length"] == "10"
    assert answer.headers["accept-ranges"] == "bytes"


def test_single_range_of_a_file_reads_only_that_region() -> None:
    answer = make_conditional(
        response(FileBody("/srv/f.txt", offset=100, length=10)), request(range="bytes=2-4")
    )
    assert answer.status == 206
    assert answer.body == FileBody("/srv/f.txt", offset=102, length=3)
    assert answer.headers["content-range"] == "bytes 2-4/10"
    assert answer.headers["content-length"] == "3"


def test_several_ranges_give_multipart_byteranges() -> None:
    answer = make_conditional(response(), request(range="bytes=0-1, 5-6, -1"))
    assert answer.status == 206
    assert parse_byteranges(answer) == [
        ("bytes 0-1/10", b"01"),
        ("bytes 5-6/10", b"56"),
        ("bytes 9-9/10", b"9"),
    ]
    assert isinstance(answer.body, bytes)
    assert answer.headers["content-length"] == str(len(answer.body))
    assert b"Content-Type: text/plain\r\n" in answer.body


def test_several_ranges_of_a_file_give_regions_and_literal_parts() -> None:
    data = b"#" * 100 + BODY
    answer = make_conditional(
        response(FileBody("f", offset=100, length=10)), request(range="bytes=0-1,5-6")
    )
    assert isinstance(answer.body, FileBody)
    assert [s for s in answer.body.segments if isinstance(s, FileRegion)] == [
        FileRegion(100, 2),
        FileRegion(105, 2),
    ]
    assert parse_byteranges(answer, data) == [("bytes 0-1/10", b"01"), ("bytes 5-6/10", b"56")]
    assert answer.headers["content-length"] == str(answer.body.content_length)


def test_multipart_parts_have_no_type_when_the_response_has_none() -> None:
    original = Response(BODY, 200, {"ETag": ETAG})
    original.headers.remove("content-type")
    answer = make_conditional(original, request(range="bytes=0-1,5-6"))
    assert isinstance(answer.body, bytes)
    assert b"Content-Type" not in answer.body
    assert parse_byteranges(answer) == [("bytes 0-1/10", b"01"), ("bytes 5-6/10", b"56")]


def test_multipart_boundary_never_occurs_in_a_bytes_body() -> None:
    head = request(range="bytes=0-1,5-6")
    first = make_conditional(response(b"." * 100), head)
    boundary = first.headers["content-type"].split("boundary=")[1].encode()
    # The same validators, length and ranges, with the first boundary inside.
    crafted = (b"--" + boundary).ljust(100, b".")
    answer = make_conditional(response(crafted), head)
    assert boundary not in answer.headers["content-type"].encode()
    assert parse_byteranges(answer, crafted) == [
        ("bytes 0-1/100", crafted[0:2]),
        ("bytes 5-6/100", crafted[5:7]),
    ]


def test_multipart_answer_is_the_same_every_time() -> None:
    head = request(range="bytes=0-1,5-6")
    assert make_conditional(response(), head).body == make_conditional(response(), head).body


@pytest.mark.parametrize(
    ("header", "content_range", "content"),
    [
        ("bytes=0-4,3-6", "bytes 0-6/10", b"0123456"),
        ("bytes=5-6,0-1,2-4", "bytes 0-6/10", b"0123456"),
    ],
)
def test_ranges_that_touch_or_overlap_within_the_length_are_merged(
    header: str, content_range: str, content: bytes
) -> None:
    # RFC 9110 §14.2 lets a server coalesce them; one part is simpler for the client.
    answer = make_conditional(response(), request(range=header))
    assert (answer.status, answer.body) == (206, content)
    assert answer.headers["content-range"] == content_range


def test_several_ranges_are_sent_in_order() -> None:
    answer = make_conditional(response(), request(range="bytes=8-,0-1"))
    assert parse_byteranges(answer) == [("bytes 0-1/10", b"01"), ("bytes 8-9/10", b"89")]


@pytest.mark.parametrize(
    "header",
    ["bytes=0-,0-", "bytes=0-5,1-6", "bytes=-10,-10", ", ".join(["bytes=0-9"] + ["0-9"] * 50)],
)
def test_overlapping_ranges_beyond_the_length_get_the_full_body(header: str) -> None:
    answer = make_conditional(response(), request(range=header))
    assert answer.status == 200
    assert answer.body == BODY


def test_too_many_ranges_get_the_full_body() -> None:
    header = "bytes=" + ",".join(f"{i}-{i}" for i in range(DEFAULT_MAX_RANGES + 1))
    long_body = bytes(DEFAULT_MAX_RANGES * 2)
    assert make_conditional(response(long_body), request(range=header)).status == 200
    allowed = "bytes=" + ",".join(f"{i}-{i}" for i in range(DEFAULT_MAX_RANGES))
    assert make_conditional(response(long_body), request(range=allowed)).status == 206


def test_max_ranges_is_a_parameter() -> None:
    head = request(range="bytes=0-1,3-4")
    assert make_conditional(response(), head, max_ranges=1).status == 200
    assert make_conditional(response(), head, max_ranges=2).status == 206


@pytest.mark.parametrize("header", ["bytes=10-", "bytes=10-20", "bytes=-0", "bytes=10-,20-"])
def test_unsatisfiable_range_is_416(header: str) -> None:
    answer = make_conditional(
        response(X_Custom="1", Content_Type="image/png"), request(range=header)
    )
    assert answer.status == 416
    assert answer.body == b""
    assert answer.headers["content-range"] == "bytes */10"
    assert answer.headers["content-length"] == "0"
    assert answer.headers["etag"] == ETAG
    assert "x-custom" not in answer.headers
    # The type of the empty body, not the representation's (wsgiref.validate wants one).
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"


@pytest.mark.parametrize(
    "header", ["bytes=", "bytes=a-b", "bytes=5-2", "items=0-1", "0-1", "bytes=--1", ""]
)
def test_malformed_or_foreign_range_gets_the_full_body(header: str) -> None:
    answer = make_conditional(response(), request(range=header))
    assert answer.status == 200
    assert answer.body == BODY
    assert answer.headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize("header", ["bytes=0-", "bytes=-1", "bytes=5-9"])
def test_empty_body_gets_200(header: str) -> None:
    answer = make_conditional(response(b""), request(range=header))
    assert answer.status == 200
    assert answer.body == b""
    assert answer.headers["content-length"] == "0"


@pytest.mark.parametrize("method", ["POST", "PUT", "OPTIONS"])
def test_other_methods_get_no_range(method: str) -> None:
    original = response()
    assert make_conditional(original, request(method, range="bytes=0-1")) is original


def test_streamed_bodies_get_no_range() -> None:
    original = Response(iter([b"01234", b"56789"]), 200, {"ETag": ETAG})
    assert make_conditional(original, request(range="bytes=0-1")) is original


def test_file_body_of_unknown_length_gets_no_range() -> None:
    original = response(FileBody("f"))
    assert make_conditional(original, request(range="bytes=0-1")) is original


def test_response_with_content_range_is_left_alone() -> None:
    original = response(Content_Range="bytes 0-9/20")
    assert make_conditional(original, request(range="bytes=0-1")) is original


def test_accept_ranges_none_disables_ranges() -> None:
    original = response(Accept_Ranges="None")
    assert make_conditional(original, request(range="bytes=0-1")) is original


# -- If-Range ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("if_range", "etag", "status"),
    [
        (ETAG, ETAG, 206),
        (LAST_MODIFIED, ETAG, 206),
        ('"v0"', ETAG, 200),
        ('W/"v1"', ETAG, 200),
        ('"v1"', 'W/"v1"', 200),
        ('"v1"', None, 200),
        (EARLIER, ETAG, 200),
        (LATER, ETAG, 200),
        ("garbage", ETAG, 200),
        ("", ETAG, 200),
    ],
)
def test_if_range(if_range: str, etag: str | None, status: int) -> None:
    answer = make_conditional(response(etag=etag), request(range="bytes=0-1", if_range=if_range))
    assert answer.status == status
    assert answer.body == (b"01" if status == 206 else BODY)


def test_if_range_date_without_last_modified_never_holds() -> None:
    head = request(range="bytes=0-1", if_range=LAST_MODIFIED)
    assert make_conditional(response(last_modified=None), head).status == 200


def test_if_range_without_range_changes_nothing() -> None:
    assert make_conditional(response(), request(if_range='"v0"')).status == 200


def test_a_real_request_works_too() -> None:
    real = Request("GET", "/f", b"", [("range", "bytes=1-2")], "http", None, "")
    answer = make_conditional(response(), real)
    assert (answer.status, answer.body) == (206, b"12")


# -- bad input never breaks it ----------------------------------------------------


PRINTABLE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=30)
VALIDATORS = st.sampled_from(
    [ETAG, 'W/"v1"', '"v2"', "*", '"v1", "v2"', "", LAST_MODIFIED, EARLIER, LATER]
)
POSITION = st.one_of(st.integers(min_value=0, max_value=16).map(str), st.just(""))
RANGE = st.one_of(
    st.lists(st.tuples(POSITION, POSITION).map("-".join), min_size=1, max_size=5).map(
        lambda specs: "bytes=" + ",".join(specs)
    ),
    PRINTABLE,
)


def sometimes(values: st.SearchStrategy[str]) -> st.SearchStrategy[str | None]:
    """Mostly absent, so that the later rules (Range above all) are reached often."""
    return st.one_of(st.none(), st.none(), st.none(), st.none(), values, PRINTABLE)


CONDITIONS = {
    "if-match": sometimes(VALIDATORS),
    "if-none-match": sometimes(VALIDATORS),
    "if-modified-since": sometimes(VALIDATORS),
    "if-unmodified-since": sometimes(VALIDATORS),
    "if-range": sometimes(VALIDATORS),
    "range": st.one_of(st.none(), RANGE, RANGE),
}


@settings(max_examples=300)
@given(
    method=st.sampled_from(["GET", "HEAD", "POST", "PUT"]),
    conditions=st.fixed_dictionaries(CONDITIONS),
    size=st.integers(min_value=0, max_value=14),
    as_file=st.booleans(),
    weak=st.booleans(),
)
def test_any_headers_give_a_consistent_answer(
    method: str, conditions: dict[str, str | None], size: int, as_file: bool, weak: bool
) -> None:
    fields = [(name, value) for name, value in conditions.items() if value is not None]
    data = bytes(range(65, 65 + size))
    file_data = b"@" * 7 + data
    body: bytes | FileBody = FileBody("f", offset=7, length=size) if as_file else data
    original = response(body, etag='W/"v1"' if weak else ETAG)
    answer = make_conditional(original, Head(method, Headers(fields)))
    assert answer.status in {200, 206, 304, 412, 416}
    event(f"status {answer.status}")
    sent = materialize(answer.body, file_data)
    if answer.status == 304:
        assert sent == b""
        assert "content-length" not in answer.headers
        return
    assert answer.headers["content-length"] == str(len(sent))
    if answer.status in {412, 416}:
        assert sent == b""
        assert ("content-range" in answer.headers) is (answer.status == 416)
        return
    if answer.status == 200:
        assert sent == data
        assert "content-range" not in answer.headers
        return
    assert method in {"GET", "HEAD"}
    if answer.headers["content-type"].startswith("multipart/byteranges"):
        parts = parse_byteranges(answer, file_data)
        assert len(parts) > 1
        assert sum(len(content) for _, content in parts) <= size
    else:
        parts = [(answer.headers["content-range"], sent)]
    for content_range, content in parts:
        match = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", content_range)
        assert match is not None
        first, last, total = map(int, match.groups())
        assert total == size
        assert content == data[first : last + 1]


# -- the original's work after the response ------------------------------------------


def test_the_answer_carries_the_work_and_closes_a_replaced_stream() -> None:
    seen: list[str] = []

    class Body:
        def __iter__(self) -> Iterator[bytes]:
            yield b"x"

        def close(self) -> None:
            seen.append("closed")

    original = response(Body())  # type: ignore[arg-type]
    original.call_on_close(lambda: seen.append("work"))
    answer = make_conditional(original, request(if_none_match=ETAG))
    assert answer.status == 304
    for func in answer._close_work:
        func()
        func()  # run twice by mistake: the body is still closed once
    assert seen == ["closed", "work", "work"]
