"""``UploadedFile.headers``: the part's fields as a read-only, case-insensitive ``Headers``."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import FormDecoder, Headers, MutableHeaders, UploadedFile

BOUNDARY = "b0und"


def _part_body(disposition: str, content_type: str = "text/plain") -> bytes:
    return (
        f"--{BOUNDARY}\r\n"
        f"Content-Disposition: {disposition}\r\n"
        f"Content-Type: {content_type}\r\n"
        "\r\n"
        "data\r\n"
        f"--{BOUNDARY}--\r\n"
    ).encode()


def _decode(body: bytes) -> UploadedFile:
    decoder = FormDecoder("multipart/form-data", {"boundary": BOUNDARY})
    decoder.feed(body)
    _, files = decoder.close()
    return files["upload"]


def test_a_decoded_upload_has_case_insensitive_headers() -> None:
    upload = _decode(_part_body('form-data; name="upload"; filename="a.txt"'))
    headers = upload.headers
    assert isinstance(headers, Headers)
    assert not isinstance(headers, MutableHeaders)
    for name in ("content-type", "Content-Type", "CONTENT-TYPE"):
        assert headers[name] == "text/plain"
        assert name in headers
    assert headers.get("content-disposition") == 'form-data; name="upload"; filename="a.txt"'
    assert headers.getlist("Content-Type") == ["text/plain"]
    assert headers.keys() == ["content-disposition", "content-type"]
    assert headers.get("x-absent") is None
    assert upload.headers is headers


def test_a_non_ascii_value_keeps_the_bytes_sent() -> None:
    upload = _decode(_part_body('form-data; name="upload"; filename="résumé ✓.txt"'))
    sent = 'form-data; name="upload"; filename="résumé ✓.txt"'.encode()
    assert upload.filename == "résumé ✓.txt"
    # As for any Headers: raw() gives the bytes sent, values read as their latin-1 text.
    assert upload.headers.raw()[0] == (b"content-disposition", sent)
    assert upload.headers["content-disposition"].encode("latin-1").decode() == sent.decode()


@pytest.mark.parametrize(
    "fields",
    [
        [("Content-Type", "image/png")],
        (("content-type", "image/png"),),
        {"Content-Type": "image/png"},
        Headers([(b"content-type", b"image/png")]),
    ],
    ids=["list", "tuple", "mapping", "Headers"],
)
def test_the_constructor_takes_text_pairs_a_mapping_or_headers(fields: object) -> None:
    upload = UploadedFile("f", "a.png", "image/png", fields, io.BytesIO(), 0)  # type: ignore[arg-type]
    assert upload.headers["CONTENT-TYPE"] == "image/png"
    if isinstance(fields, Headers):
        assert upload.headers is fields


@given(
    pairs=st.lists(
        st.tuples(
            st.from_regex(r"[A-Za-z][A-Za-z0-9-]{0,12}", fullmatch=True),
            st.text(st.characters(exclude_categories=["Cs"]), max_size=20),
        ),
        max_size=5,
    )
)
def test_text_pairs_come_back_whatever_the_case_of_the_name(pairs: list[tuple[str, str]]) -> None:
    upload = UploadedFile("f", "x", None, pairs, io.BytesIO(), 0)
    headers = upload.headers
    assert len(headers) == len(pairs)
    for name, _ in pairs:
        first = next(v for n, v in pairs if n.lower() == name.lower())
        assert headers[name.upper()].encode("latin-1").decode() == first
    assert [value for _, value in headers.raw()] == [value.encode() for _, value in pairs]
