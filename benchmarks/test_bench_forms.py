"""Form decoding next to Werkzeug, python-multipart (Starlette's) and raw multipart.

Four groups, each decoding the same body into the same result (text fields as pairs,
files in ``io.BytesIO``), so the peers do the work our decoder does. The push parsers are
fed the same 64 KiB chunks; Werkzeug reads a stream instead, so its body is joined into one
``bytes`` before the timing and only wrapped in ``io.BytesIO`` inside it:

- ``forms-upload``: one 10 MiB file in 64 KiB chunks;
- ``forms-fields``: 1,000 small multipart text fields;
- ``forms-browser``: the body Chromium sent for two files and six fields (a fixture);
- ``forms-urlencoded``: 1,000 urlencoded fields, a third of them escaped.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qsl, unquote_plus, urlencode

import multipart
import pytest
import python_multipart
import werkzeug.formparser
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http import FormData, FormDecoder, FormLimits

CHUNK = 64 * 1024
BOUNDARY = "----WebKitFormBoundaryx5PRLyzvH1fXXwm1"
MULTIPART_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
URLENCODED_TYPE = "application/x-www-form-urlencoded"
UNLIMITED = FormLimits(max_content_length=None, max_form_parts=None)

Result = tuple[list[tuple[str, str]], list[tuple[str, str, bytes]]]


def multipart_body(parts: list[tuple[str, str | None, bytes]]) -> bytes:
    out = []
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"'
        head = f"--{BOUNDARY}\r\nContent-Disposition: {disposition}"
        if filename is not None:
            head += f'; filename="{filename}"\r\nContent-Type: application/octet-stream'
        out.append(head.encode() + b"\r\n\r\n" + data + b"\r\n")
    return b"".join(out) + f"--{BOUNDARY}--\r\n".encode()


def chunked(body: bytes) -> list[bytes]:
    return [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)]


UPLOAD = random.Random(0).randbytes(10 * 1024 * 1024)
UPLOAD_BODY = chunked(multipart_body([("file", "big.bin", UPLOAD)]))
UPLOAD_RESULT: Result = ([], [("file", "big.bin", UPLOAD)])

FIELDS = [(f"field{i}", f"value {i}") for i in range(1000)]
FIELDS_BODY = chunked(multipart_body([(n, None, v.encode()) for n, v in FIELDS]))
FIELDS_RESULT: Result = (FIELDS, [])

_FIXTURES = Path(__file__).parent.parent / "tests" / "bodies" / "fixtures" / "forms"
_BROWSER = json.loads((_FIXTURES / "manifest.json").read_text())["chromium-multipart"]
BROWSER_TYPE: str = _BROWSER["content_type"]
BROWSER_BODY = chunked((_FIXTURES / "chromium-multipart.body").read_bytes())
BROWSER_RESULT: Result = (
    [(n, v) for n, v in _BROWSER["fields"]],
    [(n, f, (_FIXTURES / "uploads" / p).read_bytes()) for n, f, _, p in _BROWSER["files"]],
)

_VALUES = ["42", "on", "Ada Lovelace", "ada@example.com", "café crème", "x", ""]
PAIRS = [(f"field{i}", _VALUES[i % len(_VALUES)]) for i in range(1000)]
URLENCODED_BODY = urlencode(PAIRS).encode("ascii")


def ours(content_type: str, chunks: list[bytes]) -> Any:
    decoder = FormDecoder(content_type, limits=UNLIMITED, spool=io.BytesIO)
    for chunk in chunks:
        decoder.feed(chunk)
    return decoder.close()


def ours_result(data: FormData) -> Result:
    return (
        data.form.items(multi=True),
        [(n, f.filename, f.read()) for n, f in data.files.items(multi=True)],
    )


def raw_multipart(content_type: str, chunks: list[bytes]) -> Any:
    """PushMultipartParser alone, with the least code that gives the same result."""
    boundary = content_type.partition("boundary=")[2]
    # python-multipart's "multipart" shim hides this module's names from mypy.
    parser = cast(Any, multipart).PushMultipartParser(boundary)
    fields: list[tuple[str, str]] = []
    files: list[tuple[str, str, io.BytesIO]] = []
    segment: Any = None
    sink: Any = None
    for chunk in chunks:
        for event in parser.parse(chunk):
            if event.__class__ is bytes:
                sink.append(event) if segment.filename is None else sink.write(event)
            elif event is None:
                if segment.filename is None:
                    fields.append((segment.name, b"".join(sink).decode()))
                else:
                    sink.seek(0)
                    files.append((segment.name, segment.filename, sink))
            else:
                segment = event
                sink = [] if segment.filename is None else io.BytesIO()
    parser.close()
    return fields, files


def werkzeug_form(content_type: str, body: bytes) -> Any:
    # Werkzeug reads 64 KiB at a time from a stream; the body was joined before the timing.
    environ = {
        "REQUEST_METHOD": "POST",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    return werkzeug.formparser.parse_form_data(
        environ,
        stream_factory=lambda *args, **kwargs: io.BytesIO(),
        max_form_memory_size=None,
        max_form_parts=None,
        silent=False,
    )


def werkzeug_result(parsed: Any) -> Result:
    _, form, files = parsed
    return (
        list(form.items(multi=True)),
        [(n, f.filename or "", f.read()) for n, f in files.items(multi=True)],
    )


def python_multipart_form(content_type: str, chunks: list[bytes]) -> Any:
    """python-multipart's push parser with callbacks, as Starlette drives it."""
    fields: list[tuple[str, str]] = []
    files: list[tuple[str, str, io.BytesIO]] = []
    if content_type == URLENCODED_TYPE:
        name = bytearray()
        value = bytearray()

        def on_field_name(data: bytes, start: int, end: int) -> None:
            name.extend(data[start:end])

        def on_field_data(data: bytes, start: int, end: int) -> None:
            value.extend(data[start:end])

        def on_field_end() -> None:
            fields.append((unquote_plus(name.decode()), unquote_plus(value.decode())))
            name.clear()
            value.clear()

        qs = python_multipart.QuerystringParser(
            {
                "on_field_name": on_field_name,
                "on_field_data": on_field_data,
                "on_field_end": on_field_end,
            }
        )
        for chunk in chunks:
            qs.write(chunk)
        qs.finalize()
        return fields, files

    state: dict[str, Any] = {}
    header_field = bytearray()
    header_value = bytearray()

    def on_part_begin() -> None:
        state["headers"] = {}

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header_field.extend(data[start:end])

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header_value.extend(data[start:end])

    def on_header_end() -> None:
        state["headers"][bytes(header_field).lower()] = bytes(header_value)
        header_field.clear()
        header_value.clear()

    def on_headers_finished() -> None:
        disposition = state["headers"][b"content-disposition"]
        _, options = python_multipart.multipart.parse_options_header(disposition)
        state["name"] = options[b"name"].decode()
        filename = options.get(b"filename")
        state["filename"] = None if filename is None else filename.decode()
        state["sink"] = bytearray() if filename is None else io.BytesIO()

    def on_part_data(data: bytes, start: int, end: int) -> None:
        state["sink"].write(data[start:end]) if state["filename"] else state["sink"].extend(
            data[start:end]
        )

    def on_part_end() -> None:
        if state["filename"] is None:
            fields.append((state["name"], state["sink"].decode()))
        else:
            state["sink"].seek(0)
            files.append((state["name"], state["filename"], state["sink"]))

    parser = python_multipart.MultipartParser(
        content_type.partition("boundary=")[2],
        {
            "on_part_begin": on_part_begin,
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_headers_finished": on_headers_finished,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
        },
    )
    for chunk in chunks:
        parser.write(chunk)
    parser.finalize()
    return fields, files


