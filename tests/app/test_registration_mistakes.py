"""Registration mistakes are refused where they are written, naming the fix.

Each of these was accepted once and failed later: on every request (a
middleware class, an error handler of the wrong arity), with Python's own
message (a view named in a string), or never at all (a blueprint whose URL
prefix was Flask's ``import_name``). The callables that are called the right
way, whatever their shape, are still taken, and answer under both adapters.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from sansio_http import App, Blueprint, GZipMiddleware, Middleware, NotFound, Request, Response
from sansio_http.testing import Client


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def client(app: App, interface: str) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi")


def index(request: Request) -> str:
    return "index"


# -- middleware ------------------------------------------------------------


def test_a_middleware_class_is_refused_naming_the_instance() -> None:
    app = App()
    with pytest.raises(
        TypeError, match=r"add_middleware takes an instance: add_middleware\(GZipMiddleware\(\)\)"
    ):
        app.add_middleware(GZipMiddleware)
    assert app.middleware == []


def test_any_class_is_refused_as_a_middleware() -> None:
    class Stamp:
        def process_response(self, request: Request, response: Response) -> Response:
            return response

    app = App()
    with pytest.raises(TypeError, match=r"add_middleware\(Stamp\(\)\)"):
        app.add_middleware(Stamp)
    with pytest.raises(TypeError, match=r"add_middleware\(Middleware\(\)\)"):
        app.add_middleware(Middleware)
    assert app.middleware == []


def test_an_object_with_neither_hook_is_still_refused() -> None:
    with pytest.raises(TypeError, match="neither process_request nor process_response"):
        App().add_middleware(object())


def test_a_middleware_hook_of_the_wrong_arity_is_refused() -> None:
    class Forgetful(Middleware):
        def process_response(self, response: Response) -> Response:  # type: ignore[override]
            return response

    app = App()
    with pytest.raises(TypeError, match=r"process_response.*\(request, response\)"):
        app.add_middleware(Forgetful())
    assert app.middleware == []


def test_a_middleware_instance_still_answers(interface: str) -> None:
    app = App()
    app.add_middleware(GZipMiddleware(minimum_size=1))
    app.add_route("/", lambda request: "x" * 100)
    response = client(app, interface).get("/", headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"


# -- views -----------------------------------------------------------------


@pytest.mark.parametrize("view", ["views.index", None, 3])
def test_a_view_that_is_not_callable_is_refused(view: Any) -> None:
    app = App()
    with pytest.raises(TypeError, match=r"view of rule '/x'.*pass the function itself"):
        app.add_route("/x", view, endpoint="x")
    with pytest.raises(TypeError, match="pass the function itself"):
        app.route("/x", endpoint="x")(view)
    assert app.router.rules == []


def test_a_view_named_in_a_string_is_refused_naming_the_import() -> None:
    with pytest.raises(TypeError, match=r"from views import index"):
        App().add_route("/x", "views.index")  # type: ignore[arg-type]


@pytest.mark.parametrize("shortcut", ["get", "post", "put", "patch", "delete", "websocket"])
def test_the_shortcuts_refuse_a_view_that_is_not_callable(shortcut: str) -> None:
    with pytest.raises(TypeError, match="pass the function itself"):
        getattr(App(), shortcut)("/x")("views.index")


def test_a_blueprint_refuses_a_view_that_is_not_callable_before_it_is_registered() -> None:
    blueprint = Blueprint("admin")
    with pytest.raises(TypeError, match="pass the function itself"):
        blueprint.add_route("/x", "views.index", endpoint="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pass the function itself"):
        blueprint.get("/y", endpoint="y")(None)  # type: ignore[type-var]
    app = App()
    app.register_blueprint(blueprint)
    assert app.router.rules == []


def test_a_view_without_a_name_asks_for_an_endpoint(interface: str) -> None:
    def greet(request: Request, greeting: str) -> str:
        return greeting

    app = App()
    with pytest.raises(TypeError, match=r"endpoint="):
        app.add_route("/x", functools.partial(greet, greeting="hi"))
    app.add_route("/x", functools.partial(greet, greeting="hi"), endpoint="greet")
    assert client(app, interface).get("/x").text == "hi"


def test_a_decorator_without_its_rule_is_refused() -> None:
    # @app.get without parentheses would replace the view by a decorator
    # and register nothing.
    app = App()
    with pytest.raises(TypeError, match=r"write @app.get\('/path'\)"):
        app.get(index)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"a str such as '/items'"):
        app.add_route(b"/x", index)  # type: ignore[arg-type]
    assert app.router.rules == []


# -- blueprints ------------------------------------------------------------


def test_flasks_import_name_is_refused_as_a_url_prefix() -> None:
    with pytest.raises(ValueError, match=r"not Flask's import_name.*url_prefix='/admin'"):
        Blueprint("admin", __name__)
    with pytest.raises(ValueError, match="not Flask's import_name"):
        Blueprint("admin", "__main__")


def test_a_url_prefix_without_its_slash_is_refused() -> None:
    with pytest.raises(ValueError, match=r"must start with '/'.*url_prefix='/shop/'"):
        Blueprint("shop", url_prefix="shop/")
    app = App()
    with pytest.raises(ValueError, match=r"must start with '/'.*url_prefix='/manage'"):
        app.register_blueprint(Blueprint("shop"), url_prefix="manage")
    assert app.blueprints == []


def test_a_url_prefix_that_is_not_text_is_refused() -> None:
    with pytest.raises(TypeError, match="is a str, not b'/admin'"):
        Blueprint("admin", url_prefix=b"/admin")  # type: ignore[arg-type]


def test_register_blueprint_refuses_what_is_not_a_blueprint() -> None:
    app = App()
    with pytest.raises(TypeError, match="register_blueprint takes a Blueprint"):
        app.register_blueprint(App())  # type: ignore[arg-type]
    assert app.blueprints == []


def test_the_url_prefixes_that_are_taken(interface: str) -> None:
    app = App()
    for name, prefix in [("a", None), ("b", ""), ("c", "/c"), ("d", "/d/")]:
        blueprint = Blueprint(name, prefix)
        blueprint.add_route(f"/{name}", index, endpoint="index")
        app.register_blueprint(blueprint)
    answers = [
        client(app, interface).get(path).status_code for path in ["/a", "/b", "/c/c", "/d/d"]
    ]
    assert answers == [200, 200, 200, 200]


# -- error handlers and hooks ----------------------------------------------


def test_an_error_handler_of_one_argument_is_refused() -> None:
    app = App()
    with pytest.raises(TypeError, match=r"not_found\(request\).*make it take \(request, exc\)"):

        @app.errorhandler(404)
        def not_found(request: Request) -> str:
            return "nope"

    assert app.error_handlers == {}


@pytest.mark.parametrize(
    "handler",
    [
        lambda: "none",
        lambda request, exc, extra: "three",
        lambda request, exc, *, required: "keyword",
    ],
)
def test_an_error_handler_of_another_arity_is_refused(handler: Callable[..., Any]) -> None:
    with pytest.raises(TypeError, match=r"\(request, exc\)"):
        App().errorhandler(NotFound)(handler)


def test_a_blueprint_refuses_a_wrong_error_handler_before_it_is_registered() -> None:
    blueprint = Blueprint("admin")
    with pytest.raises(TypeError, match=r"\(request, exc\)"):
        blueprint.errorhandler(404)(lambda exc: "nope")
    assert blueprint.error_handlers == {}


class Handlers:
    """Error handlers of other shapes than a plain function."""

    def method(self, request: Request, exc: Exception) -> tuple[str, int]:
        return "method", 404

    def __call__(self, request: Request, exc: Exception) -> tuple[str, int]:
        return "object", 404


async def with_defaults(request: Request, exc: Exception, extra: str = "") -> tuple[str, int]:
    return "defaults", 404


def with_star_args(*args: Any) -> tuple[str, int]:
    return "star", 404


def with_keyword(request: Request, exc: Exception, *, tag: str) -> tuple[str, int]:
    return tag, 404


def wrapper(func: Callable[..., Any]) -> Callable[..., Any]:
    # A decorator that injects an argument: the wrapper's signature is the
    # one called, not the wrapped function's.
    @functools.wraps(func)
    def wrapped(request: Request, exc: Exception) -> Any:
        return func(request, exc, "wrapped")

    return wrapped


@wrapper
def injected(request: Request, exc: Exception, tag: str) -> tuple[str, int]:
    return tag, 404


class Unreadable:
    """A callable whose signature cannot be read: the check is skipped."""

    __signature__ = "unreadable"

    def __call__(self, *args: Any) -> tuple[str, int]:
        return "unreadable", 404


@pytest.mark.parametrize(
    ("handler", "text"),
    [
        (Handlers().method, "method"),
        (Handlers(), "object"),
        (with_defaults, "defaults"),
        (with_star_args, "star"),
        (functools.partial(with_keyword, tag="partial"), "partial"),
        (injected, "wrapped"),
        (Unreadable(), "unreadable"),
    ],
)
def test_error_handlers_of_other_shapes_are_taken(
    interface: str, handler: Callable[..., Any], text: str
) -> None:
    app = App()
    app.errorhandler(404)(handler)
    response = client(app, interface).get("/nowhere")
    assert (response.status_code, response.text) == (404, text)


@pytest.mark.parametrize(
    ("key", "fix"),
    [
        (KeyError(), r"the class KeyError, not an instance"),
        (index, r"write @app.errorhandler\(404\)"),
        ("404", "status code or an exception class"),
        (True, "status code or an exception class"),
        (4040, "status code or an exception class"),
        (int, "status code or an exception class"),
    ],
)
def test_an_error_handler_key_is_refused_naming_the_fix(key: Any, fix: str) -> None:
    with pytest.raises(TypeError, match=fix):
        App().errorhandler(key)


@pytest.mark.parametrize("hook", ["before_request", "after_request", "teardown_request"])
def test_a_hook_that_is_not_callable_is_refused(hook: str) -> None:
    for scope in (App(), Blueprint("admin")):
        with pytest.raises(TypeError, match=r"pass the function itself"):
            getattr(scope, hook)(None)
        assert getattr(scope, f"{hook}_funcs") == []


@pytest.mark.parametrize(
    ("hook", "call"),
    [
        ("before_request", r"\(request\)"),
        ("after_request", r"\(request, response\)"),
        ("teardown_request", r"\(request, exc\)"),
    ],
)
def test_a_hook_of_the_wrong_arity_is_refused(hook: str, call: str) -> None:
    def wrong(request: Request, response: Response, exc: Exception) -> None:
        return None

    for scope in (App(), Blueprint("admin")):
        with pytest.raises(TypeError, match=f"{hook} hook wrong.*make it take {call}"):
            getattr(scope, hook)(wrong)
        assert getattr(scope, f"{hook}_funcs") == []


def test_hooks_of_the_right_arity_run(interface: str) -> None:
    seen: list[str] = []
    app = App()

    @app.before_request
    async def before(request: Request) -> None:
        seen.append("before")

    @app.after_request
    def after(request: Request, response: Response) -> Response:
        seen.append("after")
        return response

    @app.teardown_request
    def teardown(*args: Any) -> None:
        seen.append("teardown")

    app.add_route("/", index)
    assert client(app, interface).get("/").text == "index"
    assert seen == ["before", "after", "teardown"]
