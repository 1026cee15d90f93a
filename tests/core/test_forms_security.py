"""Form decoding against hostile bodies: parser differentials and limits under any chunking."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http._errors import BadRequest
from sansio_http._formdata import safe_filename
from sansio_http._forms import FormDecoder
from sansio_http._parsers.options import parse_options_header
from sansio_http._request import Request

BOUNDARY = "b0undary"


def part(disposition: str, body: bytes, *headers: str) -> bytes:
    lines = [f"Content-Disposition: {disposition}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def multipart(*parts: bytes, boundary: str = BOUNDARY) -> bytes:
    delimiter = f"--{boundary}".encode()
    out = b"".join(delimiter + b"\r\n" + p + b"\r\n" for p in parts)
    return out + delimiter + b"--\r\n"


# -- the multipart Content-Type -------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "multipart/form-data; boundary=first; boundary=second",
        "multipart/form-data; boundary=first; BOUNDARY=second",
        'multipart/form-data; boundary="first"; boundary=first',
        "multipart/form-data; boundary=first; boundary*0=sec; boundary*1=ond",
        "multipart/form-data; boundary=b0undary; charset=utf-8; charset=latin-1",
        "multipart/form-data; boundary=b0undary; boundary*=UTF-8''other",
    ],
)
def test_a_repeated_parameter_is_a_400(content_type: str) -> None:
    # Werkzeug and multipart read the last boundary, we would read the first: a proxy and
    # the application would see different parts.
    with pytest.raises(BadRequest, match="parameter") as info:
        FormDecoder(content_type)
    assert info.value.status == 400
    # The same through Request.mimetype_params, which is what the adapters pass.
    request = Request("POST", "/", b"", [("content-type", content_type)], "http", None, "")
    with pytest.raises(BadRequest, match="parameter"):
        FormDecoder(request.mimetype, request.mimetype_params)


def test_parameters_remember_repeated_names() -> None:
    _, params = parse_options_header("text/plain; a=1; b=2; A=3; c*0=x; c=y; d*=UTF-8''z; d=w")
    assert params == {"a": "1", "b": "2", "c": "y", "d*": "z", "d": "w"}
    assert params.repeated == {"a", "c"}
    assert parse_options_header("text/plain; a=1; b=2")[1].repeated == frozenset()
    assert parse_options_header(None)[1].repeated == frozenset()


def test_a_single_boundary_still_decodes() -> None:
    body = multipart(part('form-data; name="a"', b"1"))
    decoder = FormDecoder(f"multipart/form-data; boundary={BOUNDARY}; charset=utf-8")
    decoder.feed(body)
    assert decoder.close().form["a"] == "1"


# -- safe_filename ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "safe"),
    [("a\udcff.txt", "a.txt"), ("\ud800", "upload"), ("\udc80\udc81/x\ud83d.pdf", "x.pdf")],
)
def test_safe_filename_drops_lone_surrogates(filename: str, safe: str) -> None:
    assert safe_filename(filename) == safe


# st.text() never draws surrogates; mix them in.
any_text = st.lists(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr))).map("".join)


@given(filename=any_text)
def test_safe_filename_never_raises(filename: str) -> None:
    safe = safe_filename(filename)
    assert len(safe.encode("utf-8")) <= 255
    assert safe not in ("", ".", "..")
    assert not any(char in safe for char in "/\\\x00")
