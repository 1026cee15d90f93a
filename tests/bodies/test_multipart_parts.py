"""What a multipart part's header section says: file names, charsets, dispositions."""

from __future__ import annotations

import pytest

from sansio_http.bodies._formdata import FileStart, FormLimits
from sansio_http.messages._errors import BadRequest, RequestEntityTooLarge

from .test_forms import decode, events_of, multipart, part


@pytest.mark.parametrize(
    ("disposition", "filename"),
    [
        # RFC 7578 §4.2 tells senders not to use RFC 8187 here, but some do, and a part
        # that names a file is a file.
        ("form-data; name=\"f\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
        ("form-data; name=\"f\"; filename*=utf-8'en'a%20b.txt", "a b.txt"),
        ("form-data; name=\"f\"; filename*=ISO-8859-1''caf%E9.txt", "café.txt"),
        ('form-data; name="f"; filename*="UTF-8\'\'quoted.txt"', "quoted.txt"),
        ("form-data; name=\"f\"; filename*=UTF-8''", ""),
        # The plain parameter, which every reader sees, wins over the starred one.
        ('form-data; name="f"; filename*=UTF-8\'\'b.exe; filename="a.txt"', "a.txt"),
    ],
)
def test_a_file_named_by_filename_star(disposition: str, filename: str) -> None:
    body = multipart(part(disposition, b"data", "Content-Type: application/pdf"))
    start = events_of([body])[0]
    assert isinstance(start, FileStart)
    assert (start.name, start.filename, start.content_type) == ("f", filename, "application/pdf")
    upload = decode([body]).files["f"]
    assert (upload.filename, upload.read()) == (filename, b"data")


@pytest.mark.parametrize(
    "value",
    ["b.exe", "UTF-8'b.exe", "x-unknown''b.exe", "''b.exe"],
)
def test_a_malformed_filename_star_is_a_400(value: str) -> None:
    body = multipart(part(f'form-data; name="f"; filename*={value}', b"data"))
    with pytest.raises(BadRequest, match=r"filename\* parameter"):
        decode([body])


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (("Content-Type: text/plain",), "no Content-Disposition"),
        (('Content-Type: form-data; name="a"',), "no Content-Disposition"),
        (('X-Disposition: form-data; name="a"',), "no Content-Disposition"),
        (("Content-Disposition: attachment; name=a",), "not form-data"),
        (("Content-Disposition: form-data",), "no name"),
        (("Content-Disposition: inline",), "not form-data"),
    ],
)
def test_a_part_must_be_form_data(headers: tuple[str, ...], message: str) -> None:
    section = ("\r\n".join(headers) + "\r\n\r\n").encode()
    with pytest.raises(BadRequest, match=message):
        decode([multipart(section + b"v")])


@pytest.mark.parametrize(
    ("content_type", "raw", "value"),
    [
        ('text/plain; charset="iso-8859-1"', b"caf\xe9", "café"),
        ("text/plain;charset=windows-1252", b"\x80", "€"),
        ("text/plain", "é".encode(), "é"),
    ],
)
def test_the_first_content_type_names_the_charset(
    content_type: str, raw: bytes, value: str
) -> None:
    body = multipart(
        part(
            "form-data; name=f",
            raw,
            f"Content-Type: {content_type}",
            "Content-Type: x; charset=koi8-r",
        )
    )
    assert decode([body]).form["f"] == value


def test_a_field_name_alone_can_break_max_form_memory_size() -> None:
    body = multipart(part('form-data; name="long-name"', b"", "Content-Type: text/plain"))
    with pytest.raises(RequestEntityTooLarge, match="max_form_memory_size"):
        decode([body], limits=FormLimits(max_form_memory_size=8))
    assert decode([body], limits=FormLimits(max_form_memory_size=9)).form["long-name"] == ""
