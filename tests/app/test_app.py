"""The App: routing, hooks, blueprints, error handlers and both dispatch drivers.

The adapters install the runners that the App's conversions use; here the
tests install simple ones, so each case runs through both drivers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any, cast

import pytest

from sansio_http.app import App, AppConfig, Blueprint, current_request
from sansio_http.messages._errors import BadRequest, NotFound
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

Dispatch = Callable[..., Response]


def make_request(
    method: str = "GET",
    path: str = "/",
    root_path: str = "",
    *,
    host: str = "example.com",
    remote_addr: str | None = "1.2.3.4",
) -> Request:
    headers = [(b"host", host.encode())]
    return Request(method, path, b"", headers, "http", remote_addr, root_path)


def sync_dispatch(app: App, request: Request, **options: Any) -> Response:
    def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coroutine)
        finally:
            loop.close()

    app.coroutine_runner = run
    return app.dispatch_sync(request, **options)


def async_dispatch(app: App, request: Request, **options: Any) -> Response:
    async def in_thread(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    app.thread_runner = in_thread
    return asyncio.run(app.dispatch_async(request, **options))


@pytest.fixture(params=[sync_dispatch, async_dispatch], ids=["sync-driver", "async-driver"])
def dispatch(request: pytest.FixtureRequest) -> Dispatch:
    return request.param  # type: ignore[no-any-return]


def body(response: Response) -> bytes:
    assert isinstance(response.body, bytes)
    return response.body


def test_sync_and_async_views(dispatch: Dispatch) -> None:
    app = App()

    @app.get("/sync")
    def sync_view(request: Request) -> str:
        return "sync " + request.path

    @app.get("/async")
    async def async_view(request: Request) -> str:
        await asyncio.sleep(0)
        return "async " + request.path

    assert body(dispatch(app, make_request(path="/sync"))) == b"sync /sync"
    assert body(dispatch(app, make_request(path="/async"))) == b"async /async"


def test_placeholders_become_keyword_arguments(dispatch: Dispatch) -> None:
    app = App()

    @app.get("/users/<int:id>")
    def user(request: Request, id: int) -> dict[str, int]:
        return {"id": id}

    response = dispatch(app, make_request(path="/users/7"))
    assert json.loads(body(response)) == {"id": 7}
    assert response.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize(
    ("result", "status", "text", "header"),
    [
        ("text", 200, b"text", None),
        (b"raw", 200, b"raw", None),
        ([1, 2], 200, b"[1,2]", None),
        (("made", 201), 201, b"made", None),
        (("made", 202, {"X-A": "b"}), 202, b"made", "b"),
        ((Response("r"), 203), 203, b"r", None),
        ((Response("r"), 200, {"X-A": "c"}), 200, b"r", "c"),
    ],
)
def test_return_values(
    dispatch: Dispatch, result: Any, status: int, text: bytes, header: str | None
) -> None:
    app = App()
    app.add_route("/", lambda request: result, endpoint="index")
    response = dispatch(app, make_request())
    assert response.status == status
    assert body(response) == text
    assert response.headers.get("x-a") == header


@pytest.mark.parametrize(
    ("result", "content_type"),
    [
        (b"raw", "application/octet-stream"),
        ((b"raw", 200, {"Content-Type": "image/png"}), "image/png"),
        ("text", "text/plain; charset=utf-8"),
    ],
)
def test_every_returned_body_has_a_content_type(
    dispatch: Dispatch, result: Any, content_type: str
) -> None:
    app = App()
    app.add_route("/", lambda request: result, endpoint="index")
    assert dispatch(app, make_request()).headers["content-type"] == content_type


@pytest.mark.parametrize("result", [None, 3, ("a", 200, {}, "extra")])
def test_other_return_values_are_a_500_naming_the_view(
    dispatch: Dispatch, result: Any, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    def odd_view(request: Request) -> Any:
        return result

    app.add_route("/", odd_view)
    with caplog.at_level(logging.ERROR):
        response = dispatch(app, make_request())
    assert response.status == 500
    assert b"odd_view" not in body(response)
    assert "odd_view" in caplog.text


def test_404_405_and_automatic_options_and_head(dispatch: Dispatch) -> None:
    app = App()
    app.add_route("/", lambda request: "hi", endpoint="index", methods=["GET", "POST"])
    assert dispatch(app, make_request(path="/nope")).status == 404
    not_allowed = dispatch(app, make_request("DELETE"))
    assert not_allowed.status == 405
    assert not_allowed.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    options = dispatch(app, make_request("OPTIONS"))
    assert options.status == 204
    assert options.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert body(dispatch(app, make_request("HEAD"))) == b"hi"


def test_trailing_slash_redirect(dispatch: Dispatch) -> None:
    app = App()
    app.add_route("/docs/", lambda request: "docs", endpoint="docs")
    response = dispatch(app, make_request(path="/docs"))
    assert response.status == 308
    assert response.headers["location"] == "/docs/"


def test_hooks_run_in_order_and_teardown_always_runs(dispatch: Dispatch) -> None:
    app = App()
    calls: list[str] = []

    @app.before_request
    async def first(request: Request) -> None:
        calls.append("before")

    @app.after_request
    def after(request: Request, response: Response) -> Response:
        calls.append("after")
        response.headers["X-After"] = "yes"
        return response

    @app.teardown_request
    async def teardown(request: Request, exc: BaseException | None) -> None:
        calls.append(f"teardown {type(exc).__name__}")

    @app.get("/")
    def index(request: Request) -> str:
        calls.append("view")
        return "ok"

    response = dispatch(app, make_request())
    assert response.headers["x-after"] == "yes"
    assert calls == ["before", "view", "after", "teardown NoneType"]


def test_before_request_can_answer(dispatch: Dispatch) -> None:
    app = App()

    @app.before_request
    def guard(request: Request) -> Any:
        return ("stop", 403)

    app.add_route("/", lambda request: "never", endpoint="index")
    response = dispatch(app, make_request())
    assert (response.status, body(response)) == (403, b"stop")


def test_error_handlers_most_specific_first(dispatch: Dispatch) -> None:
    app = App()

    class Base(Exception):
        pass

    class Special(Base):
        pass

    @app.errorhandler(Base)
    def base(request: Request, exc: Exception) -> Any:
        return "base", 500

    @app.errorhandler(Special)
    async def special(request: Request, exc: Exception) -> Any:
        return "special", 409

    @app.errorhandler(404)
    def missing(request: Request, exc: Exception) -> Any:
        return "custom 404", 404

    def raise_special(request: Request) -> str:
        raise Special

    def raise_base(request: Request) -> str:
        raise Base

    app.add_route("/special", raise_special)
    app.add_route("/base", raise_base)
    assert body(dispatch(app, make_request(path="/special"))) == b"special"
    assert body(dispatch(app, make_request(path="/base"))) == b"base"
    assert body(dispatch(app, make_request(path="/nowhere"))) == b"custom 404"


def test_http_errors_become_their_responses(dispatch: Dispatch) -> None:
    app = App()

    def bad(request: Request) -> str:
        raise BadRequest("no name given")

    app.add_route("/", bad)
    response = dispatch(app, make_request())
    assert response.status == 400
    assert b"no name given" in body(response)


def test_unhandled_exception_is_logged_and_a_bare_500(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    def crash(request: Request) -> str:
        raise RuntimeError("secret detail")

    app.add_route("/", crash)
    with caplog.at_level(logging.ERROR):
        response = dispatch(app, make_request())
    assert response.status == 500
    assert b"secret detail" not in body(response)
    assert "secret detail" in caplog.text


@pytest.mark.parametrize(
    ("asked", "propagate", "raises"),
    [
        (True, None, True),
        (False, None, False),
        (True, False, False),
        (False, True, True),
    ],
)
def test_propagation_follows_the_request_unless_the_caller_decides(
    dispatch: Dispatch, asked: bool, propagate: bool | None, raises: bool
) -> None:
    app = App()

    def crash(request: Request) -> str:
        raise RuntimeError("unhandled")

    app.add_route("/", crash)
    request = make_request()
    request.propagate_exceptions = asked
    if raises:
        with pytest.raises(RuntimeError, match="unhandled"):
            dispatch(app, request, propagate=propagate)
    else:
        assert dispatch(app, request, propagate=propagate).status == 500


def test_a_subclass_make_response_sees_every_answer(dispatch: Dispatch) -> None:
    class Stamping(App):
        def make_response(self, result: Any, view: Callable[..., Any] | None = None) -> Response:
            response = super().make_response(result, view)
            response.headers["x-made-by"] = "subclass"
            return response

    app = Stamping()

    @app.get("/")
    def index(request: Request) -> Response:
        return Response("already a response")

    assert dispatch(app, make_request()).headers["x-made-by"] == "subclass"


def test_debug_shows_the_traceback_to_a_local_request(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = App(config=AppConfig(debug=True))

    def crash(request: Request) -> str:
        raise RuntimeError("<visible>")

    app.add_route("/", crash)
    local = make_request(host="localhost:8000", remote_addr="127.0.0.1")
    with caplog.at_level(logging.CRITICAL):
        response = dispatch(app, local)
    assert response.status == 500
    assert b"RuntimeError: &lt;visible&gt;" in body(response)


@pytest.mark.parametrize(
    ("host", "remote_addr"),
    [
        ("example.com", "127.0.0.1"),  # DNS rebinding: a foreign name on loopback
        ("localhost", "10.0.0.7"),  # a client from the network
        ("localhost", None),
        ("127.0.0.1", "192.168.1.2"),
    ],
)
def test_debug_shows_a_plain_500_to_any_other_request(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture, host: str, remote_addr: str | None
) -> None:
    app = App(config=AppConfig(debug=True))

    def crash(request: Request) -> str:
        raise RuntimeError("<secret>")

    app.add_route("/", crash)
    with caplog.at_level(logging.CRITICAL):
        response = dispatch(app, make_request(host=host, remote_addr=remote_addr))
    assert response.status == 500
    assert b"secret" not in body(response)
    assert b"Traceback" not in body(response)


def test_failing_error_handler_is_a_500(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.errorhandler(ValueError)
    def broken(request: Request, exc: Exception) -> str:
        raise KeyError("handler bug")

    def crash(request: Request) -> str:
        raise ValueError("view bug")

    app.add_route("/", crash)
    with caplog.at_level(logging.CRITICAL):
        assert dispatch(app, make_request()).status == 500


def test_failing_after_hook_is_handled(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()
    seen: list[BaseException | None] = []

    @app.after_request
    def broken(request: Request, response: Response) -> Response:
        if request.path == "/crash":
            raise KeyError("after hook bug")
        raise NotFound("gone after all")

    @app.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        seen.append(exc)

    app.add_route("/", lambda request: "ok", endpoint="index")
    app.add_route("/crash", lambda request: "ok", endpoint="crash")
    assert dispatch(app, make_request()).status == 404
    # An HTTPError is an answer, not a failure: teardown gets None.
    assert seen == [None]
    with caplog.at_level(logging.CRITICAL):
        assert dispatch(app, make_request(path="/crash")).status == 500
    assert isinstance(seen[-1], KeyError)


def test_failing_teardown_is_logged_not_raised(
    dispatch: Dispatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        raise RuntimeError("teardown bug")

    app.add_route("/", lambda request: "ok", endpoint="index")
    with caplog.at_level(logging.ERROR):
        assert dispatch(app, make_request()).status == 200
    assert "teardown bug" in caplog.text


def test_nested_blueprints_prefix_names_hooks_and_handlers(dispatch: Dispatch) -> None:
    app = App()
    api = Blueprint("api", url_prefix="/api")
    v1 = Blueprint("v1", url_prefix="/v1")
    calls: list[str] = []

    @app.before_request
    def app_hook(request: Request) -> None:
        calls.append("app")

    @api.before_request
    async def api_hook(request: Request) -> None:
        calls.append("api")

    @v1.after_request
    async def v1_after(request: Request, response: Response) -> Response:
        response.headers["X-V1"] = "1"
        return response

    @v1.errorhandler(404)
    def v1_missing(request: Request, exc: Exception) -> str:
        return "v1 says no"

    @v1.get("/items/<int:id>")
    async def item(request: Request, id: int) -> str:
        return current_request.path  # type: ignore[no-any-return]

    @v1.get("/missing")
    def missing(request: Request) -> str:
        raise NotFound()

    @app.get("/plain")
    def plain(request: Request) -> str:
        return "plain"

    api.register_blueprint(v1)
    app.register_blueprint(api)

    response = dispatch(app, make_request(path="/api/v1/items/3"))
    assert body(response) == b"/api/v1/items/3"
    assert response.headers["x-v1"] == "1"
    assert calls == ["app", "api"]
    assert body(dispatch(app, make_request(path="/api/v1/missing"))) == b"v1 says no"
    assert "x-v1" not in dispatch(app, make_request(path="/plain")).headers
    assert app.url_for("api.v1.item", id=5) == "/api/v1/items/5"


def test_blueprint_url_prefix_at_registration() -> None:
    app = App()
    bp = Blueprint("admin")
    bp.add_route("/", lambda request: "admin home", endpoint="home")
    app.register_blueprint(bp, url_prefix="/manage/")
    assert app.url_for("admin.home") == "/manage/"


def test_url_for_in_a_request(dispatch: Dispatch) -> None:
    app = App()
    bp = Blueprint("shop", url_prefix="/shop")

    @bp.get("/cart")
    def cart(request: Request) -> str:
        return app.url_for(".item", id=2, _external=True, _anchor="price", colour="red")

    @bp.get("/item/<int:id>")
    def item(request: Request, id: int) -> str:
        return ""

    app.register_blueprint(bp)
    response = dispatch(app, make_request(path="/shop/cart", root_path="/mount/"))
    assert body(response) == b"http://example.com/mount/shop/item/2?colour=red#price"


def test_url_for_external_outside_a_request_fails() -> None:
    app = App()
    app.add_route("/", lambda request: "", endpoint="index")
    assert app.url_for("index") == "/"
    with pytest.raises(RuntimeError, match="needs a request"):
        app.url_for("index", _external=True)


def test_current_request_outside_a_request_says_so() -> None:
    with pytest.raises(RuntimeError, match="outside of a request"):
        _ = current_request.path
    assert not current_request
    assert "no request" in repr(current_request)


def test_current_request_inside_sync_and_async_views(dispatch: Dispatch) -> None:
    app = App()

    @app.get("/s")
    def sync_view(request: Request) -> str:
        assert current_request
        assert "current_request" in repr(current_request)
        return f"{current_request.method} {current_request.path}"

    @app.get("/a")
    async def async_view(request: Request) -> str:
        return f"{current_request.method} {current_request.path}"

    assert body(dispatch(app, make_request(path="/s"))) == b"GET /s"
    assert body(dispatch(app, make_request(path="/a"))) == b"GET /a"


def test_ensure_sync_override_is_used_for_blueprints_too() -> None:
    converted: list[str] = []

    class MyApp(App):
        def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
            converted.append(func.__name__)
            return super().ensure_sync(func)

    app = MyApp()
    bp = Blueprint("bp")

    @bp.before_request
    async def hook(request: Request) -> None:
        return None

    @bp.get("/")
    async def view(request: Request) -> str:
        return "ok"

    app.register_blueprint(bp)
    # Converted once, when the blueprint is registered.
    assert converted == ["hook", "view"]
    assert body(sync_dispatch(app, make_request())) == b"ok"
    assert body(sync_dispatch(app, make_request())) == b"ok"
    assert converted == ["hook", "view"]


def test_missing_runners_fail_clearly() -> None:
    app = App()

    async def view(request: Request) -> str:
        return ""

    def plain(request: Request) -> str:
        return ""

    request = make_request()
    with pytest.raises(RuntimeError, match="to_wsgi"):
        app.ensure_sync(view)(request)
    with pytest.raises(RuntimeError, match="to_asgi"):
        asyncio.run(cast(Coroutine[Any, Any, str], app.ensure_async(plain)(request)))


def test_registration_errors() -> None:
    app = App()
    app.add_route("/a", lambda request: "", endpoint="same")
    with pytest.raises(ValueError, match="already taken"):
        app.add_route("/b", lambda request: "", endpoint="same")
    with pytest.raises(TypeError, match="status code or an exception class"):
        app.errorhandler("nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dot"):
        Blueprint("a.b")


def test_method_shortcuts_and_hooks_registry() -> None:
    app = App()
    for name in ("get", "post", "put", "patch", "delete"):
        getattr(app, name)("/" + name, endpoint=name)(lambda request, name=name: name)
    app.websocket("/ws", endpoint="ws")(lambda socket: None)

    @app.on_startup
    def start() -> None: ...

    @app.on_shutdown
    async def stop() -> None: ...

    assert app.startup_funcs == [start]
    assert app.shutdown_funcs == [stop]
    assert {r.rule: sorted(r.allowed) for r in app.router.rules}["/put"] == ["PUT"]
    assert app.router.match("/ws", websocket=True)[0].endpoint == "ws"


def test_cancellation_still_runs_teardown() -> None:
    app = App()
    seen: list[str] = []
    entered = asyncio.Event()

    @app.get("/")
    async def slow(request: Request) -> str:
        entered.set()
        await asyncio.sleep(30)
        return ""

    @app.teardown_request
    async def teardown(request: Request, exc: BaseException | None) -> None:
        seen.append(type(exc).__name__)

    async def main() -> None:
        task = asyncio.create_task(app.dispatch_async(make_request()))
        await asyncio.wait_for(entered.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen == ["CancelledError"]
