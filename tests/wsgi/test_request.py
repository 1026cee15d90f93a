"""WSGIRequest: the head read from the environ, and the body within its limits."""

from __future__ import annotations

import io
import tempfile
from typing import Any

import pytest

from sansio_http.bodies._formdata import FormLimits, SpoolFile
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.messages._errors import (
    BadRequest,
    ClientDisconnected,
    LengthRequired,
    RequestEntityTooLarge,
)
from sansio_http.messages._request import Request
from sansio_http.wsgi import InputStream, WSGIRequest

from .conftest import StrictInput, make_environ

BOUNDARY = "----sansio-boundary"


def multipart(*parts: tuple[str, str | None, bytes]) -> bytes:
    """Encode (name, filename or None, data) parts as multipart/form-data."""
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n".encode()
        if filename is not None:
            out += b"Content-Type: application/octet-stream\r\n"
        out += b"\r\n" + data + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


MULTIPART_TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def holds_files(request: WSGIRequest) -> bool:
    return request.has_resources


def native(text: str) -> str:
    return text.encode("utf-8").decode("latin-1")


# -- the head -------------------------------------------------------------------


def test_is_a_core_request() -> None:
    request = WSGIRequest(make_environ())
    assert isinstance(request, Request)
    assert isinstance(request.headers, Headers)


def test_head_values() -> None:
    environ = make_environ(
        "post",
        native("/caf\u00e9/\u65e5"),
        native("q=\u00e9&a=1"),
        script_name=native("/mount/\u00e9/"),
        scheme="https",
        server_name="example.com",
        server_port="8443",
        remote_addr="192.0.2.7",
    )
    request = WSGIRequest(environ)
    assert request.environ is environ
    assert request.method == "POST"
    assert request.path == "/caf\u00e9/\u65e5"
    assert request.root_path == "/mount/\u00e9"
    assert request.query_string == "q=\u00e9&a=1".encode()
    assert request.args.get("q") == "\u00e9"
    assert request.scheme == "https"
    assert request.is_secure
    assert request.remote_addr == "192.0.2.7"
    assert request.server == ("example.com", 8443)
    assert request.host == "example.com:8443"
    assert request.url == "https://example.com:8443/mount/%C3%A9/caf%C3%A9/%E6%97%A5?q=%C3%A9&a=1"


def test_replace_keeps_values_replaced_before_whether_read_or_not() -> None:
    environ = make_environ(query="a=1", scheme="http", remote_addr="10.0.0.1", script_name="/app")
    # A proxy policy replaces some values; a later replace() changes others.
    behind_proxy = WSGIRequest(environ).replace(scheme="https", remote_addr="192.0.2.9")
    moved = behind_proxy.replace(path="/elsewhere", root_path="/mount/")
    assert (moved.scheme, moved.remote_addr) == ("https", "192.0.2.9")
    assert (moved.path, moved.root_path) == ("/elsewhere", "/mount")
    # What neither replaced is still read from the environ.
    assert moved.server == ("localhost", 80)
    assert moved.query_string == environ["QUERY_STRING"].encode("latin-1")
    assert moved.environ is environ


def test_headers_are_made_once_and_replace_works_before_they_are_read() -> None:
    # The view over the environ is made on first access (PERF): the same
    # object from then on, and a replacement wins whether it was read or not.
    environ = make_environ()
    environ["HTTP_X_TOKEN"] = "abc"
    request = WSGIRequest(environ)
    assert request.replace(headers=[("x-token", "new")]).headers["x-token"] == "new"
    assert request.headers["x-token"] == "abc"
    assert request.headers is request.headers
    assert request.replace(path="/x").headers["x-token"] == "abc"


def test_values_read_once_stay_as_first_read() -> None:
    environ = make_environ(scheme="http")
    request = WSGIRequest(environ)
    assert request.scheme == "http"
    environ["wsgi.url_scheme"] = "https"
    assert request.scheme == "http"
    assert request.replace(method="POST").scheme == "http"


