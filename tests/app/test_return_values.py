"""What a view or a bare handler returns, and the mistakes refused naming it.

The App turns a view's Response, str, bytes, dict, list or (body, status[,
headers]) tuple into a response; anything else, and a dict that JSON cannot
encode, is a TypeError naming the view by module and qualified name. A bare
handler (``wsgi_app`` / ``asgi_app``) returns a Response, or gets the same
kind of TypeError naming it. ``abort(response)`` answers with that response
exactly. Each test runs the same views under both adapters.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timezone
from typing import Any

import pytest

from sansio_http import App, HeaderValueError, Response, abort, redirect
from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.testing import Client
from sansio_http.wsgi import WSGIRequest, wsgi_app

MODULE = __name__
WHEN = datetime(2015, 10, 21, 7, 28, tzinfo=timezone.utc)


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def quiet(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.ERROR)
    return caplog


def client(app: App, interface: str, **options: Any) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi", **options)


def returning(value: Any) -> App:
    """An App whose views, one def and one async def, return ``value``."""
    app = App()

    @app.get("/sync")
    def index(request: Any) -> Any:
        return value

    @app.get("/async")
    async def async_index(request: Any) -> Any:
        return value

    return app


PATHS = [("/sync", "index"), ("/async", "async_index")]

# -- abort(response) ---------------------------------------------------------------------


def aborting_app() -> App:
    app = App()

    @app.get("/sync")
    def banned(request: Any) -> str:
        abort(Response("go away", 403, {"X-Reason": "banned"}, content_type="text/plain"))

    @app.get("/async")
    async def async_banned(request: Any) -> str:
        abort(Response("go away", 403, {"X-Reason": "banned"}, content_type="text/plain"))

    @app.get("/moved")
    def moved(request: Any) -> str:
        abort(redirect("/elsewhere"))

    return app


@pytest.mark.parametrize("path", ["/sync", "/async"])
def test_abort_with_a_response_answers_with_it_under_the_app(interface: str, path: str) -> None:
    answer = client(aborting_app(), interface).get(path, headers={"accept": "application/json"})
    assert answer.status_code == 403
    assert answer.headers["x-reason"] == "banned"
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    assert answer.content == b"go away"


def test_abort_with_a_redirect(interface: str) -> None:
    answer = client(aborting_app(), interface).get("/moved")
    assert answer.status_code == 302
    assert answer.headers["location"] == "/elsewhere"


def test_an_aborted_response_skips_the_error_handler_of_its_status(interface: str) -> None:
    app = aborting_app()

    @app.errorhandler(403)
    def forbidden(request: Any, exc: Exception) -> tuple[str, int]:
        return "handled", 403

    response = client(app, interface).get("/sync")
    assert response.status_code == 403
    assert response.content == b"go away"


def test_abort_with_a_response_answers_with_it_from_a_bare_handler(interface: str) -> None:
    def answer() -> Response:
        abort(Response(b"teapot", 418, {"X-Reason": "short"}))

    if interface == "wsgi":

        def sync_handler(request: WSGIRequest) -> Response:
            return answer()

        bare = Client(wsgi_app(sync_handler), interface="wsgi")
    else:

        async def async_handler(request: ASGIRequest) -> Response:
            return answer()

        bare = Client(asgi_app(async_handler), interface="asgi")
    response = bare.get("/", headers={"accept": "application/json"})
    assert (response.status_code, response.headers["x-reason"]) == (418, "short")
    assert response.content == b"teapot"


# -- what a view may not return ----------------------------------------------------------


def _fix() -> str:
    return r"return a Response, str, bytes, dict or list, or a \(body, status\[, headers\]\) tuple"


@pytest.mark.parametrize(
    ("value", "what"),
    [
        (None, "None"),
        (42, "int"),
        (object(), "object"),
        ((), "a tuple of length 0"),
        (("a",), "a tuple of length 1"),
        (("a", 200, {}, "extra"), "a tuple of length 4"),
        ({1, 2}, "set"),
    ],
)
@pytest.mark.parametrize(("path", "name"), PATHS)
def test_a_refused_value_names_the_view(
    interface: str, value: Any, what: str, path: str, name: str
) -> None:
    message = rf"the view '{MODULE}\.returning\.<locals>\.{name}' returned {what}: {_fix()}"
    with pytest.raises(TypeError, match=message):
        client(returning(value), interface).get(path)


@pytest.mark.parametrize(("path", "name"), PATHS)
def test_a_dict_json_cannot_encode_names_the_view(interface: str, path: str, name: str) -> None:
    message = (
        rf"the view '{MODULE}\.returning\.<locals>\.{name}' returned a dict that JSON cannot"
        r" encode: Object of type datetime is not JSON serializable"
    )
    with pytest.raises(TypeError, match=message):
        client(returning({"when": WHEN}), interface).get(path)
    with pytest.raises(TypeError, match=message.replace("a dict", "a list")):
        client(returning(([WHEN], 201)), interface).get(path)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (("a", "200"), r"status must be an int, not str"),
        (("a", {"X": "1"}), r"status must be an int, not dict"),
        (("a", 200, 7), r"header fields must be a mapping"),
        (({"a": 1}, "201"), r"status must be an int, not str"),
    ],
)
def test_a_tuple_of_the_wrong_shape_names_the_view(interface: str, value: Any, says: str) -> None:
    with pytest.raises(TypeError, match=rf"the view '{MODULE}\.returning.*'.*{says}"):
        client(returning(value), interface).get("/sync")


def test_value_errors_keep_their_type_and_name_the_view() -> None:
    app = returning({"x": math.inf})
    with pytest.raises(ValueError, match=r"the view '.*\.index' returned .*JSON has no NaN"):
        Client(app, interface="wsgi").get("/sync")
    with pytest.raises(ValueError, match=r"the view '.*\.index' .*has no content"):
        Client(returning(("text", 204)), interface="wsgi").get("/sync")


def test_a_header_that_cannot_be_sent_keeps_its_type_and_names_the_view() -> None:
    app = returning(("text", 200, {"X-A": "a\nb"}))
    with pytest.raises(
        HeaderValueError, match=r"the view '.*\.index' returned a \(str, int, dict\)"
    ):
        Client(app, interface="wsgi").get("/sync")
    with pytest.raises(ValueError, match=r"the view '.*\.index' returned a str, which cannot"):
        Client(returning("\ud800"), interface="wsgi").get("/sync")


def test_make_response_without_a_view_still_explains() -> None:
    with pytest.raises(TypeError, match=rf"the view returned None: {_fix()}"):
        App().make_response(None)


def test_a_refused_value_is_a_500_without_the_traceback(
    interface: str, quiet: pytest.LogCaptureFixture
) -> None:
    answer = client(returning({"when": WHEN}), interface, raise_app_exceptions=False).get("/sync")
    assert answer.status_code == 500
    assert b"datetime" not in answer.content
    assert b"Traceback" not in answer.content
    assert "returned a dict that JSON cannot encode" in quiet.text


# -- what a bare handler may not return --------------------------------------------------


def bare_client(value: Any, interface: str, **options: Any) -> tuple[Client, str]:
    """Mount a bare handler returning ``value``; return the client and its name."""
    if interface == "wsgi":

        def sync_handler(request: WSGIRequest) -> Any:
            return value

        return Client(wsgi_app(sync_handler), interface="wsgi", **options), "sync_handler"

    async def async_handler(request: ASGIRequest) -> Any:
        return value

    return Client(asgi_app(async_handler), interface="asgi", **options), "async_handler"


@pytest.mark.parametrize(
    ("value", "what"), [(None, "None"), ("text", "str"), ({"a": 1}, "dict"), (b"x", "bytes")]
)
def test_a_bare_handler_returning_no_response_is_named(
    interface: str, value: Any, what: str
) -> None:
    bare, name = bare_client(value, interface)
    message = (
        rf"the handler '{MODULE}\.bare_client\.<locals>\.{name}' returned {what}:"
        r" a handler returns a Response"
    )
    with pytest.raises(TypeError, match=message):
        bare.get("/")


def test_a_bare_handler_returning_none_is_a_500_without_the_traceback(
    interface: str, quiet: pytest.LogCaptureFixture
) -> None:
    bare, name = bare_client(None, interface, raise_app_exceptions=False)
    answer = bare.get("/")
    assert answer.status_code == 500
    assert b"Traceback" not in answer.content
    assert name.encode() not in answer.content
    assert f"the handler '{MODULE}.bare_client.<locals>.{name}' returned None" in quiet.text


def test_a_response_subclass_from_a_bare_handler_is_sent(interface: str) -> None:
    class Custom(Response):
        __slots__ = ()

    bare, _ = bare_client(Custom(b"ok"), interface)
    assert bare.get("/").content == b"ok"