def lists_result(parsed: Any) -> Result:
    fields, files = parsed
    return fields, [(n, f, sink.read()) for n, f, sink in files]


def as_chunks(chunks: list[bytes]) -> Any:
    return chunks


def as_body(chunks: list[bytes]) -> Any:
    return b"".join(chunks)


# Each peer decodes into its own structures (files in io.BytesIO), which is what is timed;
# the first function prepares its input and the last turns its output into a comparable
# Result, both outside the timing.
Decoder = Callable[[str, Any], Any]
PEERS: dict[str, tuple[Callable[[list[bytes]], Any], Decoder, Callable[[Any], Result]]] = {
    "ours": (as_chunks, ours, ours_result),
    "raw-multipart": (as_chunks, raw_multipart, lists_result),
    "werkzeug": (as_body, werkzeug_form, werkzeug_result),
    "python-multipart": (as_chunks, python_multipart_form, lists_result),
}


def run(benchmark: BenchmarkFixture, peer: str, content_type: str, chunks: list[bytes]) -> Result:
    prepare, decode, result = PEERS[peer]
    return result(benchmark(decode, content_type, prepare(chunks)))


def normalised(result: Result) -> Result:
    # Werkzeug and python-multipart read file names by their own unquoting rules, and
    # python-multipart leaves a browser's %22 in field names; compare contents and values.
    fields = [(n.replace("%22", '"'), v) for n, v in result[0]]
    return fields, [(n, "", d) for n, _, d in result[1]]


@pytest.mark.benchmark(group="forms-upload")
@pytest.mark.parametrize("peer", PEERS)
def test_upload_10mib(benchmark: BenchmarkFixture, peer: str) -> None:
    result = run(benchmark, peer, MULTIPART_TYPE, UPLOAD_BODY)
    assert normalised(result) == normalised(UPLOAD_RESULT)


@pytest.mark.benchmark(group="forms-fields")
@pytest.mark.parametrize("peer", PEERS)
def test_1000_fields(benchmark: BenchmarkFixture, peer: str) -> None:
    assert run(benchmark, peer, MULTIPART_TYPE, FIELDS_BODY) == FIELDS_RESULT


@pytest.mark.benchmark(group="forms-browser")
@pytest.mark.parametrize("peer", PEERS)
def test_browser_body(benchmark: BenchmarkFixture, peer: str) -> None:
    result = run(benchmark, peer, BROWSER_TYPE, BROWSER_BODY)
    assert normalised(result) == normalised(BROWSER_RESULT)
    if peer == "ours":
        assert result == BROWSER_RESULT


@pytest.mark.benchmark(group="forms-urlencoded")
@pytest.mark.parametrize("peer", ["ours", "werkzeug", "python-multipart"])
def test_urlencoded_1000_fields(benchmark: BenchmarkFixture, peer: str) -> None:
    assert run(benchmark, peer, URLENCODED_TYPE, [URLENCODED_BODY]) == (PAIRS, [])


@pytest.mark.benchmark(group="forms-urlencoded")
def test_urlencoded_parse_qsl(benchmark: BenchmarkFixture) -> None:
    text = URLENCODED_BODY.decode("ascii")
    assert benchmark(parse_qsl, text, keep_blank_values=True) == PAIRS
