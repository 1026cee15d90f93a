"""Which rule wins: the documented order, segment by segment, and path placeholders."""

from __future__ import annotations

import pytest

from sansio_http.messages._errors import MethodNotAllowed, NotFound
from sansio_http.routing import AllowedMethods, RequestRedirect, Router, Rule


def test_a_literal_segment_after_a_path_placeholder_wins() -> None:
    router = Router([Rule("/<path:p>", "any"), Rule("/<path:p>/edit", "edit")])
    assert router.match("/a/edit") == (router.rules[1], {"p": "a"})
    assert router.match("/a/b/edit") == (router.rules[1], {"p": "a/b"})
    assert router.match("/a/edit/b") == (router.rules[0], {"p": "a/edit/b"})
    assert router.match("/edit") == (router.rules[0], {"p": "edit"})


def test_the_order_holds_whichever_rule_comes_first() -> None:
    router = Router([Rule("/<path:p>/edit", "edit"), Rule("/<path:p>", "any")])
    assert router.match("/a/edit") == (router.rules[0], {"p": "a"})


def test_a_one_segment_placeholder_after_a_path_placeholder_wins() -> None:
    router = Router([Rule("/f/<path:p>", "any"), Rule("/f/<path:p>/<int:n>", "numbered")])
    assert router.match("/f/a/b/3") == (router.rules[1], {"p": "a/b", "n": 3})
    assert router.match("/f/a/b/c") == (router.rules[0], {"p": "a/b/c"})


def test_a_path_placeholder_keeps_segments_from_the_next_one() -> None:
    router = Router([Rule("/<path:a>/<path:b>", "two")])
    assert router.match("/x/y/z") == (router.rules[0], {"a": "x/y", "b": "z"})


def test_a_path_placeholder_takes_the_literal_text_of_its_segment_along() -> None:
    router = Router([Rule("/Talk:<path:name>", "talk"), Rule("/<path:page>", "page")])
    assert router.match("/Talk:Foo/Bar") == (router.rules[0], {"name": "Foo/Bar"})
    assert router.match("/Talk:Foo") == (router.rules[0], {"name": "Foo"})
    assert router.match("/Other/Bar") == (router.rules[1], {"page": "Other/Bar"})


def test_a_path_placeholder_with_text_after_it_spans_segments() -> None:
    router = Router([Rule("/<path:repo>.git/info", "info"), Rule("/v<int:n>-<path:rest>", "v")])
    assert router.match("/a/b.git/info") == (router.rules[0], {"repo": "a/b"})
    assert router.match("/v2-x/y") == (router.rules[1], {"n": 2, "rest": "x/y"})


def test_a_literal_segment_wins_over_a_placeholder_of_a_rule_added_first() -> None:
    # The two int placeholders differ in name only: they share a branch, so
    # the literal segment after them is compared as the docs say.
    router = Router(
        [Rule("/users/<int:id>/<tab>", "tab"), Rule("/users/<int:user_id>/settings", "settings")]
    )
    assert router.match("/users/1/settings") == (router.rules[1], {"user_id": 1})
    assert router.match("/users/1/posts") == (router.rules[0], {"id": 1, "tab": "posts"})


def test_placeholders_of_other_options_do_not_share_a_branch() -> None:
    router = Router([Rule("/x/<int(max=9):n>/a", "small"), Rule("/x/<int:n>/b", "any")])
    assert router.match("/x/50/b") == (router.rules[1], {"n": 50})
    assert router.match("/x/5/a") == (router.rules[0], {"n": 5})


def test_more_literal_text_beside_a_placeholder_is_tried_first() -> None:
    router = Router([Rule("/<name>", "name"), Rule("/report-<name>", "report")])
    assert router.match("/report-1") == (router.rules[1], {"name": "1"})


def test_a_converter_regex_with_groups_of_its_own() -> None:
    from sansio_http.routing import Converter

    class Pair(Converter):
        regex = "(a|b)(c|d)"

    router = Router([Rule("/<pair:x>-<int:n>", "pair")], converters={"pair": Pair})
    assert router.match("/ad-3") == (router.rules[0], {"x": "ad", "n": 3})


# -- a path without its slash, where another method takes it ------------------


def test_a_method_that_only_the_slashed_path_takes_is_redirected() -> None:
    router = Router([Rule("/bar", "create", methods=["POST"]), Rule("/bar/", "list")])
    with pytest.raises(RequestRedirect) as info:
        router.match("/bar", "GET")
    assert info.value.location == "/bar/"
    with pytest.raises(RequestRedirect):
        router.match("/bar", "HEAD")
    assert router.match("/bar", "POST")[0].endpoint == "create"


def test_a_method_that_neither_path_takes_is_still_a_405() -> None:
    router = Router([Rule("/bar", "create", methods=["POST"]), Rule("/bar/", "list")])
    with pytest.raises(MethodNotAllowed) as info:
        router.match("/bar", "PUT")
    assert info.value.allowed == ["OPTIONS", "POST"]
    # OPTIONS asks about /bar itself, which exists.
    with pytest.raises(AllowedMethods):
        router.match("/bar", "OPTIONS")


def test_no_redirect_of_another_method_when_slashes_are_not_redirected() -> None:
    router = Router(
        [Rule("/bar", "create", methods=["POST"]), Rule("/bar/", "list")],
        redirect_slashes=False,
    )
    with pytest.raises(MethodNotAllowed):
        router.match("/bar", "GET")


# -- converters at their edges ------------------------------------------------


def test_a_spanning_converter_that_keeps_its_text() -> None:
    from sansio_http.routing import Converter

    class Words(Converter):
        regex = "[a-z]+(?:/[a-z]+)*"
        spans_segments = True

    router = Router([Rule("/w/<words:w>/<int:n>", "words")], converters={"words": Words})
    assert router.match("/w/a/b/3") == (router.rules[0], {"w": "a/b", "n": 3})
    with pytest.raises(NotFound):
        router.match("/w/a/1/3")


def test_values_cross_the_functions_of_a_wide_tree() -> None:
    # Six static children are a table of functions, twice over: the values
    # gathered in each function reach the rule.
    router = Router(
        [Rule(f"/u/<int:id>/t{i}/<int:n>/s{j}", f"e{i}{j}") for i in range(6) for j in range(6)]
    )
    assert router.match("/u/1/t4/2/s5") == (router.rules[4 * 6 + 5], {"id": 1, "n": 2})


@pytest.mark.parametrize("path", ["/f/" + "9" * 400 + ".0", "/b/" + "9" * 5000, "/s/abcd", "/s/ab"])
def test_converters_refuse_what_their_regex_lets_through(path: str) -> None:
    router = Router(
        [
            Rule("/f/<float:x>", "float"),
            Rule("/b/<int(max=9):n>", "bounded"),
            Rule("/s/<string(length=3):s>", "three"),
        ]
    )
    with pytest.raises(NotFound):
        router.match(path)
