"""Tests for file bodies, safe_join, content_disposition and file_response."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePosixPath
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import (
    FileBody,
    FileRegion,
    Headers,
    content_disposition,
    file_response,
    guess_content_type,
    safe_join,
)

# -- FileBody ---------------------------------------------------------------


def materialize(body: FileBody, data: bytes) -> bytes:
    """Send ``body`` the way an adapter would, with ``data`` as the file."""
    out = bytearray()
    for segment in body.segments:
        if isinstance(segment, bytes):
            out += segment
        elif segment.length is None:
            out += data[segment.offset :]
        else:
            out += data[segment.offset : segment.offset + segment.length]
    return bytes(out)


def test_whole_file_body_has_one_region_to_the_end() -> None:
    body = FileBody("static/a.txt")
    assert body.path == "static/a.txt"
    assert body.segments == (FileRegion(0, None),)
    assert body.content_length is None


def test_region_body_knows_its_length() -> None:
    body = FileBody(PurePosixPath("static/a.txt"), offset=3, length=5)
    assert body.path == "static/a.txt"
    assert body.segments == (FileRegion(3, 5),)
    assert body.content_length == 5
    assert repr(body) == "FileBody('static/a.txt', offset=3, length=5)"


@pytest.mark.parametrize(
    ("offset", "length"), [(-1, None), (0, -1), (True, None), (0, 1.5), ("0", None)]
)
def test_bad_region_is_a_value_error(offset: object, length: object) -> None:
    with pytest.raises(ValueError, match="must be"):
        FileBody("a", offset=offset, length=length)  # type: ignore[arg-type]


def test_bytes_path_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="path must be str"):
        FileBody(b"a")  # type: ignore[arg-type]


def test_from_segments_sums_the_length() -> None:
    body = FileBody.from_segments("f", [b"--b\r\n", FileRegion(2, 3), b"\r\n--b--\r\n"])
    assert body.content_length == 5 + 3 + 9
    assert materialize(body, b"0123456789") == b"--b\r\n234\r\n--b--\r\n"
    assert repr(body).startswith("FileBody.from_segments('f', [b'--b")


def test_from_segments_allows_an_open_region_last_only() -> None:
    assert FileBody.from_segments("f", [b"x", FileRegion(1, None)]).content_length is None
    with pytest.raises(ValueError, match="only the last segment"):
        FileBody.from_segments("f", [FileRegion(1, None), b"x"])


def test_from_segments_refuses_other_types_and_bad_regions() -> None:
    with pytest.raises(TypeError, match="bytes or FileRegion, not str"):
        FileBody.from_segments("f", ["text"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="offset must be"):
        FileBody.from_segments("f", [FileRegion(-2, 1)])


def test_equality_and_hash() -> None:
    assert FileBody("f", length=3) == FileBody.from_segments("f", [FileRegion(0, 3)])
    assert hash(FileBody("f", length=3)) == hash(FileBody("f", offset=0, length=3))
    assert FileBody("f") != FileBody("g")
    assert FileBody("f") != "f"


def test_slice_of_unknown_length_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown length"):
        FileBody("f").slice(0, 1)


@pytest.mark.parametrize(("start", "stop"), [(-1, 2), (3, 2), (0, 11)])
def test_slice_outside_the_body_is_refused(start: int, stop: int) -> None:
    with pytest.raises(ValueError, match="outside a body of 10 bytes"):
        FileBody("f", length=10).slice(start, stop)


def test_slice_narrows_the_region() -> None:
    assert FileBody("f", offset=100, length=50).slice(10, 20) == FileBody(
        "f", offset=110, length=10
    )


DATA = bytes(range(256)) * 4


@given(
    segments=st.lists(
        st.one_of(
            st.binary(max_size=6),
            st.builds(
                FileRegion,
                st.integers(min_value=0, max_value=len(DATA) // 2),
                st.integers(min_value=0, max_value=len(DATA) // 2),
            ),
        ),
        max_size=6,
    ),
    cut=st.tuples(st.integers(min_value=0), st.integers(min_value=0)),
)
def test_slice_sends_the_same_bytes_as_slicing_the_whole(
    segments: list[bytes | FileRegion], cut: tuple[int, int]
) -> None:
    body = FileBody.from_segments("f", segments)
    whole = materialize(body, DATA)
    assert body.content_length == len(whole)
    start, stop = sorted(c % (len(whole) + 1) for c in cut)
    part = body.slice(start, stop)
    assert part.content_length == stop - start
    assert materialize(part, DATA) == whole[start:stop]


# -- safe_join ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("a.txt",), ["a.txt"]),
        (("css/site.css",), ["css", "site.css"]),
        (("css//./site.css",), ["css", "site.css"]),
        (("css/", "site.css"), ["css", "site.css"]),
        (("",), []),
        ((), []),
        (("...",), ["..."]),
        (("dir/console.log",), ["dir", "console.log"]),
        (("é/日本.txt",), ["é", "日本.txt"]),
    ],
)
def test_safe_join_accepts_paths_below_the_base(
    parts: tuple[str, ...], expected: list[str]
) -> None:
    assert safe_join("/srv/static", *parts) == os.path.join("/srv/static", *expected)


@pytest.mark.parametrize(
    "part",
    [
        "..",
        "../etc/passwd",
        "a/../../etc/passwd",
        "a/../b",
        "a/..",
        "/etc/passwd",
        "//server/share",
        "..\\windows",
        "a\\..\\..\\b",
        "C:/Windows/win.ini",
        "c:secret",
        "file.txt::$DATA",
        "a\x00.txt",
        "nul",
        "NUL.txt",
        "a/con",
        "com1.log",
        "LPT9",
        "com¹",
        "aux .txt",
    ],
)
def test_safe_join_refuses_escapes(part: str) -> None:
    assert safe_join("/srv/static", part) is None
    assert safe_join("/srv/static", "ok", part) is None


def test_safe_join_takes_a_path_like_base() -> None:
    assert safe_join(PurePosixPath("/srv"), "a") == os.path.join("/srv", "a")


@given(st.lists(st.text(max_size=12), max_size=4))
def test_safe_join_never_leaves_the_base(parts: list[str]) -> None:
    joined = safe_join("/srv/static", *parts)
    if joined is not None:
        relative = os.path.relpath(joined, "/srv/static")
        assert relative == "." or not relative.startswith("..")
        assert "\x00" not in joined


# -- content_disposition ------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "as_attachment", "expected"),
    [
        (None, True, "attachment"),
        (None, False, "inline"),
        ("report.pdf", True, 'attachment; filename="report.pdf"'),
        ("my report.pdf", False, 'inline; filename="my report.pdf"'),
        (
            "résumé.pdf",
            True,
            "attachment; filename=\"resume.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf",
        ),
        (
            "日本.txt",
            True,
            "attachment; filename=\"__.txt\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt",
        ),
        (
            'a"b\\c.txt',
            True,
            "attachment; filename=\"a_b_c.txt\"; filename*=UTF-8''a%22b%5Cc.txt",
        ),
        ("100%.txt", True, "attachment; filename=\"100%.txt\"; filename*=UTF-8''100%25.txt"),
        ("a\r\nb", True, "attachment; filename=\"a__b\"; filename*=UTF-8''a%0D%0Ab"),
        ("x!#$&+^`|~.bin", True, 'attachment; filename="x!#$&+^`|~.bin"'),
    ],
)
def test_content_disposition(filename: str | None, as_attachment: bool, expected: str) -> None:
    assert content_disposition(filename, as_attachment=as_attachment) == expected


@given(st.text())
def test_content_disposition_is_one_safe_latin1_line(filename: str) -> None:
    value = content_disposition(filename)
    assert value.isascii()
    assert not any(char in value for char in "\r\n\x00")
    if "filename*=" in value:
        encoded = value.split("filename*=UTF-8''", 1)[1]
        assert unquote(encoded, errors="replace") == filename.encode(
            "utf-8", errors="replace"
        ).decode("utf-8", errors="replace")


# -- guess_content_type -----------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("index.html", "text/html; charset=utf-8"),
        ("APP.JS", "text/javascript; charset=utf-8"),
        ("dir/photo.jpeg", "image/jpeg"),
        ("dir\\font.woff2", "font/woff2"),
        ("backup.tar.gz", "application/gzip"),
        ("archive.tar", "application/x-tar"),
        ("script.py", "text/x-python; charset=utf-8"),
        ("noextension", "application/octet-stream"),
        ("file.unknown-ext", "application/octet-stream"),
    ],
)
def test_guess_content_type(filename: str, expected: str) -> None:
    assert guess_content_type(filename) == expected


# -- file_response ------------------------------------------------------------

MTIME = 1445412480.25  # Wed, 21 Oct 2015 07:28:00.25 GMT


def test_file_response_describes_the_file() -> None:
    response = file_response("/srv/static/notes.txt", size=10, mtime=MTIME)
    assert response.status == 200
    assert response.body == FileBody("/srv/static/notes.txt", length=10)
    assert dict(response.headers.items()) == {
        "content-type": "text/plain; charset=utf-8",
        "content-length": "10",
        "accept-ranges": "bytes",
        "cache-control": "no-cache",
        "etag": f'"{int(MTIME * 1_000_000):x}-a"',
        "last-modified": "Wed, 21 Oct 2015 07:28:00 GMT",
    }


def test_file_response_takes_a_path_like_and_a_datetime() -> None:
    aware = datetime.fromtimestamp(MTIME, timezone.utc)
    by_float = file_response("/srv/a.bin", size=3, mtime=MTIME)
    by_datetime = file_response(PurePosixPath("/srv/a.bin"), size=3, mtime=aware)
    by_naive = file_response("/srv/a.bin", size=3, mtime=aware.replace(tzinfo=None))
    assert by_float.headers == by_datetime.headers == by_naive.headers
    assert by_datetime.body == FileBody("/srv/a.bin", length=3)
    assert by_float.headers["content-type"] == "application/octet-stream"


@pytest.mark.parametrize(
    ("download_name", "as_attachment", "expected"),
    [
        (None, True, 'attachment; filename="notes.txt"'),
        ("report.txt", True, 'attachment; filename="report.txt"'),
        ("report.txt", False, 'inline; filename="report.txt"'),
        ("é.txt", True, "attachment; filename=\"e.txt\"; filename*=UTF-8''%C3%A9.txt"),
    ],
)
def test_file_response_names_downloads(
    download_name: str | None, as_attachment: bool, expected: str
) -> None:
    response = file_response(
        "/srv/notes.txt",
        size=1,
        mtime=MTIME,
        download_name=download_name,
        as_attachment=as_attachment,
    )
    assert response.headers["content-disposition"] == expected


def test_file_response_guesses_the_type_from_the_download_name() -> None:
    response = file_response("/srv/blob", size=1, mtime=MTIME, download_name="photo.png")
    assert response.headers["content-type"] == "image/png"


def test_file_response_options() -> None:
    response = file_response(
        "/srv/a.txt",
        size=1,
        mtime=MTIME,
        content_type="text/plain; charset=latin-1",
        etag="build-42",
        last_modified=False,
        max_age=3600,
    )
    assert response.headers["content-type"] == "text/plain; charset=latin-1"
    assert response.headers["etag"] == '"build-42"'
    assert response.headers["cache-control"] == "max-age=3600"
    assert "last-modified" not in response.headers
    bare = file_response("/srv/a.txt", size=1, mtime=MTIME, etag=False)
    assert "etag" not in bare.headers


@pytest.mark.parametrize(
    ("size", "max_age", "match"),
    [(-1, None, "size must be"), (True, None, "size must be"), (1, -5, "max_age must be")],
)
def test_file_response_refuses_bad_numbers(size: int, max_age: int | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        file_response("/srv/a.txt", size=size, mtime=MTIME, max_age=max_age)


@dataclass
class Head:
    method: str
    headers: Headers


def test_file_response_answers_the_request() -> None:
    plain = file_response("/srv/a.txt", size=10, mtime=MTIME)
    etag = plain.headers["etag"]
    head = Head("GET", Headers({"If-None-Match": etag}))
    assert file_response("/srv/a.txt", size=10, mtime=MTIME, request=head).status == 304
    ranged = Head("GET", Headers({"Range": "bytes=-4"}))
    partial = file_response("/srv/a.txt", size=10, mtime=MTIME, request=ranged)
    assert partial.status == 206
    assert partial.body == FileBody("/srv/a.txt", offset=6, length=4)
    assert partial.headers["content-range"] == "bytes 6-9/10"


def test_no_file_is_read_to_guess_types() -> None:
    # An audit hook sees every open(); mimetypes.init() would read /etc/mime.types.
    code = (
        "import sys, mimetypes\n"
        "import sansio_http as files\n"
        "opened = []\n"
        "def hook(event, args):\n"
        "    if event == 'open':\n"
        "        opened.append(args[0])\n"
        "sys.addaudithook(hook)\n"
        "for name in ('a.html', 'b.tar', 'c.unknown', 'd.py', 'e'):\n"
        "    files.guess_content_type(name)\n"
        "    files.file_response(name, size=1, mtime=0.0)\n"
        "print(repr((opened, mimetypes.inited)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "([], False)"
