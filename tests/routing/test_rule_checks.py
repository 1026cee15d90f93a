"""Rules that are refused where they are written: methods as a string, malformed
placeholders, and rules that repeat another."""

from __future__ import annotations

import pytest

from sansio_http import Request
from sansio_http.app import App, Blueprint
from sansio_http.routing import Router, Rule
from sansio_http.testing import Client, Interface


def view() -> str:
    return "ok"


def test_methods_as_a_string_is_refused() -> None:
    with pytest.raises(TypeError, match=r"methods=\['GET'\]"):
        Rule("/", "index", methods="GET")


def test_methods_hold_strings() -> None:
    with pytest.raises(TypeError, match="strings"):
        Rule("/", "index", methods=[b"GET"])  # type: ignore[list-item]


def test_methods_as_a_list_of_one() -> None:
    assert Rule("/", "index", methods=["get"]).allowed == {"GET", "HEAD"}


def test_the_app_refuses_methods_as_a_string_when_the_view_is_registered() -> None:
    app = App()
    with pytest.raises(TypeError, match=r"methods=\['POST'\]"):
        app.route("/", methods="POST")(view)
    with pytest.raises(TypeError, match=r"methods=\['POST'\]"):
        app.add_route("/", view, methods="POST")
    assert app.router.rules == []


def test_a_blueprint_refuses_methods_as_a_string_before_it_is_registered() -> None:
    blueprint = Blueprint("shop")
    with pytest.raises(TypeError, match=r"methods=\['GET'\]"):
        blueprint.add_route("/", view, methods="GET")


def test_the_app_takes_methods_from_any_iterable() -> None:
    app = App()
    app.add_route("/", view, methods=(m for m in ["POST", "PUT"]))
    assert app.router.rules[0].allowed == {"POST", "PUT"}


@pytest.mark.parametrize(
    "rule",
    ["/<int:id", "/users/<>", "/a>b", "/<int:>", "/<1st>", "/<any(a/b):x>", "/x<y"],
)
def test_a_malformed_placeholder_is_refused_naming_the_rule(rule: str) -> None:
    with pytest.raises(ValueError, match="malformed placeholder in rule") as info:
        Router([Rule(rule, "x")])
    assert repr(rule) in str(info.value)


def test_an_unknown_converter_is_refused_naming_the_rule() -> None:
    with pytest.raises(ValueError, match=r"unknown converter 'bogus' in rule '/<bogus:a>'"):
        Router([Rule("/<bogus:a>", "x")])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (Rule("/x", "a"), Rule("/x", "b")),
        (Rule("/x/<int:a>", "a"), Rule("/x/<int:b>", "b")),
        (Rule("/x", "a", methods=["GET", "POST"]), Rule("/x", "b", methods=["POST"])),
        (Rule("/x", "a"), Rule("/x", "b", methods=["HEAD"])),
        (Rule("/ws", "a", websocket=True), Rule("/ws", "b", websocket=True)),
    ],
)
def test_a_rule_that_could_never_match_is_refused(first: Rule, second: Rule) -> None:
    router = Router([first])
    with pytest.raises(ValueError, match="could never match") as info:
        router.add(second)
    assert repr(second.rule) in str(info.value)
    # Nothing of the refused rule was kept.
    assert router.rules == [first]
    with pytest.raises(LookupError):
        router.build("b")


@pytest.mark.parametrize(
    "second",
    [
        Rule("/x", "b", methods=["POST"]),
        Rule("/x", "b", methods=["GET", "POST"]),
        Rule("/x", "b", websocket=True),
        Rule("/x/", "b"),
        Rule("/<x>", "b"),
    ],
)
def test_a_rule_that_adds_a_method_or_a_path_is_taken(second: Rule) -> None:
    router = Router([Rule("/x", "a")])
    router.add(second)
    assert router.rules[-1] is second


