"""Every response the core builds passes ``wsgiref.validate`` under ``wsgi_app``.

The validator wants a Content-Type on every status but 204 and 304 and
forbids one on those two; an application that breaks the rule answers 500.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sansio_http import Response, redirect
from sansio_http.messages._errors import _BY_STATUS, HTTPException
from sansio_http.routing import RequestRedirect
from sansio_http.wsgi import WSGIRequest, wsgi_app
from tests.wsgi.conftest import make_environ, run

BODY = b"0123456789"


def conditional(request: WSGIRequest) -> Response:
    response = Response(BODY, headers={"ETag": '"v1"'}, content_type="text/plain")
    return response.make_conditional(request)


@pytest.mark.parametrize(
    ("method", "headers", "status"),
    [
        ("GET", [("If-None-Match", '"v1"')], "304 Not Modified"),
        ("HEAD", [("If-None-Match", '"v1"')], "304 Not Modified"),
        ("GET", [("If-Match", '"v0"')], "412 Precondition Failed"),
        ("POST", [("If-None-Match", '"v1"')], "412 Precondition Failed"),
        ("GET", [("Range", "bytes=50-60")], "416 Range Not Satisfiable"),
        ("GET", [("Range", "bytes=2-4")], "206 Partial Content"),
        ("GET", [("Range", "bytes=0-1,5-6")], "206 Partial Content"),
        ("GET", [("If-None-Match", '"v0"')], "200 OK"),
    ],
)
def test_conditional_answers_pass_the_validator(
    method: str, headers: list[tuple[str, str]], status: str
) -> None:
    result = run(wsgi_app(conditional), make_environ(method, headers=headers))
    assert result.status == status
    has_type = result.header("content-type") is not None
    assert has_type == (result.status_code != 304)
    if result.status_code in (304, 412, 416):
        assert result.body == b""


def raising(error: HTTPException) -> Callable[[WSGIRequest], Response]:
    def handler(request: WSGIRequest) -> Response:
        raise error

    return handler


@pytest.mark.parametrize("status", sorted(_BY_STATUS))
@pytest.mark.parametrize("accept", ["text/html", "application/json"])
def test_every_error_response_passes_the_validator(status: int, accept: str) -> None:
    app = wsgi_app(raising(_BY_STATUS[status]()))
    result = run(app, make_environ(headers=[("Accept", accept)]))
    assert result.status_code == status
    assert result.header("content-type") is not None


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_pass_the_validator(status: int) -> None:
    result = run(wsgi_app(lambda request: redirect("/next", status)), make_environ())
    assert result.status_code == status
    assert result.header("location") == "/next"


def test_the_trailing_slash_redirect_passes_the_validator() -> None:
    result = run(wsgi_app(raising(RequestRedirect("/docs/"))), make_environ(path="/docs"))
    assert result.status_code == 308
    assert result.header("location") == "/docs/"
