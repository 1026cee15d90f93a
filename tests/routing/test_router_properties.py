"""Property tests of the router against a model of the documented order.

Random sets of rules (literal segments, typed placeholders, path
placeholders, with and without a trailing slash) go into a Router and into
:func:`best`, a brute-force model written from the order that docs/app.rst
gives: every way each rule matches a path is ranked segment by segment, and
the lowest ranking wins. The router must answer what the model answers, for
URLs that ``build()`` wrote and for arbitrary paths.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sansio_http.routing import Router, Rule

# -- the rules ----------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A segment of a rule: its text ("{}" for each placeholder name) and its model."""

    text: str
    regex: str  # over the segment's text, a group per placeholder
    kinds: tuple[str, ...]  # the converter of each placeholder
    weight: int  # the docs: the lowest converter weight less the literal characters
    spans: bool = False


#: Converter weights, as docs/app.rst lists them.
WEIGHTS = {"any": 40, "int": 50, "float": 50, "string": 100, "path": 200}

LITERALS = [Shape(text, re.escape(text), (), 0) for text in ["a", "edit", "caf\u00e9", "x y"]]
PLACEHOLDERS = [
    Shape("<int:{}>", r"(\d+)", ("int",), 50),
    Shape("<{}>", r"([^/]+)", ("string",), 100),
    Shape("<float:{}>", r"(\d+\.\d+)", ("float",), 50),
    Shape("<any(a,edit,z):{}>", r"(a|edit|z)", ("any",), 40),
    Shape("<int:{}>-<int:{}>", r"(\d+)-(\d+)", ("int", "int"), 49),
    Shape("<{}>.txt", r"([^/]+)\.txt", ("string",), 96),
]
SPANS = [
    Shape("<path:{}>", r"([^/].*?)", ("path",), 200, spans=True),
    Shape("t-<path:{}>", r"t-([^/].*?)", ("path",), 198, spans=True),
]


@dataclass(frozen=True)
class Model:
    """A rule and what the model knows of it."""

    shapes: tuple[Shape, ...]
    slash: bool

    def text(self, prefix: str) -> str:
        """Return the rule's text, its placeholders named ``prefix`` and a number.

        Each rule of a set names its placeholders its own way, so that
        placeholders that differ in name only are seen to share a branch.
        """
        names = iter(self.names(prefix))
        segments = [re.sub(r"\{\}", lambda _: next(names), shape.text) for shape in self.shapes]
        return "/" + "/".join(segments) + ("/" if self.slash and self.shapes else "")

    def names(self, prefix: str) -> list[str]:
        """Return the placeholder names that :meth:`text` writes."""
        return [f"{prefix}{i}" for i in range(sum(len(shape.kinds) for shape in self.shapes))]

    @property
    def keys(self) -> tuple[str, ...]:
        """The rule's segments, placeholder names aside (a trailing slash is a literal "")."""
        keys = tuple(shape.text for shape in self.shapes)
        return (*keys, "") if self.slash and self.shapes else keys or ("",)

    @property
    def segments(self) -> tuple[Shape, ...]:
        if self.slash and self.shapes:
            return (*self.shapes, Shape("", "", (), 0))
        return self.shapes or (Shape("", "", (), 0),)


def models(spans: st.SearchStrategy[Shape]) -> st.SearchStrategy[Model]:
    shape = st.sampled_from(LITERALS + PLACEHOLDERS) | spans
    return st.builds(Model, st.lists(shape, max_size=3).map(tuple), st.booleans())


RULE_SETS = st.lists(
    models(st.sampled_from(SPANS)), min_size=1, max_size=6, unique_by=lambda m: m.keys
)

# -- the model of the order ---------------------------------------------------


def convert(kind: str, text: str) -> Any:
    """Return a placeholder's value, or raise ValueError as the converter does."""
    if kind == "int":
        if len(text) > 4300:
            raise ValueError(text)
        return int(text)
    if kind == "float":
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    return text


Rank = tuple[int, ...]


def rankings(
    rules: list[Model], index: int, path: list[str]
) -> Iterator[tuple[list[Rank], list[Any]]]:
    """Yield every way rule ``index`` matches ``path``: its ranks and values.

    The rank of a path segment, lowest first (docs/app.rst): a literal
    segment; a one-segment placeholder (by weight); a path placeholder that
    goes on from the segment before; a path placeholder that starts there
    (by weight). Placeholders of equal weight rank by the rule that brought
    them first to that place.
    """
    model = rules[index]
    segments = model.segments

    def branch(k: int) -> int:
        prefix = model.keys[: k + 1]
        return next(i for i, other in enumerate(rules) if other.keys[: k + 1] == prefix)

    def walk(k: int, j: int, ranks: list[Rank], values: list[Any]) -> Iterator[Any]:
        if k == len(segments):
            if j == len(path):
                yield ranks, values
            return
        if j == len(path):
            return
        shape = segments[k]
        if not shape.kinds:
            if path[j] == shape.text:
                yield from walk(k + 1, j + 1, [*ranks, (0,)], values)
            return
        ends = range(j + 1, len(path) + 1) if shape.spans else [j + 1]
        for end in ends:
            matched = re.fullmatch(shape.regex, "/".join(path[j:end]))
            if matched is None:
                continue
            try:
                texts = zip(shape.kinds, matched.groups(), strict=True)
                found = [convert(kind, text) for kind, text in texts]
            except ValueError:
                continue
            if shape.spans:
                rank = [(3, shape.weight, branch(k)), *[(2,)] * (end - j - 1)]
            else:
                rank = [(1, shape.weight, branch(k))]
            yield from walk(k + 1, end, ranks + rank, values + found)

    yield from walk(0, 0, [], [])