def test_the_app_refuses_a_repeated_rule_when_it_is_registered() -> None:
    app = App()
    app.get("/x")(view)

    def other() -> str:
        return "other"

    with pytest.raises(ValueError, match="could never match"):
        app.get("/x")(other)


@pytest.mark.parametrize(
    ("rule", "fix"),
    [
        ("/numbers/{n:int}", "/numbers/<int:n>"),
        ("/users/{name}", "/users/<name>"),
        ("/files/{rest:path}", "/files/<path:rest>"),
        ("/a/{x:str}/b", "/a/<string:x>/b"),
        ("/report-{n:float}.pdf", "/report-<float:n>.pdf"),
    ],
)
def test_starlettes_placeholder_spelling_is_refused_naming_the_fix(rule: str, fix: str) -> None:
    with pytest.raises(ValueError, match="matched as literal text") as info:
        Rule(rule, "x")
    assert repr(rule) in str(info.value)
    assert repr(fix) in str(info.value)


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_the_app_refuses_starlettes_spelling_when_the_view_is_registered(
    interface: Interface,
) -> None:
    app = App()
    with pytest.raises(ValueError, match=r"write '/numbers/<int:n>'"):
        app.get("/numbers/{n:int}")(view)
    assert app.router.rules == []

    @app.get("/numbers/<int:n>")
    def number(request: Request, n: int) -> str:
        return str(n * 2)

    with Client(app, interface=interface) as client:
        assert client.get("/numbers/5").text == "10"


@pytest.mark.parametrize("rule", ["/a{b", "/a}b", "/{/x}", "/x/}{"])
def test_a_lone_brace_stays_literal_text(rule: str) -> None:
    router = Router([Rule(rule, "x")])
    assert router.match(rule)[0].rule == rule


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (Rule("/<path:a>", "a"), Rule("/<path:a>/<path:b>", "b")),
        (Rule("/<path:a>/<path:b>", "b"), Rule("/<path:a>", "a")),
        (Rule("/x/<path:a>", "a"), Rule("/x/<path:p>/<path:q>/y", "b")),
        (Rule("/<path:a>", "a", methods=["GET", "POST"]), Rule("/<path:a>/<path:b>", "b")),
        (Rule("/<path:a>", "a", websocket=True), Rule("/<path:a>/<path:b>", "b", websocket=True)),
    ],
)
def test_a_rule_a_path_placeholder_shadows_is_refused_in_either_order(
    first: Rule, second: Rule
) -> None:
    router = Router([first])
    with pytest.raises(ValueError, match="takes the rest of every path first") as info:
        router.add(second)
    message = str(info.value)
    hidden, shadow = (second, first) if first.endpoint == "a" else (first, second)
    assert message.startswith(f"rule {hidden.rule!r} (endpoint {hidden.endpoint!r}) could never")
    assert repr(shadow.rule) in message
    assert router.rules == [first]


@pytest.mark.parametrize(
    "second",
    [
        Rule("/<path:a>/<path:b>", "b", methods=["POST"]),
        Rule("/<path:a>/<path:b>", "b", websocket=True),
        Rule("/<path:a>/edit", "b"),
        Rule("/<path:a>/<b>", "b"),
        Rule("/<path:a>/x/<path:b>", "b"),
        Rule("/f-<path:a>/<path:b>", "b"),
        Rule("/<path:a>/<int:n>/<path:b>", "b"),
    ],
)
def test_a_rule_after_a_path_placeholder_that_can_match_is_taken(second: Rule) -> None:
    router = Router([Rule("/<path:a>", "a")])
    router.add(second)
    assert router.rules[-1] is second


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_the_app_refuses_a_shadowed_rule_when_it_is_registered(interface: Interface) -> None:
    app = App()

    @app.get("/<path:a>")
    def whole(request: Request, a: str) -> str:
        return a

    with pytest.raises(ValueError, match="could never match"):
        app.get("/<path:a>/<path:b>")(view)
    with Client(app, interface=interface) as client:
        assert client.get("/x/y/z").text == "x/y/z"
