"""Property tests of the form decoders: any cuts, any bytes, bounded memory."""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Callable, Iterator
from itertools import pairwise
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sansio_http.bodies._formdata import Field, FormEvent, FormLimits
from sansio_http.bodies._forms import FormDecoder, FormEventDecoder
from sansio_http.http._multidict import ImmutableMultiDict
from sansio_http.messages._errors import BadRequest, HTTPError, RequestEntityTooLarge
from tests.bodies.test_forms import (
    BOUNDARY,
    MULTIPART,
    URLENCODED,
    decode,
    events_of,
    multipart,
)

# Names as a browser writes them: '"', CR and LF become %22, %0D and %0A. A literal "%"
# is sent as it is, which makes "%22" ambiguous, so the generated names avoid "%".
names = st.text(st.characters(codec="utf-8", exclude_characters="%"), max_size=8)
files = st.tuples(names, names, st.binary(max_size=300))
parts = st.lists(st.one_of(st.tuples(names, st.text(max_size=30)), files), max_size=6)
cut_lists = st.lists(st.integers(min_value=0), max_size=6)


def quote(name: str) -> str:
    return '"' + name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A") + '"'


def encode(form: list[tuple[str, str] | tuple[str, str, bytes]]) -> bytes:
    encoded = []
    for item in form:
        if len(item) == 2:
            encoded.append(f"Content-Disposition: form-data; name={quote(item[0])}".encode())
            encoded[-1] += b"\r\n\r\n" + item[1].encode()
        else:
            name, filename, data = item
            disposition = f"form-data; name={quote(name)}; filename={quote(filename)}"
            encoded.append(f"Content-Disposition: {disposition}\r\n\r\n".encode() + data)
    return multipart(*encoded)


def cut(body: bytes, cuts: list[int]) -> list[bytes]:
    edges = sorted([0, len(body), *(c % (len(body) + 1) for c in cuts)])
    return [body[a:b] for a, b in pairwise(edges)]  # repeated edges give empty chunks


@given(form=parts, cuts=cut_lists)
def test_multipart_round_trip_whatever_the_cuts(
    form: list[tuple[str, str] | tuple[str, str, bytes]], cuts: list[int]
) -> None:
    assume(all(BOUNDARY not in repr(item) for item in form))
    body = encode(form)
    chunks = cut(body, cuts)
    assert events_of(chunks) == events_of([body])
    data = decode(chunks)
    fields = [item for item in form if len(item) == 2]
    uploads = [item for item in form if len(item) == 3]
    # Text is sent as UTF-8, lone CRs and all (multipart bodies carry bytes as they are).
    assert data.form == ImmutableMultiDict(fields)
    got = [(n, u.filename, u.read()) for n, u in data.files.items(multi=True)]
    assert got == sorted(uploads, key=lambda u: [n for n, *_ in uploads].index(u[0]))


@given(
    pairs=st.lists(st.tuples(st.text(), st.text()), max_size=8),
    cuts=cut_lists,
)
def test_urlencoded_round_trip_whatever_the_cuts(
    pairs: list[tuple[str, str]], cuts: list[int]
) -> None:
    body = urlencode(pairs).encode()
    assert decode(cut(body, cuts), URLENCODED).form == ImmutableMultiDict(pairs)
    assert events_of(cut(body, cuts), URLENCODED)[:-1] == [Field(n, v) for n, v in pairs]


def outcome(content_type: str, chunks: list[bytes], limits: FormLimits) -> list[FormEvent] | int:
    """Return the events, or the status of the HTTP error decoding raised."""
    try:
        return events_of(chunks, content_type, limits=limits)
    except HTTPError as exc:
        return exc.status


VALID = encode([("a", "1"), ("f", "f.txt", b"data\r\n--b0und"), ("b", "✓")])


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    prefix=st.integers(min_value=0, max_value=len(VALID)),
    junk=st.binary(max_size=200),
    cuts=cut_lists,
    content_type=st.sampled_from([MULTIPART, URLENCODED]),
)
def test_arbitrary_bytes_raise_only_http_errors(
    prefix: int, junk: bytes, cuts: list[int], content_type: str
) -> None:
    body = VALID[:prefix] + junk
    limits = FormLimits(max_form_parts=3, max_part_header_size=200, max_form_memory_size=100)
    whole = outcome(content_type, [body], limits)
    assert whole in (400, 413) or isinstance(whole, list)
    # A cut changes nothing: not the form, not the error (test_forms_chunking has more).
    assert outcome(content_type, cut(body, cuts), limits) == whole


# -- bounded memory -----------------------------------------------------------------------


def peak_while(feed: Callable[[], None]) -> int:
    tracemalloc.start()
    try:
        feed()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def chunks_of(body: bytes, size: int = 65536) -> Iterator[bytes]:
    return (body[i : i + size] for i in range(0, len(body), size))


