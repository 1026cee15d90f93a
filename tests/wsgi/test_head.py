"""The WSGI adapter refuses heads the core's checks refuse, before the handler runs.

The applications run under ``wsgiref.validate`` (``run``), so each refusal
is also a valid PEP 3333 response, except where the environ itself is one
``wsgiref.validate`` rejects (a PATH_INFO without ``/``, an invalid
CONTENT_LENGTH): servers do pass those on, so they are called directly.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from sansio_http import App, BadRequest, HeadLimits, RequestEntityTooLarge
from sansio_http.messages._response import Response
from sansio_http.testing import Client
from sansio_http.wsgi import WSGIRequest, to_wsgi, wsgi_app
from sansio_http.wsgi._environ import check_environ
from sansio_http.wsgi._input import InputStream, content_length

from .conftest import Result, make_environ, run

seen: list[WSGIRequest] = []


def handler(request: WSGIRequest) -> Response:
    seen.append(request)
    return Response(f"{request.method} {request.root_path}|{request.path}")


@pytest.fixture(autouse=True)
def _forget() -> None:
    seen.clear()


def answer(environ: dict[str, Any], limits: HeadLimits | None = None) -> Result:
    return run(wsgi_app(handler, head_limits=limits), environ)


def answer_unvalidated(environ: dict[str, Any]) -> Result:
    """Call the application as a server that passes anything on would."""
    calls: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        calls.append((status, headers))

    body = b"".join(wsgi_app(handler)(environ, start_response))
    (status, headers), *_ = calls
    return Result(status, headers, body)


def refused(
    environ: dict[str, Any],
    status: int,
    limits: HeadLimits | None = None,
    *,
    validate: bool = True,
) -> Result:
    result = answer(environ, limits) if validate else answer_unvalidated(environ)
    assert result.status_code == status, result.body
    assert not seen, "the handler ran"
    assert result.header("connection") is None
    return result


def without_host(environ: dict[str, Any]) -> dict[str, Any]:
    del environ["HTTP_HOST"]
    return environ


def test_an_ordinary_request_reaches_the_handler() -> None:
    assert answer(make_environ("GET", "/a")).body == b"GET |/a"


# -- Host ---------------------------------------------------------------------------------


def test_http_11_without_host_is_400() -> None:
    # gunicorn passes such a request on.
    result = refused(without_host(make_environ()), 400)
    assert b"needs a Host header" in result.body


def test_http_10_without_host_is_served() -> None:
    environ = without_host(make_environ())
    environ["SERVER_PROTOCOL"] = "HTTP/1.0"
    assert answer(environ).status_code == 200


# -- request targets ----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["url", "443", "a:b"])
def test_a_path_without_a_leading_slash_is_400(path: str) -> None:
    # It used to be served as "/url"; gunicorn turns "CONNECT a:443" into "443".
    refused(make_environ("GET", path), 400, validate=False)


def test_an_empty_path_info_is_the_mount_root() -> None:
    # PEP 3333: a request for SCRIPT_NAME itself has an empty PATH_INFO.
    assert answer(make_environ("GET", "", script_name="/app")).body == b"GET /app|/"


def test_options_asterisk_gets_204_without_the_handler() -> None:
    result = answer_unvalidated(make_environ("OPTIONS", "*"))
    assert (result.status_code, result.body) == (204, b"")
    assert not seen


def test_asterisk_for_another_method_is_400() -> None:
    refused(make_environ("GET", "*"), 400, validate=False)


def test_connect_is_501() -> None:
    environ = make_environ("CONNECT", "443")
    environ["RAW_URI"] = "example.com:443"
    refused(environ, 501, validate=False)


@pytest.mark.parametrize("key", ["RAW_URI", "REQUEST_URI"])
def test_absolute_form_must_name_the_host(key: str) -> None:
    # gunicorn strips the authority into nowhere: PATH_INFO is "/p" and Host
    # is whatever the client wrote, so only the target as sent tells.
    environ = make_environ("GET", "/p", headers=[("host", "example.com")])
    environ[key] = "http://example.com/p?q=1"
    assert answer(environ).body == b"GET |/p"
    seen.clear()
    environ = make_environ("GET", "/p", headers=[("host", "example.com")])
    environ[key] = "http://evil.example/p"
    refused(environ, 400)


def test_a_long_target_is_414() -> None:
    environ = make_environ("GET", "/x")
    environ["RAW_URI"] = "/x?" + "a" * 9000
    refused(environ, 414)


def test_a_long_path_without_the_raw_target_is_414() -> None:
    refused(make_environ("GET", "/" + "a" * 5000, "q=" + "b" * 5000), 414)


def test_the_limits_are_configurable() -> None:
    limits = HeadLimits(max_target_size=10)
    refused(make_environ("GET", "/0123456789"), 414, limits)
    app = App()
    app.get("/<path:rest>")(lambda request, rest: rest)
    result = run(to_wsgi(app, head_limits=limits), make_environ("GET", "/0123456789"))
    assert result.status_code == 414


# -- framing ------------------------------------------------------------------------------


def test_content_length_with_transfer_encoding_is_400() -> None:
    environ = make_environ(
        "POST", body=b"abc", headers=[("transfer-encoding", "chunked")], terminated=True
    )
    result = refused(environ, 400)
    assert b"Content-Length and Transfer-Encoding" in result.body


def test_an_invalid_content_length_is_400_unread() -> None:
    # The handler never reads the body, and the request is still refused.
    refused(make_environ("POST", content_length="12a"), 400, validate=False)


@pytest.mark.parametrize("value", ["9223372036854775808", "9" * 30, "1" * 5000])
def test_a_content_length_no_body_can_have_is_413_at_once(value: str) -> None:
    # "1" * 5000 used to make int() raise ValueError: a 500.
    environ = make_environ("POST", content_length=value, wsgi_input=io.BytesIO())
    refused(environ, 413, validate=False)


def test_a_content_length_over_the_limit_is_413_when_read() -> None:
    def read(request: WSGIRequest) -> Response:
        return Response(request.get_data())

    app = wsgi_app(read, max_content_length=10)
    assert run(app, make_environ("POST", content_length="11")).status_code == 413


# -- header count and size -------------------------------------------------------------


def test_more_header_fields_than_the_limit_is_431() -> None:
    fields = [(f"x-{index}", "1") for index in range(100)]
    refused(make_environ("GET", headers=fields), 431)


def test_the_count_limit_counts_only_header_fields() -> None:
    # An environ has some twenty other keys: they are not fields.
    fields = [(f"x-{index}", "1") for index in range(95)]
    assert answer(make_environ("GET", headers=fields)).status_code == 200


def test_header_size_is_left_to_the_server() -> None:
    # Measuring it would walk the environ on every request; WSGI servers
    # bound each field themselves (docs/security.rst).
    environ = make_environ("GET", headers=[("cookie", "a=" + "b" * 20000)])
    assert answer(environ).status_code == 200


# -- through the test client ---------------------------------------------------------


def test_the_test_client_sees_the_refusals() -> None:
    client = Client(wsgi_app(handler, head_limits=HeadLimits(max_header_count=5)))
    assert client.get("/a").status_code == 200
    assert client.get("/a", headers={"content-length": "x"}).status_code == 400
    assert client.get("/a", headers={"content-length": "9" * 20}).status_code == 413
    many = {f"x-{index}": "1" for index in range(5)}
    assert client.get("/a", headers=many).status_code == 431


def test_the_input_stream_refuses_what_no_body_can_have_without_a_limit() -> None:
    # For callers that read a WSGIRequest outside wsgi_app's checks.
    environ = make_environ("POST", content_length="9" * 30, wsgi_input=io.BytesIO())
    with pytest.raises(RequestEntityTooLarge):
        InputStream(environ)


def test_a_content_length_that_is_not_text_is_400() -> None:
    with pytest.raises(BadRequest):
        content_length({"CONTENT_LENGTH": 12})


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, None),
        ({"CONTENT_LENGTH": "12"}, 12),
        ({"CONTENT_LENGTH": "0012"}, 12),
        # Past the fast path (no Host): the core's framing check gives the length.
        ({"CONTENT_LENGTH": "7, 7", "SERVER_PROTOCOL": "HTTP/1.0"}, 7),
    ],
)
def test_the_checked_length_becomes_the_requests(
    changes: dict[str, str], expected: int | None
) -> None:
    environ = make_environ("POST", headers=[("Host", "example.com")])
    environ.pop("CONTENT_LENGTH", None)
    environ.update(changes)
    if "SERVER_PROTOCOL" in changes:
        del environ["HTTP_HOST"]
    # The request's own environ says otherwise, so the value can only come from the check.
    request = WSGIRequest(make_environ("POST", body=b"x" * 999))
    assert check_environ(environ, HeadLimits(), request) is None
    assert request.content_length == expected
