"""PEP 3333 environ decoding: paths, the query string, header keys, the server."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.wsgi._environ import (
    decode_path,
    environ_key,
    header_name,
    query_bytes,
    server_address,
)


def native(text: str) -> str:
    """Spell ``text`` as a PEP 3333 server does: its UTF-8 bytes as latin-1."""
    return text.encode("utf-8").decode("latin-1")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/", "/"),
        ("", ""),
        ("/plain/ascii", "/plain/ascii"),
        (native("/caf\u00e9"), "/caf\u00e9"),
        (native("/\u65e5\u672c/\U0001f600"), "/\u65e5\u672c/\U0001f600"),
        # A lone latin-1 byte is not UTF-8: replaced, never raised.
        ("/caf\xe9", "/caf\ufffd"),
        ("/\xff\xfe", "/\ufffd\ufffd"),
        # A server that already decoded (code points above U+00FF) is kept.
        ("/\u65e5\u672c", "/\u65e5\u672c"),
    ],
)
def test_decode_path(value: str, expected: str) -> None:
    assert decode_path(value) == expected


def test_decode_path_returns_ascii_unchanged() -> None:
    value = "/a/b"
    assert decode_path(value) is value


@given(st.binary())
def test_decode_path_never_raises_on_any_bytes(raw: bytes) -> None:
    assert decode_path(raw.decode("latin-1")) == raw.decode("utf-8", "replace")


@given(st.text())
def test_decode_path_round_trips_utf8(text: str) -> None:
    assert decode_path(native(text)) == text.encode("utf-8", "surrogatepass").decode(
        "utf-8", "replace"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", b""),
        ("a=1&b=2", b"a=1&b=2"),
        (native("q=\u00e9"), "q=\u00e9".encode()),
        ("q=\u65e5", "q=\u65e5".encode()),
    ],
)
def test_query_bytes(value: str, expected: bytes) -> None:
    assert query_bytes(value) == expected


@given(st.text())
def test_query_bytes_never_raises(value: str) -> None:
    assert isinstance(query_bytes(value), bytes)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"SERVER_NAME": "example.com", "SERVER_PORT": "8080"}, ("example.com", 8080)),
        ({"SERVER_NAME": "example.com", "SERVER_PORT": ""}, ("example.com", None)),
        ({"SERVER_NAME": "example.com"}, ("example.com", None)),
        ({"SERVER_NAME": "example.com", "SERVER_PORT": "http"}, ("example.com", None)),
        ({"SERVER_NAME": "example.com", "SERVER_PORT": "\u0661"}, ("example.com", None)),
        ({"SERVER_NAME": "", "SERVER_PORT": "80"}, None),
        ({}, None),
    ],
)
def test_server_address(environ: dict[str, str], expected: object) -> None:
    assert server_address(environ) == expected


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Content-Type", "CONTENT_TYPE"),
        ("content-length", "CONTENT_LENGTH"),
        ("CONTENT-TYPE", "CONTENT_TYPE"),
        ("User-Agent", "HTTP_USER_AGENT"),
        ("x-forwarded-for", "HTTP_X_FORWARDED_FOR"),
        ("host", "HTTP_HOST"),
    ],
)
def test_environ_key(name: str, key: str) -> None:
    assert environ_key(name) == key
    # The second call answers from the cache.
    assert environ_key(name) == key


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("HTTP_USER_AGENT", "user-agent"),
        ("HTTP_X_FORWARDED_FOR", "x-forwarded-for"),
        ("CONTENT_TYPE", "content-type"),
        ("CONTENT_LENGTH", "content-length"),
        ("HTTP_CONTENT_TYPE", None),
        ("HTTP_CONTENT_LENGTH", None),
        ("REQUEST_METHOD", None),
        ("wsgi.input", None),
    ],
)
def test_header_name(key: str, name: str | None) -> None:
    assert header_name(key) == name
