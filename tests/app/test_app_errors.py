"""The App's answer to exceptions, as Flask users expect it.

- The handler of 500 (or of ``InternalServerError``) gets the exceptions
  that nothing else handled, wrapped, with ``original_exception`` set.
- Teardown hooks get the unhandled exception; ``None`` for an answer.
- ``propagate=True`` raises the unhandled exception after the teardown.
- The debug page only for a request that is local twice over.

Each test runs through both dispatch drivers.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from sansio_http import InternalServerError
from sansio_http.app import App, AppConfig, Blueprint
from sansio_http.app._debug import is_local
from sansio_http.messages._errors import BadRequest, HTTPError, NotFound
from sansio_http.messages._request import Request
from sansio_http.routing import AllowedMethods, RequestRedirect, RoutingAnswer
from sansio_http.testing import Client, Interface
from tests.app.test_app import Dispatch, async_dispatch, body, make_request, sync_dispatch


@pytest.fixture(params=[sync_dispatch, async_dispatch], ids=["sync-driver", "async-driver"])
def dispatch(request: pytest.FixtureRequest) -> Dispatch:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def quiet(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL, "sansio_http.app")


class Boom(Exception):
    pass


def crashing_app(**config: Any) -> App:
    app = App(config=AppConfig(**config))

    @app.get("/crash")
    def crash(request: Request) -> str:
        raise Boom("view bug")

    @app.get("/refuse")
    async def refuse(request: Request) -> str:
        raise BadRequest("no name")

    @app.get("/missing")
    def missing(request: Request) -> str:
        raise NotFound

    @app.get("/explicit")
    def explicit(request: Request) -> str:
        raise InternalServerError("said so")

    return app


# -- the handler of 500 ------------------------------------------------------------


@pytest.mark.parametrize("key", [500, InternalServerError])
def test_the_500_handler_gets_unhandled_exceptions_wrapped(
    dispatch: Dispatch, key: int | type[Exception]
) -> None:
    app = crashing_app()
    got: list[Exception] = []

    @app.errorhandler(key)
    async def server_error(request: Request, exc: Exception) -> Any:
        got.append(exc)
        return {"error": "sorry"}, 500

    response = dispatch(app, make_request(path="/crash"))
    assert (response.status, body(response)) == (500, b'{"error":"sorry"}')
    [error] = got
    assert isinstance(error, InternalServerError)
    assert isinstance(error.original_exception, Boom)
    assert str(error.original_exception) == "view bug"


def test_http_errors_keep_their_own_answers(dispatch: Dispatch) -> None:
    app = crashing_app()
    got: list[Exception] = []

    @app.errorhandler(500)
    def server_error(request: Request, exc: Exception) -> Any:
        got.append(exc)
        return "custom 500", 500

    @app.errorhandler(404)
    def not_found(request: Request, exc: Exception) -> Any:
        return "custom 404", 404

    assert body(dispatch(app, make_request(path="/missing"))) == b"custom 404"
    refused = dispatch(app, make_request(path="/refuse"))
    assert refused.status == 400
    assert b"no name" in body(refused)
    assert got == []
    # An InternalServerError raised as itself reaches the handler unwrapped.
    assert body(dispatch(app, make_request(path="/explicit"))) == b"custom 500"
    [explicit] = got
    assert isinstance(explicit, InternalServerError)
    assert explicit.detail == "said so"
    assert explicit.original_exception is None


def test_the_handler_of_the_class_comes_before_the_500_handler(dispatch: Dispatch) -> None:
    app = crashing_app()

    @app.errorhandler(500)
    def server_error(request: Request, exc: Exception) -> Any:
        return "500 handler", 500

    @app.errorhandler(Boom)
    def boom(request: Request, exc: Exception) -> Any:
        return "boom handler", 503

    response = dispatch(app, make_request(path="/crash"))
    assert (response.status, body(response)) == (503, b"boom handler")


def test_a_handler_that_raises_again_hands_over_to_the_500_handler(dispatch: Dispatch) -> None:
    app = crashing_app()
    got: list[BaseException | None] = []

    @app.errorhandler(Boom)
    def boom(request: Request, exc: Exception) -> Any:
        raise exc

    @app.errorhandler(500)
    def server_error(request: Request, exc: InternalServerError) -> Any:
        got.append(exc.original_exception)
        return "500 handler", 500

    assert body(dispatch(app, make_request(path="/crash"))) == b"500 handler"
    assert [type(exc) for exc in got] == [Boom]


def test_a_blueprint_500_handler_covers_its_own_views(dispatch: Dispatch) -> None:
    app = App()
    api = Blueprint("api", url_prefix="/api")

    @api.errorhandler(500)
    def api_error(request: Request, exc: InternalServerError) -> Any:
        return {"error": type(exc.original_exception).__name__}, 500

    @api.get("/crash")
    def api_crash(request: Request) -> str:
        raise Boom

    @app.get("/crash")
    def crash(request: Request) -> str:
        raise Boom

    app.register_blueprint(api)
    assert body(dispatch(app, make_request(path="/api/crash"))) == b'{"error":"Boom"}'
    assert b"Internal Server Error" in body(dispatch(app, make_request(path="/crash")))


@pytest.mark.parametrize("failure", [KeyError("handler bug"), None])
def test_a_failing_500_handler_is_a_bare_500(dispatch: Dispatch, failure: Exception | None) -> None:
    app = crashing_app()

    @app.errorhandler(500)
    def server_error(request: Request, exc: Exception) -> Any:
        raise failure or exc

    response = dispatch(app, make_request(path="/crash"))
    assert response.status == 500
    assert b"The server met an unexpected condition" in body(response)


def test_a_500_handler_may_answer_with_another_http_error(dispatch: Dispatch) -> None:
    app = crashing_app()

    @app.errorhandler(500)
    def server_error(request: Request, exc: Exception) -> Any:
        raise NotFound("hidden")

    response = dispatch(app, make_request(path="/crash"))
    assert response.status == 404
    assert b"hidden" in body(response)


def test_the_500_handler_is_logged_around(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = crashing_app()

    @app.errorhandler(500)
    def server_error(request: Request, exc: Exception) -> Any:
        return "custom", 500

    with caplog.at_level(logging.ERROR, "sansio_http.app"):
        dispatch(app, make_request(path="/crash"))
    assert "view bug" in caplog.text


# -- teardown ----------------------------------------------------------------------


def with_teardown(app: App) -> list[BaseException | None]:
    seen: list[BaseException | None] = []

    @app.teardown_request
    async def teardown(request: Request, exc: BaseException | None) -> None:
        seen.append(exc)

    return seen


@pytest.mark.parametrize("with_500_handler", [False, True])
def test_teardown_gets_the_unhandled_exception(dispatch: Dispatch, with_500_handler: bool) -> None:
    app = crashing_app()
    seen = with_teardown(app)
    if with_500_handler:
        app.errorhandler(500)(lambda request, exc: ("custom", 500))
    assert dispatch(app, make_request(path="/crash")).status == 500
    [exc] = seen
    assert isinstance(exc, Boom)


@pytest.mark.parametrize("path", ["/refuse", "/missing", "/explicit", "/nowhere"])
def test_teardown_gets_none_for_an_http_error(dispatch: Dispatch, path: str) -> None:
    app = crashing_app()
    seen = with_teardown(app)
    dispatch(app, make_request(path=path))
    assert seen == [None]


def test_teardown_gets_none_when_a_handler_answered(dispatch: Dispatch) -> None:
    app = crashing_app()
    seen = with_teardown(app)
    app.errorhandler(Boom)(lambda request, exc: ("handled", 200))
    assert body(dispatch(app, make_request(path="/crash"))) == b"handled"
    assert seen == [None]


def test_teardown_gets_what_a_failing_handler_raised(dispatch: Dispatch) -> None:
    app = crashing_app()
    seen = with_teardown(app)

    @app.errorhandler(Boom)
    def broken(request: Request, exc: Exception) -> Any:
        raise KeyError("handler bug")

    assert dispatch(app, make_request(path="/crash")).status == 500
    [exc] = seen
    assert isinstance(exc, KeyError)
    # Chained to the exception it was handling, for the logged traceback.
    assert isinstance(exc.__context__, Boom)


def test_a_failing_handler_keeps_its_own_chain(dispatch: Dispatch) -> None:
    app = crashing_app()
    seen = with_teardown(app)

    @app.errorhandler(Boom)
    def broken(request: Request, exc: Exception) -> Any:
        try:
            int("not a number")
        except ValueError:
            raise KeyError("handler bug") from None

    assert dispatch(app, make_request(path="/crash")).status == 500
    [exc] = seen
    assert isinstance(exc, KeyError)
    assert isinstance(exc.__context__, ValueError)


# -- propagation -------------------------------------------------------------------


def test_propagate_raises_after_the_teardown(dispatch: Dispatch) -> None:
    app = crashing_app()
    seen = with_teardown(app)
    handled: list[Exception] = []
    app.errorhandler(500)(lambda request, exc: handled.append(exc))
    with pytest.raises(Boom, match="view bug") as raised:
        dispatch(app, make_request(path="/crash"), propagate=True)
    assert seen == [raised.value]
    # As Flask's PROPAGATE_EXCEPTIONS: the 500 handler is not called.
    assert handled == []


def test_propagate_keeps_http_errors_and_handled_exceptions_as_answers(
    dispatch: Dispatch,
) -> None:
    app = crashing_app()
    app.errorhandler(Boom)(lambda request, exc: ("handled", 200))
    assert dispatch(app, make_request(path="/refuse"), propagate=True).status == 400
    assert dispatch(app, make_request(path="/nowhere"), propagate=True).status == 404
    assert body(dispatch(app, make_request(path="/crash"), propagate=True)) == b"handled"


def test_propagate_raises_what_an_after_hook_raised(dispatch: Dispatch) -> None:
    app = App()
    seen = with_teardown(app)
    app.add_route("/", lambda request: "ok", endpoint="index")

    @app.after_request
    def broken(request: Request, response: Any) -> Any:
        raise Boom("after hook bug")

    with pytest.raises(Boom, match="after hook bug"):
        dispatch(app, make_request(), propagate=True)
    assert [type(exc) for exc in seen] == [Boom]


def test_propagate_wins_over_the_debug_page(dispatch: Dispatch) -> None:
    app = crashing_app(debug=True)
    local = make_request(path="/crash", host="localhost", remote_addr="127.0.0.1")
    with pytest.raises(Boom):
        dispatch(app, local, propagate=True)


# -- the debug page ----------------------------------------------------------------


def test_a_500_handler_wins_over_the_debug_page(dispatch: Dispatch) -> None:
    app = crashing_app(debug=True)
    app.errorhandler(500)(lambda request, exc: ("custom", 500))
    local = make_request(path="/crash", host="localhost", remote_addr="127.0.0.1")
    assert body(dispatch(app, local)) == b"custom"


@pytest.mark.parametrize(
    ("host", "remote_addr", "local"),
    [
        ("localhost", "127.0.0.1", True),
        ("localhost:5000", "127.0.0.1", True),
        ("api.localhost:5000", "127.0.0.1", True),  # RFC 6761 §6.3
        ("127.0.0.1:8000", "127.0.0.1", True),
        ("127.1.2.3", "127.0.0.5", True),
        ("[::1]:8000", "::1", True),
        ("localhost", "::ffff:127.0.0.1", True),  # an IPv4 client on a dual-stack socket
        ("evil.example", "127.0.0.1", False),  # DNS rebinding
        ("localhost.evil.example", "127.0.0.1", False),
        ("notlocalhost", "127.0.0.1", False),
        ("[::2]", "::1", False),
        ("10.0.0.1", "127.0.0.1", False),
        ("localhost", "10.0.0.1", False),
        ("localhost", "::ffff:10.0.0.1", False),
        ("localhost", "fe80::1", False),
        ("localhost", "", False),
        ("localhost", None, False),
        ("localhost", "unix:/run/app.sock", False),
    ],
)
def test_is_local(host: str, remote_addr: str | None, local: bool) -> None:
    assert is_local(make_request(host=host, remote_addr=remote_addr)) is local


@pytest.mark.parametrize(
    ("header", "local"),
    [
        ("x-forwarded-for: 203.0.113.9", False),  # a local proxy in front
        ("x-forwarded-for: 127.0.0.1, 203.0.113.9", False),
        ("forwarded: for=198.51.100.1", False),
        ('forwarded: for="[2001:db8::1]:4711"', False),
        ("forwarded: for=unknown", False),
        ("x-forwarded-for: 127.0.0.1", True),  # a local proxy for a local client
        ('forwarded: for="[::1]"', True),
    ],
)
def test_a_client_behind_a_proxy_is_local_only_if_every_hop_is(header: str, local: bool) -> None:
    name, _, value = header.partition(": ")
    request = Request(
        "GET",
        "/",
        b"",
        [(b"host", b"localhost"), (name.encode(), value.encode())],
        "http",
        "127.0.0.1",
        "",
    )
    assert is_local(request) is local


def test_an_untrusted_host_is_not_local() -> None:
    request = make_request(host="localhost", remote_addr="127.0.0.1")
    request.trusted_hosts = ["example.com"]
    with pytest.raises(HTTPError):
        _ = request.host
    assert is_local(request) is False


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_an_error_handler_for_every_http_error_leaves_redirects_and_options(
    interface: Interface,
) -> None:
    app = App()
    seen: list[int] = []

    @app.get("/docs/")
    def docs(request: Request) -> str:
        return "docs"

    @app.errorhandler(HTTPError)
    def everything_is_a_500(request: Request, exc: HTTPError) -> tuple[str, int]:
        # Flask never hands its routing redirects to error handlers; nor does the App.
        seen.append(exc.status)
        return "broken", 500

    with Client(app, interface=interface) as client:
        redirect = client.get("/docs", follow_redirects=False)
        assert (redirect.status_code, redirect.headers["location"]) == (308, "/docs/")
        options = client.options("/docs/")
        assert (options.status_code, options.headers["allow"]) == (204, "GET, HEAD, OPTIONS")
        assert client.get("/nowhere").status_code == 500
    assert seen == [404]


def test_a_routing_answer_cannot_have_an_error_handler() -> None:
    app = App()
    for answer in (RequestRedirect, AllowedMethods, RoutingAnswer):
        with pytest.raises(TypeError, match="routing answer, not an error") as info:
            app.errorhandler(answer)
        assert "after_request" in str(info.value)
