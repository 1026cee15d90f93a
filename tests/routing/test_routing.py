"""Routing: matching by path and method, redirects, converters and url building."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.messages._errors import HTTPError, HTTPException, MethodNotAllowed, NotFound
from sansio_http.routing import (
    AllowedMethods,
    AnyConverter,
    Converter,
    PathConverter,
    RequestRedirect,
    Router,
    RoutingAnswer,
    Rule,
)

U = "12345678-1234-5678-1234-567812345678"


@pytest.fixture
def router() -> Router:
    return Router(
        [
            Rule("/", "index"),
            Rule("/users/me", "me", methods=["GET", "POST"]),
            Rule("/users/<int:id>", "user"),
            Rule("/users/<name>", "user_by_name"),
            Rule("/users/<int:id>/files/<path:rest>", "files"),
            Rule("/docs/", "docs"),
            Rule("/report-<int:year>.pdf", "report"),
            Rule("/ratio/<float:value>", "ratio"),
            Rule("/items/<uuid:id>", "item"),
            Rule("/pages/<any(about,help):page>", "page"),
            Rule("/p/<path:where>/edit", "edit"),
            Rule("/short/<string(maxlength=3):code>", "short"),
            Rule("/n/<int(signed=true,min=-5,max=5):n>", "bounded"),
            Rule("/ws", "socket", websocket=True),
            Rule("/page", "page_default", defaults={"number": 1}),
            Rule("/page/<int:number>", "page_default"),
        ]
    )


@pytest.mark.parametrize(
    ("path", "endpoint", "values"),
    [
        ("/", "index", {}),
        ("/users/me", "me", {}),
        ("/users/42", "user", {"id": 42}),
        ("/users/bob", "user_by_name", {"name": "bob"}),
        ("/users/7/files/a/b/c.txt", "files", {"id": 7, "rest": "a/b/c.txt"}),
        ("/docs/", "docs", {}),
        ("/report-2024.pdf", "report", {"year": 2024}),
        ("/ratio/0.5", "ratio", {"value": 0.5}),
        ("/items/" + U, "item", {"id": uuid.UUID(U)}),
        ("/pages/help", "page", {"page": "help"}),
        ("/p/x/y/edit", "edit", {"where": "x/y"}),
        ("/short/abc", "short", {"code": "abc"}),
        ("/n/-5", "bounded", {"n": -5}),
        ("/page", "page_default", {"number": 1}),
        ("/page/3", "page_default", {"number": 3}),
    ],
)
def test_match(router: Router, path: str, endpoint: str, values: dict[str, Any]) -> None:
    rule, found = router.match(path, "GET")
    assert rule.endpoint == endpoint
    assert found == values


def test_static_beats_placeholders_whatever_the_order() -> None:
    router = Router([Rule("/<name>", "dynamic"), Rule("/about", "static")])
    assert router.match("/about")[0].endpoint == "static"
    assert router.match("/other")[0].endpoint == "dynamic"


def test_int_beats_string_at_the_same_place() -> None:
    router = Router([Rule("/<name>", "name"), Rule("/<int:id>", "id")])
    assert router.match("/12")[0].endpoint == "id"
    assert router.match("/x12")[0].endpoint == "name"


@pytest.mark.parametrize(
    "path",
    ["/nope", "/users", "/short/abcd", "/n/6", "/ratio/1", "/pages/other", "/items/xyz"],
)
def test_not_found(router: Router, path: str) -> None:
    with pytest.raises(NotFound):
        router.match(path)


@pytest.mark.parametrize(
    "path",
    ["/nope", "/users", "/short/abcd", "/n/6", "/ratio/1", "/pages/other", "/items/xyz"],
)
def test_find_answers_a_miss_with_none(router: Router, path: str) -> None:
    assert router.find(path) is None


def test_find_answers_what_match_answers(router: Router) -> None:
    assert router.find("/users/me") == router.match("/users/me")
    assert router.find("/users/7/files/a/b") == router.match("/users/7/files/a/b")


def test_find_still_raises_the_answers_that_are_not_misses(router: Router) -> None:
    with pytest.raises(MethodNotAllowed):
        router.find("/users/me", "DELETE")
    with pytest.raises(AllowedMethods):
        router.find("/users/me", "OPTIONS")
    with pytest.raises(RequestRedirect):
        router.find("/docs")


def test_method_not_allowed_lists_the_methods(router: Router) -> None:
    with pytest.raises(MethodNotAllowed) as info:
        router.match("/users/me", "DELETE")
    assert info.value.allowed == ["GET", "HEAD", "OPTIONS", "POST"]
    assert info.value.to_response().headers["allow"] == "GET, HEAD, OPTIONS, POST"


def test_head_comes_with_get(router: Router) -> None:
    assert router.match("/users/me", "HEAD")[0].endpoint == "me"


def test_allowed_methods_for_options(router: Router) -> None:
    assert router.allowed_methods("/users/me") == {"GET", "HEAD", "POST"}
    assert router.allowed_methods("/nope") == set()


def test_missing_trailing_slash_redirects_with_308(router: Router) -> None:
    with pytest.raises(RequestRedirect) as info:
        router.match("/docs")
    response = info.value.to_response()
    assert response.status == 308
    assert response.headers["location"] == "/docs/"


def test_no_redirect_when_disabled() -> None:
    with pytest.raises(NotFound):
        Router([Rule("/docs/", "docs")], redirect_slashes=False).match("/docs")


def test_websocket_rules_match_websocket_requests_only(router: Router) -> None:
    assert router.match("/ws", websocket=True)[0].endpoint == "socket"
    with pytest.raises(NotFound):
        router.match("/ws")
    with pytest.raises(NotFound):
        router.match("/users/me", websocket=True)


def test_build(router: Router) -> None:
    assert router.build("user", {"id": 5}) == "/users/5"
    assert router.build("files", {"id": 1, "rest": "a b/c"}) == "/users/1/files/a%20b/c"
    assert router.build("user_by_name", {"name": "a b"}) == "/users/a%20b"
    assert router.build("user", {"id": 5, "tab": "x", "tags": ["a", "b"]}) == (
        "/users/5?tab=x&tags=a&tags=b"
    )
    assert router.build("index", root_path="/app/") == "/app/"
    assert router.build("user", {"id": 1}, anchor="top") == "/users/1#top"
    assert router.build("user", {"id": 1}, base_url="https://ex.com/") == ("https://ex.com/users/1")
    assert router.build("ratio", {"value": 0.25}) == "/ratio/0.25"
    assert router.build("page_default") == "/page"
    assert router.build("page_default", {"number": 2}) == "/page/2"
    assert router.build("me", method="POST") == "/users/me"


def test_build_refuses_what_no_rule_fits(router: Router) -> None:
    with pytest.raises(LookupError):
        router.build("user")
    with pytest.raises(LookupError):
        router.build("nope")
    with pytest.raises(LookupError):
        router.build("user", {"id": 1}, method="POST")
    with pytest.raises(ValueError, match="not one of"):
        router.build("page", {"page": "secret"})


def test_custom_converter() -> None:
    class Upper(Converter):
        regex = "[A-Z]+"

        def to_python(self, text: str) -> str:
            return text.lower()

        def to_url(self, value: Any) -> str:
            return str(value).upper()

    router = Router([Rule("/c/<upper:code>", "code")], converters={"upper": Upper})
    assert router.match("/c/ABC")[1] == {"code": "abc"}
    assert router.build("code", {"code": "xy"}) == "/c/XY"


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("nope", "starts with"),
        ("/<a>/<a>", "twice"),
        ("/<bogus:a>", "unknown converter"),
        ("/<string(colour=red):a>", "unknown string"),
        ("/<int(colour=red):a>", "unknown int"),
    ],
)
def test_bad_rules_are_refused(rule: str, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        Router([Rule(rule, "x")])


def test_converters_without_arguments_refuse_them() -> None:
    with pytest.raises(TypeError):
        Converter("x")
    with pytest.raises(TypeError):
        AnyConverter()


def test_huge_integers_are_not_found() -> None:
    router = Router([Rule("/<int:id>", "id")])
    with pytest.raises(NotFound):
        router.match("/" + "9" * 5000)


def test_many_rules_share_the_tree() -> None:
    router = Router([Rule(f"/r{i}/<int:id>", f"e{i}") for i in range(100)])
    assert router.match("/r99/3") == (router.rules[99], {"id": 3})


@given(st.text())
def test_any_path_matches_or_raises_an_http_error(text: str) -> None:
    router = Router(
        [Rule("/<int:id>", "id"), Rule("/a/<path:p>", "p"), Rule("/b/", "b"), Rule("/x-<y>", "x")]
    )
    try:
        rule, values = router.match("/" + text)
    except NotFound:
        assert router.find("/" + text) is None
        return
    except (MethodNotAllowed, RequestRedirect) as exc:
        with pytest.raises(type(exc)):
            router.find("/" + text)
        return
    assert router.find("/" + text) == (rule, values)
    assert rule.endpoint in {"id", "p", "b", "x"}


@given(st.integers(min_value=0), st.text(min_size=1).filter(lambda s: "/" not in s))
def test_build_then_match_round_trips(number: int, name: str) -> None:
    router = Router([Rule("/n/<int:number>/<name>", "e")])
    from urllib.parse import unquote

    path = unquote(router.build("e", {"number": number, "name": name}))
    assert router.match(path) == (router.rules[0], {"number": number, "name": name})


def test_options_is_answered_with_204_listing_the_methods(router: Router) -> None:
    with pytest.raises(AllowedMethods) as info:
        router.match("/users/me", "OPTIONS")
    assert info.value.allowed == ["GET", "HEAD", "OPTIONS", "POST"]
    response = info.value.to_response()
    assert response.status == 204
    assert response.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert response.body == b""
    # An answer, not an error: code that renders every HTTPError leaves it alone.
    assert not isinstance(info.value, HTTPError)
    assert isinstance(info.value, RoutingAnswer)
    assert isinstance(info.value, HTTPException)


def test_the_slash_redirect_is_a_routing_answer_not_an_error() -> None:
    router = Router([Rule("/docs/", "docs")])
    with pytest.raises(RequestRedirect) as info:
        router.match("/docs")
    assert not isinstance(info.value, HTTPError)
    assert isinstance(info.value, RoutingAnswer)
    response = info.value.to_response()
    assert (response.status, response.headers["location"]) == (308, "/docs/")
    assert str(info.value) == "308 Permanent Redirect: /docs/"


def test_options_taken_by_a_rule_matches_it() -> None:
    router = Router([Rule("/x", "x"), Rule("/x", "x_options", methods=["OPTIONS"])])
    assert router.match("/x", "OPTIONS")[0].endpoint == "x_options"


def test_options_on_a_missing_path_is_not_found(router: Router) -> None:
    with pytest.raises(NotFound):
        router.match("/nope", "OPTIONS")


def test_other_methods_still_get_405(router: Router) -> None:
    with pytest.raises(MethodNotAllowed) as info:
        router.match("/users/me", "PUT")
    assert not isinstance(info.value, AllowedMethods)
    assert info.value.to_response().status == 405


def test_a_static_rule_of_another_method_hands_over_to_a_placeholder() -> None:
    router = Router([Rule("/a/b", "static", methods=["POST"]), Rule("/a/<name>", "dynamic")])
    assert router.match("/a/b", "POST")[0].endpoint == "static"
    assert router.match("/a/b", "GET") == (router.rules[1], {"name": "b"})
    with pytest.raises(MethodNotAllowed) as info:
        router.match("/a/b", "PUT")
    assert info.value.allowed == ["GET", "HEAD", "OPTIONS", "POST"]


def test_a_dead_end_below_a_static_segment_backtracks_to_a_placeholder() -> None:
    router = Router([Rule("/a/b/c", "static"), Rule("/a/<x>/d", "dynamic")])
    assert router.match("/a/b/d") == (router.rules[1], {"x": "b"})


def test_a_converter_refusing_a_segment_hands_over_to_the_next() -> None:
    router = Router(
        [Rule("/n/<int(max=9):n>", "digit"), Rule("/n/<word>", "word"), Rule("/n/<path:p>", "p")]
    )
    assert router.match("/n/7")[0].endpoint == "digit"
    assert router.match("/n/70") == (router.rules[1], {"word": "70"})
    assert router.match("/n/7/0") == (router.rules[2], {"p": "7/0"})


def test_the_first_rule_added_wins_among_equals() -> None:
    router = Router(
        [
            Rule("/x/<int:a>", "first", methods=["GET", "POST"]),
            Rule("/x/<int:b>", "second", methods=["POST", "PUT"]),
        ]
    )
    assert router.match("/x/1", "POST") == (router.rules[0], {"a": 1})
    # The two share a branch of the tree, and each names the value its own way.
    assert router.match("/x/1", "PUT") == (router.rules[1], {"b": 1})


def test_a_path_placeholder_gives_back_segments_to_what_follows() -> None:
    router = Router([Rule("/p/<path:where>/edit/<int:n>", "edit")])
    assert router.match("/p/a/edit/b/edit/3")[1] == {"where": "a/edit/b", "n": 3}


def test_rules_added_after_a_match_are_matched() -> None:
    router = Router([Rule("/a", "a")])
    assert router.match("/a")[0].endpoint == "a"
    router.add(Rule("/b/<int:id>", "b"))
    router.add(Rule("/c", "c"))
    assert router.match("/b/1")[0].endpoint == "b"
    assert router.match("/c")[0].endpoint == "c"
    assert router.allowed_methods("/c") == {"GET", "HEAD"}


def test_defaults_and_placeholders_merge_on_every_path() -> None:
    router = Router(
        [
            Rule("/s", "s", defaults={"page": 1}),
            Rule("/d/<int:id>", "d", defaults={"page": 2}),
            Rule("/d/<int:id>/<path:rest>", "r", defaults={"id": 0, "page": 3}),
        ]
    )
    first = router.match("/s")[1]
    assert first == {"page": 1}
    first["page"] = 99  # a caller's change reaches neither the rule nor the next match
    assert router.match("/s")[1] == {"page": 1}
    assert router.match("/d/5")[1] == {"id": 5, "page": 2}
    assert router.match("/d/5/a/b")[1] == {"id": 5, "rest": "a/b", "page": 3}


@given(st.text())
def test_an_int_placeholder_matches_what_its_regex_matches(text: str) -> None:
    router = Router([Rule("/<int:id>", "id"), Rule("/<path:p>", "p")])
    if "/" in text or not text:
        return
    if re.fullmatch(r"\d+", text) and len(text) <= 4300:
        assert router.match("/" + text)[1] == {"id": int(text)}
    elif re.fullmatch(PathConverter.regex, text):
        assert router.match("/" + text)[1] == {"p": text}
    else:
        with pytest.raises(NotFound):
            router.match("/" + text)


@given(st.lists(st.text(alphabet="ab/\n", max_size=4), min_size=1, max_size=4))
def test_a_path_placeholder_matches_what_its_regex_matches(parts: list[str]) -> None:
    text = "/".join(parts)
    router = Router([Rule("/f/<path:p>", "p")], redirect_slashes=False)
    if re.fullmatch(PathConverter.regex, text):
        assert router.match("/f/" + text)[1] == {"p": text}
    else:
        with pytest.raises(NotFound):
            router.match("/f/" + text)


def test_many_static_children_below_a_placeholder_keep_its_value() -> None:
    names = [f"tab{i}" for i in range(12)]
    router = Router([Rule(f"/u/<int:id>/{name}", name) for name in names])
    for name in names:
        assert router.match(f"/u/7/{name}") == (router.rules[names.index(name)], {"id": 7})
    with pytest.raises(NotFound):
        router.match("/u/7/other")


def test_deep_rules_match_whatever_their_depth() -> None:
    deep = "/" + "/".join(f"s{i}" for i in range(60)) + "/<int:n>"
    spans = "/" + "/x/".join(f"<path:p{i}>" for i in range(12)) + "/end/<int:n>"
    router = Router([Rule(deep, "deep"), Rule(spans, "spans")])
    path = "/" + "/".join(f"s{i}" for i in range(60)) + "/5"
    assert router.match(path) == (router.rules[0], {"n": 5})
    found = "/" + "/x/".join(f"v{i}" for i in range(12)) + "/end/3"
    assert router.match(found) == (
        router.rules[1],
        {**{f"p{i}": f"v{i}" for i in range(12)}, "n": 3},
    )


@pytest.mark.parametrize("text", ["it's", 'say "hi"', "back\\slash", "line\nfeed", "{0%s", "}{"])
def test_static_segments_with_any_characters_match_themselves(text: str) -> None:
    router = Router([Rule(f"/a/{text}", "static"), Rule(f"/b/<int:n>/{text}", "after")])
    assert router.match(f"/a/{text}")[0].endpoint == "static"
    assert router.match(f"/b/1/{text}") == (router.rules[1], {"n": 1})
    with pytest.raises(NotFound):
        router.match("/a/other")


def test_a_websocket_rule_and_an_http_rule_share_a_path() -> None:
    router = Router(
        [Rule("/live/<int:n>", "page"), Rule("/live/<int:n>", "socket", websocket=True)]
    )
    assert router.match("/live/1")[0].endpoint == "page"
    assert router.match("/live/1", websocket=True)[0].endpoint == "socket"
    with pytest.raises(MethodNotAllowed):
        router.match("/live/1", "POST")


def test_several_placeholders_in_one_segment() -> None:
    router = Router([Rule("/d/<int:year>-<int:month>", "month"), Rule("/d/<name>", "name")])
    assert router.match("/d/2024-06") == (router.rules[0], {"year": 2024, "month": 6})
    assert router.match("/d/2024-xx") == (router.rules[1], {"name": "2024-xx"})


def test_an_empty_router_finds_nothing() -> None:
    router = Router()
    with pytest.raises(NotFound):
        router.match("/")
    assert router.allowed_methods("/") == set()


def test_a_custom_converter_spanning_segments_backs_off_until_it_fits() -> None:
    class Pair(Converter):
        regex = "[a-z]+(?:/[a-z]+)*"
        spans_segments = True

        def to_python(self, text: str) -> tuple[str, ...]:
            parts = tuple(text.split("/"))
            if len(parts) > 2:
                raise ValueError("at most two")
            return parts

    router = Router([Rule("/p/<pair:p>/<path:rest>", "pair")], converters={"pair": Pair})
    assert router.match("/p/a/b/c/d") == (router.rules[0], {"p": ("a", "b"), "rest": "c/d"})
    assert router.match("/p/a/1/2") == (router.rules[0], {"p": ("a",), "rest": "1/2"})
    with pytest.raises(NotFound):
        router.match("/p/1/2")


def test_a_root_of_static_sections_redirects_and_refuses_like_any_other() -> None:
    router = Router([Rule("/docs/", "docs"), Rule("/docs/<int:n>", "page", methods=["PUT"])])
    with pytest.raises(RequestRedirect) as info:
        router.match("/docs")
    assert info.value.location == "/docs/"
    with pytest.raises(NotFound):
        router.match("/nowhere")
    with pytest.raises(MethodNotAllowed):
        router.match("/docs/3")
    assert router.match("/docs/3", "PUT") == (router.rules[1], {"n": 3})
    assert router.allowed_methods("/docs/3") == {"PUT"}


def test_path_placeholders_of_one_name_share_their_branch() -> None:
    router = Router([Rule("/a/<path:p>/x", "x"), Rule("/a/<path:p>/y", "y")])
    assert router.match("/a/b/c/y") == (router.rules[1], {"p": "b/c"})
    assert router.match("/a/b/x") == (router.rules[0], {"p": "b"})