def test_a_lowercase_method_is_upper_cased() -> None:
    assert WSGIRequest(make_environ("patch")).method == "PATCH"


def test_invalid_utf8_in_the_path_is_replaced() -> None:
    request = WSGIRequest(make_environ("GET", "/\xff\xfe/ok"))
    assert request.path == "/\ufffd\ufffd/ok"


@pytest.mark.parametrize(
    ("changes", "attribute", "expected"),
    [
        ({"PATH_INFO": ""}, "path", "/"),
        ({"SCRIPT_NAME": ""}, "root_path", ""),
        ({"SCRIPT_NAME": "/app"}, "root_path", "/app"),
        ({"REMOTE_ADDR": ""}, "remote_addr", None),
        ({"SERVER_PORT": ""}, "server", ("localhost", None)),
        ({"QUERY_STRING": ""}, "query_string", b""),
        # PEP 3333: CONTENT_TYPE may be present and empty; that is no type.
        ({"CONTENT_TYPE": ""}, "content_type", None),
        ({"CONTENT_TYPE": "application/json"}, "content_type", "application/json"),
    ],
)
def test_missing_and_empty_values(changes: dict[str, str], attribute: str, expected: Any) -> None:
    environ = make_environ()
    environ.update(changes)
    assert getattr(WSGIRequest(environ), attribute) == expected


def test_minimal_environ() -> None:
    request = WSGIRequest({"wsgi.input": io.BytesIO()})
    assert request.method == "GET"
    assert request.path == "/"
    assert request.query_string == b""
    assert request.scheme == "http"
    assert request.remote_addr is None
    assert request.server is None
    assert request.get_data() == b""


def test_constructing_reads_nothing() -> None:
    environ = make_environ("POST", body=b"abc")
    environ["wsgi.input"] = StrictInput(b"abc", allowed=0)
    request = WSGIRequest(environ)
    assert request.method == "POST"
    assert request.headers.get("content-length") == "3"


# -- headers --------------------------------------------------------------------


def headers_environ() -> dict[str, Any]:
    environ = make_environ(
        headers=[
            ("Host", "example.com"),
            ("Accept", "text/html"),
            ("X-Custom-Header", "caf\xe9"),
            ("Cookie", "a=1; b=2"),
        ],
        content_type="text/plain",
        content_length="0",
    )
    # Some servers copy these two; PEP 3333 says the unprefixed keys hold them.
    environ["HTTP_CONTENT_TYPE"] = "application/ignored"
    return environ


def test_headers_read_from_the_environ() -> None:
    headers = WSGIRequest(headers_environ()).headers
    assert headers.get("host") == "example.com"
    assert headers.get("HOST") == "example.com"
    assert headers["x-custom-header"] == "caf\xe9"
    assert headers.get("content-type") == "text/plain"
    assert headers.getlist("Content-Length") == ["0"]
    assert headers.getlist("missing") == []
    assert headers.get("missing") is None
    assert headers.get("missing", "default") == "default"
    assert headers.get_joined("accept") == "text/html"
    assert "cookie" in headers
    assert "missing" not in headers
    assert 3 not in headers
    with pytest.raises(KeyError):
        headers["missing"]


def test_headers_listing() -> None:
    headers = WSGIRequest(headers_environ()).headers
    expected = [
        ("content-type", "text/plain"),
        ("content-length", "0"),
        ("host", "example.com"),
        ("accept", "text/html"),
        ("x-custom-header", "caf\xe9"),
        ("cookie", "a=1; b=2"),
    ]
    assert sorted(headers.items()) == sorted(expected)
    assert len(headers) == len(expected)
    assert sorted(headers) == sorted(name for name, _ in expected)
    assert sorted(headers.keys()) == sorted(name for name, _ in expected)
    assert sorted(headers.values()) == sorted(value for _, value in expected)
    raw = dict(headers.raw())
    assert raw[b"x-custom-header"] == b"caf\xe9"
    assert headers == Headers(headers.items())
    assert Headers(headers) == headers
    copied = MutableHeaders(headers)
    copied.add("x-more", "1")
    assert copied.get("host") == "example.com"
    assert "EnvironHeaders(" in repr(headers)


