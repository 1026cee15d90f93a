"""Decode bodies captured from Chromium, curl and httpx (scripts/capture_form_fixtures.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from sansio_http.bodies._formdata import FileData, FileStart
from sansio_http.bodies._forms import FormDecoder, FormEventDecoder

FIXTURES = Path(__file__).parent / "fixtures" / "forms"
MANIFEST: dict[str, dict[str, Any]] = json.loads((FIXTURES / "manifest.json").read_text())
CHUNK_SIZES = [1, 3, 64, 1000, 65536]


@pytest.mark.parametrize("size", CHUNK_SIZES)
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_captured_body_decodes_byte_for_byte(name: str, size: int) -> None:
    expected = MANIFEST[name]
    body = (FIXTURES / f"{name}.body").read_bytes()
    decoder = FormDecoder(expected["content_type"], content_length=len(body))
    for start in range(0, len(body), size):
        decoder.feed(body[start : start + size])
    form, files = decoder.close()
    assert form.items(multi=True) == [tuple(field) for field in expected["fields"]]
    uploads = files.items(multi=True)
    assert len(uploads) == len(expected["files"])
    for (field, upload), (name_, filename, content_type, source) in zip(
        uploads, expected["files"], strict=True
    ):
        assert (field, upload.name, upload.filename) == (name_, name_, filename)
        assert upload.content_type == content_type
        content = (FIXTURES / "uploads" / source).read_bytes()
        assert upload.read() == content
        assert upload.size == len(content)


def test_browser_file_names_keep_backslashes_and_quotes() -> None:
    body = (FIXTURES / "chromium-multipart.body").read_bytes()
    decoder = FormEventDecoder(MANIFEST["chromium-multipart"]["content_type"])
    starts = [e for e in decoder.feed(body) + decoder.close() if isinstance(e, FileStart)]
    assert [s.filename for s in starts] == ['notes "v2" ü.txt', "dir\\data.bin"]
    assert starts[0].headers[0][1].endswith('filename="notes %22v2%22 ü.txt"')


def closing_delimiter_body(size: int) -> tuple[bytes, bytes]:
    content = bytes(range(256)) * (size // 256) + b"\r\n-"[: size % 256]
    content += b"x" * (size - len(content))
    head = b'--b\r\nContent-Disposition: form-data; name="f"; filename="f"\r\n\r\n'
    return content, head + content + b"\r\n--b--\r\n"


def test_closing_delimiter_split_at_every_offset() -> None:
    # Contents of 64 KiB * k + 3 bytes read in 64 KiB chunks put the chunk boundary at every
    # position of the closing delimiter in turn as the header length shifts; sizes around
    # it cover the other offsets. Each must give exactly the bytes sent.
    chunk = 65536
    head_length = len(closing_delimiter_body(0)[1]) - len(b"\r\n--b--\r\n")
    for shift in range(-12, 12):
        size = chunk * 2 + 3 - head_length + shift
        content, body = closing_delimiter_body(size)
        decoder = FormEventDecoder("multipart/form-data; boundary=b")
        events = []
        for start in range(0, len(body), chunk):
            events += decoder.feed(body[start : start + chunk])
        events += decoder.close()
        data = b"".join(e.data for e in events if isinstance(e, FileData))
        assert data == content, shift


@pytest.mark.parametrize("k", [1, 2, 3])
def test_sizes_of_64k_multiples_plus_3(k: int) -> None:
    content, body = closing_delimiter_body(65536 * k + 3)
    decoder = FormDecoder("multipart/form-data; boundary=b", spool=io.BytesIO)
    for start in range(0, len(body), 65536):
        decoder.feed(body[start : start + 65536])
    assert decoder.close().files["f"].read() == content
