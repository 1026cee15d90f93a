"""The answer of the form decoders does not depend on how the body is cut into chunks.

Every body, valid or not, is fed whole, byte by byte and cut at random points (with empty
chunks in between), and each way gives the same fields and files, or the same error. A
decoder that answers differently depending on where a chunk ends lets a proxy that reads
the body one way and an application that reads it another see different forms.
"""

from __future__ import annotations

import io
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sansio_http.bodies._formdata import FormLimits
from sansio_http.bodies._forms import FormDecoder
from sansio_http.messages._errors import HTTPError

BOUNDARY = "B"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
URLENCODED = "application/x-www-form-urlencoded"

Outcome = tuple[str, object, object]


def outcome(
    chunks: list[bytes],
    content_type: str = MULTIPART,
    limits: FormLimits | None = None,
    content_length: int | None = None,
) -> Outcome:
    """Return the fields and files decoded, or the error: its class, status and detail."""
    try:
        decoder = FormDecoder(
            content_type, content_length=content_length, limits=limits, spool=io.BytesIO
        )
        for chunk in chunks:
            decoder.feed(chunk)
        form, files = decoder.close()
    except HTTPError as exc:
        return type(exc).__name__, exc.status, exc.detail
    uploads = [(n, f.filename, f.content_type, f.read()) for n, f in files.items(multi=True)]
    return "form", form.items(multi=True), uploads


def split(body: bytes, *at: int) -> list[bytes]:
    edges = [0, *at, len(body)]
    return [body[a:b] for a, b in pairwise(edges)]


def byte_by_byte(body: bytes) -> list[bytes]:
    return [body[i : i + 1] for i in range(len(body))]


# -- cases that used to depend on the chunking ------------------------------------------------


def test_bytes_before_the_first_boundary_are_judged_whatever_the_cut() -> None:
    # The first boundary must start the body or a line: here it follows "\x96\xc9". Cut
    # after 5 bytes, the skipped preamble used to be forgotten and the body accepted.
    body = b"ble\x96\xc9--B--"
    whole = outcome([body])
    assert whole[:2] == ("BadRequest", 400)
    for cut in range(len(body) + 1):
        assert outcome(split(body, cut)) == whole
    assert outcome(byte_by_byte(body)) == whole


def test_a_preamble_that_ends_with_a_crlf_is_skipped_whatever_the_cut() -> None:
    body = b"any preamble\r\n--B\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--B--"
    for cut in range(len(body) + 1):
        assert outcome(split(body, cut)) == ("form", [("a", "1")], [])


BARE_LF = b'--B\r\nContent-Disposition: form-data; name="abc\nde"\r\n\r\nv\r\n--B--\r\n'


def test_a_bare_lf_in_a_part_header_is_refused_whatever_the_cut() -> None:
    # Whole, multipart kept the LF in the name; cut after it (47 bytes), it refused the
    # line. Some readers end a header line at a bare LF: it is refused either way.
    assert BARE_LF.index(b"\n", 5) == 46
    whole = outcome([BARE_LF])
    assert whole == (
        "BadRequest",
        400,
        "The multipart body is malformed: a part header holds a CR or LF that does not end a line.",
    )
    for cut in range(len(BARE_LF) + 1):
        assert outcome(split(BARE_LF, cut)) == whole


@pytest.mark.parametrize(
    "section",
    [
        b"\nContent-Disposition: form-data; name=a\r\n",  # hidden by multipart's name strip
        b"Content-Disposition\r: form-data; name=a\r\n",
        b"Content-Disposition: form-data; name=a\r\nX-A: 1\r\r\n",
        b"Content-Disposition: form-data; name=a\n\r\n",
    ],
)
def test_a_bare_cr_or_lf_anywhere_in_a_part_header_is_refused(section: bytes) -> None:
    body = b"--B\r\n" + section + b"\r\nv\r\n--B--\r\n"
    whole = outcome([body])
    assert whole[:2] == ("BadRequest", 400)
    assert outcome(byte_by_byte(body)) == whole


LONG_CONTINUATION = b"--B\r\n " + b"x" * 40 + b"\r\n\r\nv\r\n--B--\r\n"


