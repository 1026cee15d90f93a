"""The App answers the same with and without hooks of its own.

An App without before, after or teardown hooks dispatches without its
pipeline generator (a shorter path for speed); one with them runs the whole
pipeline. Each test here builds the same application both ways (the
``hooked`` fixture adds a before_request hook that does nothing) and runs it
under both adapters, so that the two paths are held to one behaviour: the
order of middleware, blueprint hooks and views, error handlers, propagated
exceptions, and the answers of routing.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from sansio_http import App, Blueprint, Middleware, Request, Response
from sansio_http.routing import Router, Rule
from sansio_http.testing import Client


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=[False, True], ids=["no-app-hooks", "app-hooks"])
def hooked(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def make_app(hooked: bool) -> App:
    app = App()
    if hooked:

        @app.before_request
        def nothing(request: Request) -> None:
            return None

    return app


def client(app: App, interface: str, **options: Any) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi", **options)


class Log(Middleware):
    """Logs its hooks into ``calls``; answers early when asked to."""

    def __init__(self, name: str, calls: list[str], answer: str | None = None) -> None:
        self.name = name
        self.calls = calls
        self.answer = answer

    def process_request(self, request: Request) -> str | None:
        self.calls.append(f"{self.name}-request")
        return self.answer

    def process_response(self, request: Request, response: Response) -> Response:
        self.calls.append(f"{self.name}-response {response.status}")
        response.headers.add("x-through", self.name)
        return response


def test_blueprint_hooks_run_inside_the_middleware(interface: str, hooked: bool) -> None:
    calls: list[str] = []
    app = make_app(hooked)
    app.add_middleware(Log("outer", calls))
    shop = Blueprint("shop", url_prefix="/shop")

    @shop.before_request
    def before(request: Request) -> None:
        calls.append("before")

    @shop.after_request
    def after(request: Request, response: Response) -> Response:
        calls.append("after")
        return response

    @shop.teardown_request
    def teardown(request: Request, exc: BaseException | None) -> None:
        calls.append(f"teardown {exc!r}")

    @shop.get("/")
    def index(request: Request) -> str:
        calls.append("view")
        return "shop"

    app.register_blueprint(shop)
    response = client(app, interface).get("/shop/")
    assert (response.status_code, response.text) == (200, "shop")
    assert calls == [
        "outer-request",
        "before",
        "view",
        "after",
        "outer-response 200",
        "teardown None",
    ]


def test_an_early_answer_skips_the_inner_middleware_and_the_view(
    interface: str, hooked: bool
) -> None:
    calls: list[str] = []
    app = make_app(hooked)
    app.add_middleware(Log("outer", calls))
    app.add_middleware(Log("middle", calls, answer="early"))
    app.add_middleware(Log("inner", calls))

    @app.get("/")
    def index(request: Request) -> str:
        calls.append("view")
        return "view"

    response = client(app, interface).get("/")
    assert response.text == "early"
    assert response.headers.getlist("x-through") == ["outer"]
    assert calls == ["outer-request", "middle-request", "outer-response 200"]


def test_an_error_in_the_view_is_handled_then_seen_by_the_middleware(
    interface: str, hooked: bool
) -> None:
    calls: list[str] = []
    app = make_app(hooked)
    app.add_middleware(Log("outer", calls))

    @app.errorhandler(KeyError)
    def missing(request: Request, exc: KeyError) -> tuple[str, int]:
        calls.append("handler")
        return f"missing {exc}", 404

    @app.get("/")
    def index(request: Request) -> str:
        raise KeyError("item")

    response = client(app, interface).get("/")
    assert (response.status_code, response.text) == (404, "missing 'item'")
    assert calls == ["outer-request", "handler", "outer-response 404"]


def test_an_error_in_process_request_is_handled_for_the_outer_middleware(
    interface: str, hooked: bool
) -> None:
    calls: list[str] = []

    class Refuse(Middleware):
        def process_request(self, request: Request) -> None:
            raise PermissionError("no")

    app = make_app(hooked)
    app.add_middleware(Log("outer", calls))
    app.add_middleware(Refuse())
    app.add_middleware(Log("inner", calls))

    @app.errorhandler(PermissionError)
    def refused(request: Request, exc: PermissionError) -> tuple[str, int]:
        return "refused", 403

    @app.get("/")
    def index(request: Request) -> str:
        calls.append("view")
        return "view"

    response = client(app, interface).get("/")
    assert (response.status_code, response.text) == (403, "refused")
    assert calls == ["outer-request", "outer-response 403"]


def test_an_unhandled_error_is_a_500_or_propagates(interface: str, hooked: bool) -> None:
    app = make_app(hooked)

    @app.get("/")
    def index(request: Request) -> str:
        raise RuntimeError("boom")

    assert client(app, interface, raise_app_exceptions=False).get("/").status_code == 500
    with pytest.raises(RuntimeError, match="boom"):
        client(app, interface).get("/")


def test_a_view_returning_nothing_is_an_error_for_its_handler(interface: str, hooked: bool) -> None:
    app = make_app(hooked)

    @app.errorhandler(TypeError)
    def bad_return(request: Request, exc: TypeError) -> tuple[str, int]:
        return "bad return", 500

    @app.get("/")
    def index(request: Request) -> Any:
        return None

    response = client(app, interface).get("/")
    assert (response.status_code, response.text) == (500, "bad return")


def test_routing_answers_pass_through_the_middleware(interface: str, hooked: bool) -> None:
    calls: list[str] = []
    app = make_app(hooked)
    app.add_middleware(Log("outer", calls))

    @app.get("/item")
    def item(request: Request) -> str:
        return "item"

    http = client(app, interface)
    assert http.get("/nowhere").status_code == 404
    assert http.post("/item").status_code == 405
    options = http.options("/item")
    assert options.status_code == 204
    assert options.headers["allow"] == "GET, HEAD, OPTIONS"
    assert calls == [
        "outer-request",
        "outer-response 404",
        "outer-request",
        "outer-response 405",
        "outer-request",
        "outer-response 204",
    ]


def test_a_relative_url_for_in_a_404_handler_has_no_blueprint(interface: str, hooked: bool) -> None:
    app = make_app(hooked)
    shop = Blueprint("shop", url_prefix="/shop")

    @shop.get("/item")
    def item(request: Request) -> str:
        return app.url_for(".item")

    @app.get("/item")
    def top_item(request: Request) -> str:
        return "top"

    @app.errorhandler(404)
    def not_found(request: Request, exc: Exception) -> tuple[str, int]:
        return app.url_for(".top_item"), 404

    app.register_blueprint(shop)
    http = client(app, interface)
    # A request routed to the blueprint first: nothing of it is left for the
    # next request's handler.
    assert http.get("/shop/item").text == "/shop/item"
    response = http.get("/nowhere")
    assert (response.status_code, response.text) == (404, "/item")


def test_a_static_rule_keeps_its_view_when_rules_are_added(interface: str, hooked: bool) -> None:
    app = make_app(hooked)

    @app.get("/about")
    def about(request: Request) -> str:
        return "about"

    http = client(app, interface)
    assert http.get("/about").text == "about"

    @app.get("/<name>")
    def page(request: Request, name: str) -> str:
        return f"page {name}"

    assert http.get("/about").text == "about"
    assert http.get("/contact").text == "page contact"


def test_a_new_router_is_used_at_once(interface: str, hooked: bool) -> None:
    app = make_app(hooked)

    @app.get("/a")
    def first(request: Request) -> str:
        return "first"

    @app.get("/b")
    def second(request: Request) -> str:
        return "second"

    http = client(app, interface)
    assert http.get("/a").text == "first"
    app.router = Router([Rule("/a", "second")])
    assert http.get("/a").text == "second"
    assert http.get("/b").status_code == 404


def test_non_blocking_plain_hooks_run_on_the_event_loop(hooked: bool) -> None:
    threads: dict[str, int] = {}

    class Inline(Middleware):
        blocking = False

        def process_request(self, request: Request) -> None:
            threads["request"] = threading.get_ident()

        def process_response(self, request: Request, response: Response) -> Response:
            threads["response"] = threading.get_ident()
            return response

    app = make_app(hooked)
    app.add_middleware(Inline())

    @app.get("/")
    async def index(request: Request) -> str:
        threads["view"] = threading.get_ident()
        return "ok"

    assert Client(app, interface="asgi").get("/").text == "ok"
    assert threads["request"] == threads["view"] == threads["response"]


def test_middleware_with_one_hook_each(interface: str, hooked: bool) -> None:
    calls: list[str] = []

    class Before:
        def process_request(self, request: Request) -> None:
            calls.append("request")

    class After:
        def process_response(self, request: Request, response: Response) -> Response:
            calls.append("response")
            return response

    app = make_app(hooked)
    app.add_middleware(After())
    app.add_middleware(Before())

    @app.get("/")
    def index(request: Request) -> str:
        calls.append("view")
        return "ok"

    assert client(app, interface).get("/").text == "ok"
    assert calls == ["request", "view", "response"]