def test_empty_content_type_and_length_are_absent() -> None:
    environ = make_environ(content_type="", content_length="")
    request = WSGIRequest(environ)
    assert request.headers.get("content-type") is None
    assert "content-length" not in request.headers
    assert request.headers.items() == [("host", "localhost")]
    assert request.content_type is None
    assert request.content_length is None


def test_headers_feed_the_parsed_attributes() -> None:
    request = WSGIRequest(headers_environ())
    assert request.cookies.get("b") == "2"
    assert request.mimetype == "text/plain"
    assert request.content_length == 0
    assert request.accept_mimetypes.best_match(["text/html", "application/json"]) == "text/html"


def test_headers_are_not_copied() -> None:
    environ = make_environ()
    request = WSGIRequest(environ)
    # A middleware that sets a header after the request was built is seen.
    environ["HTTP_X_LATE"] = "yes"
    assert request.headers.get("x-late") == "yes"


# -- the body -------------------------------------------------------------------


def test_get_data_reads_once_and_keeps_it() -> None:
    request = WSGIRequest(make_environ("POST", body=b"hello"))
    assert request.get_data() == b"hello"
    assert request.get_data() == b"hello"
    # The stream after get_data() reads the kept bytes again.
    assert request.input_stream.read() == b"hello"
    assert request.input_stream.read(2) == b"he"


def test_stream_is_read_once() -> None:
    request = WSGIRequest(make_environ("POST", body=b"hello"))
    assert isinstance(request.input_stream, InputStream)
    assert request.input_stream is request.input_stream
    assert request.input_stream.read(2) == b"he"
    with pytest.raises(RuntimeError, match="already streamed"):
        request.get_data()


def test_no_body() -> None:
    request = WSGIRequest(make_environ("POST"))
    assert request.get_data() == b""
    assert request.get_form().to_dict() == {}


def test_max_content_length_is_413_before_reading() -> None:
    environ = make_environ("POST", body=b"x" * 100)
    environ["wsgi.input"] = StrictInput(b"x" * 100, allowed=0)
    request = WSGIRequest(environ, max_content_length=99)
    with pytest.raises(RequestEntityTooLarge):
        request.get_data()


def test_max_content_length_bounds_chunked_input() -> None:
    environ = make_environ(
        "POST",
        body=b"x" * 1000,
        content_length=None,
        terminated=True,
        headers=[("Transfer-Encoding", "chunked")],
    )
    request = WSGIRequest(environ, max_content_length=100)
    with pytest.raises(RequestEntityTooLarge):
        request.get_data()
    assert environ["wsgi.input"].position == 101


def test_chunked_body_without_terminated_input_is_411() -> None:
    environ = make_environ(
        "POST",
        body=b"5\r\nhello\r\n0\r\n\r\n",
        content_length=None,
        content_type="application/x-www-form-urlencoded",
        headers=[("Transfer-Encoding", "chunked")],
    )
    request = WSGIRequest(environ)
    with pytest.raises(LengthRequired):
        request.get_data()
    with pytest.raises(LengthRequired):
        request.get_form()


def test_short_body_is_client_disconnected() -> None:
    request = WSGIRequest(make_environ("POST", body=b"abc", content_length="10"))
    with pytest.raises(ClientDisconnected):
        request.get_data()


def test_json() -> None:
    body = b'{"name": "caf\xc3\xa9", "n": [1, 2]}'
    request = WSGIRequest(make_environ("POST", body=body, content_type="application/json"))
    assert request.get_json() == {"name": "caf\u00e9", "n": [1, 2]}
    assert request.get_data() == body