def test_memory_of_100000_tiny_parts_is_bounded() -> None:
    tiny = b'Content-Disposition: form-data; name="a"\r\n\r\nb'
    body = multipart(*[tiny] * 100_000)

    def feed_refused() -> None:
        with pytest.raises(RequestEntityTooLarge, match="max_form_parts"):
            decode(chunks_of(body))

    assert peak_while(feed_refused) < 1_000_000


def test_event_decoder_keeps_nothing_per_part() -> None:
    # Without a parts limit the event decoder still holds nothing per part: 10,000 parts
    # as Field events would take well over a megabyte if any were kept. (Fewer parts than
    # above: tracemalloc slows the parser tenfold.)
    body = multipart(*[b'Content-Disposition: form-data; name="a"\r\n\r\nb'] * 10_000)

    def feed_events() -> None:
        decoder = FormEventDecoder(MULTIPART, limits=FormLimits(max_form_parts=None))
        count = sum(len(decoder.feed(chunk)) for chunk in chunks_of(body))
        assert count + len(decoder.close()) == 10_001

    assert peak_while(feed_events) < 400_000


def test_memory_of_a_part_header_that_never_ends() -> None:
    def feed(line: bytes, limit: str) -> Callable[[], None]:
        def run() -> None:
            with pytest.raises(RequestEntityTooLarge, match=limit):
                events_of(itertools.chain([f"--{BOUNDARY}\r\n".encode()], itertools.repeat(line)))

        return run

    assert peak_while(feed(b"x" * 10_000, "max_part_header_size")) < 200_000
    # A header section is held until complete, so its size is the bound, line count or not.
    assert peak_while(feed(b"X-Header: v\r\n" * 1000, "max_part_header_size")) < 200_000


def test_memory_of_a_boundary_like_stream_without_end() -> None:
    almost = f"\r\n--{BOUNDARY}"[:-1].encode() + b"X"
    chunk = almost * (65536 // len(almost))

    def run() -> None:
        decoder = FormEventDecoder(MULTIPART, limits=FormLimits(max_content_length=None))
        decoder.feed(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="f"; '.encode())
        decoder.feed(b'filename="f"\r\n\r\n')
        for _ in range(300):  # about 20 MB
            decoder.feed(chunk)
        decoder.feed(f"\r\n--{BOUNDARY}"[:-1].encode())
        with pytest.raises(BadRequest, match="cut off"):
            decoder.close()

    assert peak_while(run) < 600_000


def test_memory_of_a_million_ampersands() -> None:
    body = b"&" * 1_000_000

    def run() -> None:
        decoder = FormDecoder(URLENCODED)
        for chunk in chunks_of(body):
            decoder.feed(chunk)
        assert len(decoder.close().form) == 0

    # parse_urlencoded splits a chunk into a list (8 bytes a piece): memory follows the chunk
    # size, not the body size.
    assert peak_while(run) < 1_000_000


@pytest.mark.parametrize(("chunk_size", "bound"), [(2_000_000, 3_000_000), (65536, 400_000)])
def test_memory_of_a_million_fields_is_bounded_whatever_the_chunk_size(
    chunk_size: int, bound: int
) -> None:
    # One 2 MB chunk of "a&a&..." used to peak at 172 MiB, a pair per field, before the 413.
    # What is left is at most one copy of the chunk's complete fields.
    body = b"a&" * 1_000_000

    def feed_refused() -> None:
        with pytest.raises(RequestEntityTooLarge, match="max_form_parts"):
            decode(chunks_of(body, chunk_size), URLENCODED)

    assert peak_while(feed_refused) < bound


urlencoded_bodies = st.lists(st.sampled_from([b"a", b"b=", b"=c", b"d=e", b"", b"%41", b"+"]))


@given(
    pieces=urlencoded_bodies,
    cuts=cut_lists,
    max_parts=st.one_of(st.none(), st.integers(min_value=0, max_value=6)),
    max_memory=st.one_of(st.none(), st.integers(min_value=0, max_value=20)),
)
def test_urlencoded_limits_do_not_depend_on_the_cuts(
    pieces: list[bytes], cuts: list[int], max_parts: int | None, max_memory: int | None
) -> None:
    body = b"&".join(pieces)
    limits = FormLimits(max_form_parts=max_parts, max_form_memory_size=max_memory)
    whole = outcome(URLENCODED, [body], limits)
    assert outcome(URLENCODED, cut(body, cuts), limits) == whole
    fields = [piece for piece in pieces if piece]
    size = len(body) - body.count(b"&")
    broken = (max_parts is not None and len(fields) > max_parts) or (
        max_memory is not None and size > max_memory
    )
    if broken:
        assert whole == 413
    else:
        assert isinstance(whole, list)
        assert len(whole) == len(fields) + 1  # and EndOfForm