def candidates(rules: list[Model], router: Router, path: str) -> list[tuple[Any, ...]]:
    """Return ``(ranks, rule index, rule, values)`` for every way a rule matches."""
    segments = path[1:].split("/")
    found = []
    for index, (model, rule) in enumerate(zip(rules, router.rules, strict=True)):
        for ranks, values in rankings(rules, index, segments):
            names = model.names(f"e{index}n")
            found.append((ranks, index, rule, dict(zip(names, values, strict=True))))
    return found


def best(rules: list[Model], router: Router, path: str) -> tuple[Rule, dict[str, Any]] | None:
    found = candidates(rules, router, path)
    if not found:
        return None
    _, _, rule, values = min(found, key=lambda item: (item[0], item[1]))
    return rule, values


# -- values -------------------------------------------------------------------

WORDS = ["a", "edit", "z", "5", "1.5", "2-3", "t-x", "x.txt", "caf\u00e9"]
TEXT = st.sampled_from(WORDS) | st.text(
    st.characters(codec="utf-8", exclude_characters="/"), min_size=1
)
PATH = st.lists(st.sampled_from([*WORDS, ""]) | TEXT, min_size=1, max_size=3).map("/".join)
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "int": st.integers(min_value=0, max_value=10**6),
    "float": st.floats(min_value=0, max_value=1e6, allow_nan=False),
    "any": st.sampled_from(["a", "edit", "z"]),
    "string": TEXT,
    # A path placeholder takes no leading slash and no line feed after the first character.
    "path": PATH.filter(lambda text: bool(text) and text[0] != "/" and "\n" not in text[1:]),
}


def values_for(model: Model, prefix: str) -> st.SearchStrategy[dict[str, Any]]:
    kinds = [kind for shape in model.shapes for kind in shape.kinds]
    names = model.names(prefix)
    return st.fixed_dictionaries(
        {name: VALUES[kind] for name, kind in zip(names, kinds, strict=True)}
    )


def router_for(rules: list[Model], *, redirect_slashes: bool = True) -> Router:
    """Return a router of the rules, rule ``i`` with endpoint ``e{i}``, names ``e{i}n{k}``.

    A set the router refuses, since ``<path:a>`` ending a rule would leave a
    rule ``<path:a>/<path:b>`` nothing to match, is not drawn.
    """
    try:
        return Router(
            [Rule(model.text(f"e{i}n"), f"e{i}") for i, model in enumerate(rules)],
            redirect_slashes=redirect_slashes,
        )
    except ValueError as exc:
        assume("takes the rest of every path first" not in str(exc))
        raise


# -- the properties -----------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(rules=RULE_SETS, data=st.data())
def test_built_urls_come_back_in_the_documented_order(rules: list[Model], data: Any) -> None:
    router = router_for(rules)
    for index, (model, rule) in enumerate(zip(rules, router.rules, strict=True)):
        values = data.draw(values_for(model, f"e{index}n"))
        path = unquote(router.build(rule.endpoint, values))
        # build() wrote a URL of this rule, with these values...
        found = candidates(rules, router, path)
        assert any(i == index and v == values for _, i, _, v in found), (rule, values, path)
        # ...and match() answers with the rule the documented order puts first.
        assert router.match(path) == best(rules, router, path)


#: Paths of words the rules know, so that most of them match some rule.
REQUESTS = st.lists(st.sampled_from([*WORDS, "x y", ""]), min_size=1, max_size=4).map("/".join)


@settings(max_examples=150, deadline=None)
@given(rules=RULE_SETS, path=REQUESTS)
def test_any_path_is_matched_in_the_documented_order(rules: list[Model], path: str) -> None:
    router = router_for(rules, redirect_slashes=False)
    assert router.find("/" + path) == best(rules, router, "/" + path)


#: A rule with one path placeholder at most: its values are the only way it matches its URL.
SINGLE = models(st.sampled_from(SPANS)).filter(
    lambda m: sum(shape.spans for shape in m.shapes) <= 1
)


@settings(max_examples=150, deadline=None)
@given(model=SINGLE, data=st.data())
def test_a_rule_alone_gets_its_values_back(model: Model, data: Any) -> None:
    router = router_for([model])
    values = data.draw(values_for(model, "e0n"))
    assert router.match(unquote(router.build("e0", values))) == (router.rules[0], values)