def test_invalid_json_is_400() -> None:
    request = WSGIRequest(make_environ("POST", body=b"{nope", content_type="application/json"))
    with pytest.raises(BadRequest):
        request.get_json()


def test_urlencoded_form() -> None:
    environ = make_environ(
        "POST",
        body=b"a=1&b=caf%C3%A9&a=2",
        content_type="application/x-www-form-urlencoded",
    )
    request = WSGIRequest(environ)
    assert request.get_form().getlist("a") == ["1", "2"]
    assert request.get_form()["b"] == "caf\u00e9"
    assert len(request.get_files()) == 0
    assert request.get_form() is request.get_form()


def test_form_after_get_data_uses_the_kept_bytes() -> None:
    environ = make_environ("POST", body=b"a=1", content_type="application/x-www-form-urlencoded")
    request = WSGIRequest(environ)
    assert request.get_data() == b"a=1"
    assert request.get_form()["a"] == "1"


def test_form_of_another_type_is_empty_and_reads_nothing() -> None:
    environ = make_environ("POST", body=b"{}", content_type="application/json")
    environ["wsgi.input"] = StrictInput(b"{}", allowed=0)
    request = WSGIRequest(environ)
    assert request.get_form().to_dict() == {}
    assert len(request.get_files()) == 0


def test_multipart_files_are_spooled_and_closed() -> None:
    body = multipart(("field", None, b"value"), ("upload", "a.bin", b"\x00\x01" * 1000))
    made: list[SpoolFile] = []

    def spool() -> SpoolFile:
        file = io.BytesIO()
        made.append(file)
        return file

    environ = make_environ("POST", body=body, content_type=MULTIPART_TYPE)
    with WSGIRequest(environ, spool=spool) as request:
        assert request.get_form()["field"] == "value"
        upload = request.get_files()["upload"]
        assert upload.filename == "a.bin"
        assert upload.size == 2000
        assert upload.read() == b"\x00\x01" * 1000
        assert holds_files(request)
    assert len(made) == 1
    assert all(file.closed for file in made)  # type: ignore[attr-defined]
    assert not holds_files(request)
    request.close()  # twice is fine


def test_default_spool_is_a_spooled_temporary_file() -> None:
    body = multipart(("upload", "a.txt", b"hello"))
    request = WSGIRequest(make_environ("POST", body=body, content_type=MULTIPART_TYPE))
    stream = request.get_files()["upload"].stream
    assert isinstance(stream, tempfile.SpooledTemporaryFile)
    request.close()
    assert stream.closed


def test_form_limits_apply() -> None:
    body = multipart(("upload", "a.bin", b"x" * 5000))
    environ = make_environ("POST", body=body, content_type=MULTIPART_TYPE)
    request = WSGIRequest(environ, form_limits=FormLimits(max_content_length=1000))
    with pytest.raises(RequestEntityTooLarge):
        request.get_files()
    request.close()


def test_a_failed_form_leaves_no_open_spool() -> None:
    body = multipart(("upload", "a.bin", b"x" * 5000))[:-30]
    made: list[io.BytesIO] = []

    def spool() -> SpoolFile:
        made.append(io.BytesIO())
        return made[-1]

    environ = make_environ("POST", body=body, content_type=MULTIPART_TYPE)
    request = WSGIRequest(environ, spool=spool)
    with pytest.raises(BadRequest):
        request.get_form()
    request.close()
    assert made
    assert all(file.closed for file in made)


def test_malformed_multipart_is_400() -> None:
    environ = make_environ("POST", body=b"garbage", content_type=MULTIPART_TYPE)
    with pytest.raises(BadRequest):
        WSGIRequest(environ).get_form()


def test_propagating_exceptions_is_asked_by_the_environ() -> None:
    from sansio_http.messages._request import RAISE_EXCEPTIONS

    environ = make_environ()
    assert not WSGIRequest(environ).propagate_exceptions
    environ[RAISE_EXCEPTIONS] = True
    assert WSGIRequest(environ).propagate_exceptions
