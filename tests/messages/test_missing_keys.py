"""A request field the client left out: ``BadRequestKeyError``, a KeyError and a 400.

``request.args[key]``, ``request.cookies[key]`` and the decoded form and files raise it,
so a view that indexes a missing field answers 400 naming the field (as Flask does), not
500; ``get()`` and ``in`` are unchanged.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from sansio_http import (
    App,
    BadRequest,
    BadRequestKeyError,
    BodyRequest,
    FormData,
    HTTPError,
    ImmutableMultiDict,
    Request,
    UploadedFile,
)
from sansio_http.testing import Client


def make(query_string: bytes = b"", cookie: str | None = None) -> Request:
    headers = [("cookie", cookie)] if cookie is not None else []
    return Request("GET", "/", query_string, headers, "http", None, "")


# -- the error ------------------------------------------------------------------------------


def test_the_error_is_a_key_error_and_a_bad_request() -> None:
    error = BadRequestKeyError("page")
    assert isinstance(error, KeyError)
    assert isinstance(error, BadRequest)
    assert isinstance(error, HTTPError)
    assert error.status == 400
    assert error.key == "page"
    # As for any KeyError, args hold the key; the detail names it for the client.
    assert error.args == ("page",)
    assert error.detail == "The request has no value for 'page'."
    assert str(error) == "400 Bad Request: The request has no value for 'page'."


def test_the_error_takes_a_detail_and_headers() -> None:
    error = BadRequestKeyError("page", "Say which page.", headers={"X-Hint": "page"})
    assert (error.detail, error.headers, error.args) == (
        "Say which page.",
        {"X-Hint": "page"},
        ("page",),
    )


def test_the_error_response_names_the_key_escaped() -> None:
    response = BadRequestKeyError("<b>").to_response()
    assert response.status == 400
    assert isinstance(response.body, bytes)
    assert b"&#x27;&lt;b&gt;&#x27;" in response.body


def test_the_error_is_caught_where_a_key_error_is() -> None:
    with pytest.raises(KeyError) as caught:
        make(b"a=1").args["b"]
    assert caught.value.args[0] == "b"


# -- args and cookies -----------------------------------------------------------------------


def test_a_missing_query_argument_is_a_bad_request_key_error() -> None:
    request = make(b"a=1&a=2")
    with pytest.raises(BadRequestKeyError) as caught:
        request.args["missing"]
    assert caught.value.key == "missing"
    assert request.args["a"] == "1"
    assert request.args.get("missing") is None
    assert "missing" not in request.args
    assert request.args.getlist("missing") == []
    assert isinstance(request.args, ImmutableMultiDict)
    assert repr(request.args) == "ImmutableMultiDict([('a', '1'), ('a', '2')])"


def test_a_missing_cookie_is_a_bad_request_key_error() -> None:
    request = make(cookie="sid=abc")
    assert request.cookies["sid"] == "abc"
    with pytest.raises(BadRequestKeyError, match="'theme'"):
        request.cookies["theme"]
    assert request.cookies.get("theme") is None


# -- forms ----------------------------------------------------------------------------------


def _upload() -> UploadedFile:
    return UploadedFile("f", "a.txt", "text/plain", [], io.BytesIO(b"x"), 1)


def test_a_missing_form_field_or_file_is_a_bad_request_key_error() -> None:
    # FormData gives its multidicts that behaviour, whoever built them.
    data = FormData(ImmutableMultiDict([("a", "1")]), ImmutableMultiDict([("f", _upload())]))
    form, files = data
    assert form["a"] == "1"
    assert files["f"].filename == "a.txt"
    for fields in (form, files):
        with pytest.raises(BadRequestKeyError, match="'missing'"):
            fields["missing"]
        assert fields.get("missing") is None
        assert "missing" not in fields
    assert data == FormData(form, files)
    assert form == ImmutableMultiDict([("a", "1")])
    assert FormData(form=form, files=files).form is form


# -- under the App --------------------------------------------------------------------------


def _app() -> App:
    app = App()

    @app.get("/args")
    def args(request: Request) -> str:
        return request.args["missing"]

    @app.get("/cookie")
    def cookie(request: Request) -> str:
        return request.cookies["session"]

    @app.get("/args-or-default")
    def args_or_default(request: Request) -> str:
        return request.args.get("missing", "default")

    @app.post("/sync-form")
    def sync_form(request: BodyRequest) -> str:
        return request.get_form()["missing"]

    @app.post("/async-form")
    async def async_form(request: BodyRequest) -> str:
        return (await request.form())["missing"]

    @app.post("/sync-file")
    def sync_file(request: BodyRequest) -> str:
        return request.get_files()["missing"].filename

    return app


@pytest.fixture(params=["wsgi", "asgi"])
def client(request: pytest.FixtureRequest) -> Client:
    return Client(_app(), interface=request.param)


@pytest.mark.parametrize("path", ["/args", "/cookie"])
def test_a_view_that_indexes_a_missing_field_answers_400_naming_it(
    client: Client, path: str
) -> None:
    reply = client.get(path, headers={"accept": "application/json"})
    assert reply.status_code == 400
    detail = json.loads(reply.content)["detail"]
    assert (
        detail == f"The request has no value for {'missing' if path == '/args' else 'session'!r}."
    )


def test_get_with_a_default_is_unchanged(client: Client) -> None:
    assert client.get("/args-or-default").text == "default"


@pytest.mark.parametrize("path", ["/sync-form", "/async-form", "/sync-file"])
def test_a_view_that_indexes_a_missing_form_field_answers_400(client: Client, path: str) -> None:
    reply = client.post(path, data={"present": "1"}, headers={"accept": "application/json"})
    assert reply.status_code == 400
    assert json.loads(reply.content)["detail"] == "The request has no value for 'missing'."


def test_a_handler_for_400_takes_it_before_one_for_key_error() -> None:
    app = _app()
    seen: list[Any] = []

    @app.errorhandler(KeyError)
    def on_key_error(request: Request, exc: Exception) -> tuple[str, int]:
        seen.append("KeyError")
        return "key", 500

    @app.errorhandler(BadRequest)
    def on_bad_request(request: Request, exc: Exception) -> tuple[str, int]:
        seen.append(type(exc).__name__)
        return "bad", 400

    reply = Client(app, interface="wsgi").get("/args")
    assert (reply.status_code, reply.text, seen) == (400, "bad", ["BadRequestKeyError"])