def test_an_overlong_part_header_is_a_413_whatever_the_cut() -> None:
    # Whole, multipart refused the continuation line without a header before it (400); cut
    # before its end, it refused the line as too long (413).
    limits = FormLimits(max_part_header_size=20)
    whole = outcome([LONG_CONTINUATION], limits=limits)
    assert whole[:2] == ("RequestEntityTooLarge", 413)
    assert "max_part_header_size" in str(whole[2])
    for cut in range(len(LONG_CONTINUATION) + 1):
        assert outcome(split(LONG_CONTINUATION, cut), limits=limits) == whole


def test_a_fault_before_max_content_length_wins_whatever_the_cut() -> None:
    # The part has no Content-Disposition (400) and the body breaks max_content_length
    # (413) later on: the fault comes first in the body, so it is the answer, also when
    # the whole body arrives in one chunk.
    body = b"--B\r\nX-A: 1\r\n\r\n" + b"v" * 50 + b"\r\n--B--\r\n"
    limits = FormLimits(max_content_length=40)
    whole = outcome([body], limits=limits)
    assert whole[:2] == ("BadRequest", 400)
    for cut in range(len(body) + 1):
        assert outcome(split(body, cut), limits=limits) == whole


def test_a_body_longer_than_its_content_length_decodes_up_to_it_first() -> None:
    body = b"--B\r\nX-A: 1\r\n\r\nv\r\n--B--\r\n"
    whole = outcome([body], content_length=20)
    assert whole[:2] == ("BadRequest", 400)
    assert "Content-Disposition" in str(whole[2])
    assert outcome([body[:20], body[20:]], content_length=20) == whole
    # Without a fault in the first 20 bytes, the length is the fault.
    valid = b"--B\r\nContent-Disposition: form-data; name=a\r\n\r\nv\r\n--B--\r\n"
    assert outcome([valid], content_length=20)[2] == "The body is longer than its Content-Length."


def test_a_field_declaring_more_than_the_memory_left_is_a_413_at_once() -> None:
    # multipart refuses content beyond a part's Content-Length (400) when it arrives; the
    # first bytes of that content could break max_form_memory_size (413) in one chunking
    # and not in another, so the declared length is weighed first.
    body = b"--B\r\nContent-Disposition: form-data; name=a\r\nContent-Length: 5\r\n\r\n"
    body += b"0123456789\r\n--B--\r\n"
    limits = FormLimits(max_form_memory_size=4)
    whole = outcome([body], limits=limits)
    assert whole[:2] == ("RequestEntityTooLarge", 413)
    for cut in range(len(body) + 1):
        assert outcome(split(body, cut), limits=limits) == whole
    # Within the memory left, the Content-Length itself is the fault.
    assert outcome([body], limits=FormLimits(max_form_memory_size=20))[:2] == ("BadRequest", 400)


def test_a_header_section_cut_anywhere_decodes_alike() -> None:
    body = (
        b"--B\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n"
        b'--B\r\nContent-Disposition: form-data; name="f"; filename="f.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nfile\r\n--B--\r\n"
    )
    expected = ("form", [("a", "1")], [("f", "f.txt", "text/plain", b"file")])
    for cut in range(len(body) + 1):
        assert outcome(split(body, cut)) == expected
        assert outcome(split(body, cut, min(cut + 3, len(body)))) == expected


def test_a_held_header_section_is_bounded() -> None:
    # A header section that never ends is held only up to max_part_header_size.
    decoder = FormDecoder(MULTIPART, limits=FormLimits(max_part_header_size=100))
    decoder.feed(b"--B\r\nContent-Disposition: form-data; name=a\r\n")
    for _ in range(7):  # 96 bytes of header lines so far
        decoder.feed(b"X-A: 1\r\n")
    with pytest.raises(HTTPError, match="max_part_header_size") as info:
        decoder.feed(b"X-A: 1\r\n")
    assert info.value.status == 413


# -- any body, any cut ------------------------------------------------------------------------

# Pieces that make header lines, delimiters and line breaks go wrong.
PIECES = [
    b"\r",
    b"\n",
    b"\r\n",
    b"\r\n\r\n",
    b"-",
    b"--B",
    b"\r\n--B",
    b"\r\n--B\r\n",
    b"\r\n--B--",
    b" ",
    b"\t",
    b'"',
    b";",
    b":",
    b"%",
    b"\xff",
    b"x",
    b"Content-Length: 3\r\n",
    b'Content-Disposition: form-data; name="z"\r\n',
    b"Content-Transfer-Encoding: base64\r\n",
    b"Content-Type: text/plain; charset=latin-1\r\n",
    b"; filename*=UTF-8''a%20b",
    b" folded\r\n",
]

