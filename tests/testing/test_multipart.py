from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import FormDecoder
from sansio_http.testing import encode_multipart
from sansio_http.testing._multipart import encode_form, encode_json


def decode(
    body: bytes, content_type: str
) -> tuple[list[tuple[str, str]], list[tuple[str, str, bytes]]]:
    decoder = FormDecoder(content_type)
    decoder.feed(body)
    form, files = decoder.close()
    uploads = [(name, upload.filename, upload.read()) for name, upload in files.items(multi=True)]
    for upload in files.values():
        upload.close()
    return list(form.items(multi=True)), uploads


def test_layout_is_a_browsers() -> None:
    body, content_type = encode_multipart(
        [("a", "1"), ("a", "2")], {"f": ("x.bin", b"\x00")}, boundary="B"
    )
    assert content_type == "multipart/form-data; boundary=B"
    assert body == (
        b'--B\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n'
        b'--B\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n'
        b'--B\r\nContent-Disposition: form-data; name="f"; filename="x.bin"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n\x00\r\n--B--\r\n"
    )


def test_names_are_escaped_as_the_html_standard_says() -> None:
    body, _ = encode_multipart({'a"b\r\nc': "x"}, {'f"\n': ('q"\r.txt', "é")}, boundary="B")
    assert b'name="a%22b%0D%0Ac"' in body
    assert b'name="f%22%0A"; filename="q%22%0D.txt"' in body
    assert b"\r\n\r\n\xc3\xa9\r\n" in body


def test_file_objects_name_themselves() -> None:
    named = io.BytesIO(b"data")
    named.name = "C:\\Users\\me\\report.pdf"
    body, content_type = encode_multipart(
        None, [("a", named), ("b", io.BytesIO(b"x")), ("c", b"y")]
    )
    form, files = decode(body, content_type)
    assert form == []
    assert files == [("a", "report.pdf", b"data"), ("b", "upload", b"x"), ("c", "upload", b"y")]
    assert b"Content-Type: application/pdf" in body


def test_a_file_without_a_filename() -> None:
    body, _ = encode_multipart(None, {"f": (None, b"x", "text/csv")}, boundary="B")
    assert b'name="f"\r\nContent-Type: text/csv\r\n' in body


def test_text_fields_get_crlf_line_breaks() -> None:
    body, content_type = encode_multipart({"t": "a\nb\r\nc"}, {})
    assert decode(body, content_type)[0] == [("t", "a\r\nb\r\nc")]


def test_json_and_urlencoded() -> None:
    assert encode_json({"é": [1.5, None]}) == (b'{"\xc3\xa9":[1.5,null]}', "application/json")
    assert encode_form([("a", "x y"), ("b", 1), ("c", False)]) == (
        b"a=x+y&b=1&c=false",
        "application/x-www-form-urlencoded",
    )
    with pytest.raises(TypeError, match="content="):
        encode_form(b"a=1")  # type: ignore[arg-type]


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=10)


@given(
    fields=st.lists(st.tuples(names, names), max_size=4),
    files=st.lists(st.tuples(names, names.filter(bool), st.binary(max_size=64)), max_size=3),
)
def test_round_trip_through_the_core_decoder(
    fields: list[tuple[str, str]], files: list[tuple[str, str, bytes]]
) -> None:
    specs = [(name, (filename, content)) for name, filename, content in files]
    body, content_type = encode_multipart(fields, specs)
    form, uploads = decode(body, content_type)
    # The multidicts group values by name; each name keeps its own order.
    assert sorted(form) == sorted(fields)
    assert sorted(uploads) == sorted(files)
