"""The chunk-size line check that runs beside h11, whatever the cuts."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from sansio_http.server._connection import ChunkLineChecker


def encode(chunks: list[bytes], extension: bytes) -> bytes:
    body = b"".join(b"%x%s\r\n%s\r\n" % (len(c), extension, c) for c in chunks if c)
    return body + b"0\r\nTrailer: x\r\n\r\n"


def feed(data: bytes, cuts: list[int]) -> bool:
    edges = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    checker = ChunkLineChecker()
    return all(checker.feed(data[a:b]) for a, b in pairwise(edges))


@given(
    chunks=st.lists(st.binary(max_size=40), max_size=6),
    extension=st.sampled_from([b"", b";a=1", b';name="v v"', b"\t;x"]),
    cuts=st.lists(st.integers(min_value=0), max_size=6),
)
def test_valid_framing_passes_whatever_the_cuts(
    chunks: list[bytes], extension: bytes, cuts: list[int]
) -> None:
    data = encode(chunks, extension)
    assert feed(data, cuts)
    checker = ChunkLineChecker()
    checker.feed(data)
    assert checker.done


@given(
    chunks=st.lists(st.binary(min_size=1, max_size=20), min_size=1, max_size=4),
    control=st.sampled_from([b"\x00", b"\x01", b"\x7f", b"\r"]),
    cuts=st.lists(st.integers(min_value=0), max_size=6),
)
def test_control_bytes_in_an_extension_fail_whatever_the_cuts(
    chunks: list[bytes], control: bytes, cuts: list[int]
) -> None:
    assert not feed(encode(chunks, b";a=" + control + b"b"), cuts)


@given(data=st.binary(max_size=200), cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_arbitrary_bytes_never_raise(data: bytes, cuts: list[int]) -> None:
    assert feed(data, cuts) in (True, False)


def test_an_endless_size_line_is_refused() -> None:
    checker = ChunkLineChecker()
    assert not checker.feed(b"1" * (ChunkLineChecker.max_line + 1))