names = st.sampled_from(["a", "b", "n%22", "é", ""])
contents = st.binary(max_size=12) | st.lists(st.sampled_from([b"a", b"\r\n", b"-", b"B"])).map(
    b"".join
)


@st.composite
def multipart_parts(draw: st.DrawFn) -> bytes:
    lines = [f'Content-Disposition: form-data; name="{draw(names)}"']
    if draw(st.booleans()):
        lines[0] += f'; filename="{draw(st.sampled_from(["f.txt", "", "a b"]))}"'
        if draw(st.booleans()):
            lines.append("Content-Type: text/plain")
    if draw(st.integers(0, 4)) == 0:
        lines.append(f"Content-Length: {draw(st.integers(0, 6))}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + draw(contents)


@st.composite
def multipart_bodies(draw: st.DrawFn) -> bytes:
    """A form, then a few edits: pieces inserted, bytes deleted, the end cut off."""
    parts = draw(st.lists(multipart_parts(), max_size=4))
    body = draw(st.sampled_from([b"", b"", b"preamble\r\n", b"ble\x96\xc9"]))
    body += b"".join(b"--B\r\n" + part + b"\r\n" for part in parts)
    body += b"--B--" + draw(st.sampled_from([b"", b"\r\n", b"epilogue"]))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(body)))
        edit = draw(st.integers(0, 9))
        if edit < 6:
            body = body[:at] + draw(st.sampled_from(PIECES)) + body[at:]
        elif edit < 9:
            body = body[:at] + body[at + draw(st.integers(1, 5)) :]
        else:
            body = body[:at]
    return body


def small(high: int) -> st.SearchStrategy[int | None]:
    return st.none() | st.integers(0, high)


limits = st.builds(
    FormLimits,
    max_content_length=small(200),
    max_form_memory_size=small(40),
    max_form_parts=small(4),
    max_part_header_size=small(90),
    max_part_headers=small(3),
)
cut_lists = st.lists(st.integers(min_value=0), max_size=6)


def cut(body: bytes, cuts: list[int], empty: bool) -> list[bytes]:
    edges = sorted([0, len(body), *(c % (len(body) + 1) for c in cuts)])
    chunks = [body[a:b] for a, b in pairwise(edges)]  # repeated edges give empty chunks
    return [b"", *chunks, b""] if empty else chunks


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=multipart_bodies(),
    limits=limits,
    length=st.none() | st.integers(-3, 3),
    cuts=cut_lists,
    empty=st.booleans(),
)
def test_multipart_answer_does_not_depend_on_the_chunks(
    body: bytes, limits: FormLimits, length: int | None, cuts: list[int], empty: bool
) -> None:
    content_length = None if length is None else max(0, len(body) + length)
    whole = outcome([body], MULTIPART, limits, content_length)
    assert outcome(byte_by_byte(body), MULTIPART, limits, content_length) == whole
    assert outcome(cut(body, cuts, empty), MULTIPART, limits, content_length) == whole


urlencoded_bodies = st.lists(
    st.sampled_from([b"a", b"b=", b"=c", b"d=e", b"", b"%41", b"%4", b"+", b"%C3%A9", b"\xff"])
).map(b"&".join)


@given(
    body=urlencoded_bodies,
    limits=limits,
    length=st.none() | st.integers(-3, 3),
    cuts=cut_lists,
    empty=st.booleans(),
)
def test_urlencoded_answer_does_not_depend_on_the_chunks(
    body: bytes, limits: FormLimits, length: int | None, cuts: list[int], empty: bool
) -> None:
    content_length = None if length is None else max(0, len(body) + length)
    # Two limits broken by the same fields may be named in either order (both are a 413):
    # the form or the error class and status are what may not change.
    whole = outcome([body], URLENCODED, limits, content_length)[:2]
    assert outcome(byte_by_byte(body), URLENCODED, limits, content_length)[:2] == whole
    assert outcome(cut(body, cuts, empty), URLENCODED, limits, content_length)[:2] == whole
