"""Rules: a path pattern with placeholders, its endpoint and its methods.

A :class:`Rule` reads like ``/users/<int:id>/files/<path:rest>``; the router
splits it into segments and fills in its converters as it adds it. A segment
that holds placeholders is kept as a :class:`_Part`, one regex over the whole
segment. :data:`Match` is what matching a path answers: a rule and its values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sansio_http.routing._converters import Converter

__all__ = ["Match", "Rule"]

_PLACEHOLDER = re.compile(
    r"<(?:(?P<converter>[a-zA-Z_][a-zA-Z0-9_]*)(?:\((?P<args>[^)]*)\))?:)?"
    r"(?P<name>[a-zA-Z_][a-zA-Z0-9_]*)>"
)


@dataclass
class _Part:
    """A placeholder-bearing segment: a regex over the whole segment."""

    pattern: re.Pattern[str]
    names: list[str]
    converters: list[Converter]
    weight: int


@dataclass
class Rule:
    """A URL rule: a path pattern, an endpoint and the methods it accepts.

    Args:
        rule: The pattern, starting with ``/``; placeholders are
            ``<converter(args):name>`` with ``string`` as the default.
        endpoint: The name :meth:`Router.build` finds the rule by.
        methods: The methods it accepts; ``None`` means GET. HEAD comes
            with GET (RFC 9110 §9.3.2).
        websocket: Whether the rule matches websocket requests only.
        defaults: Values passed to the view that the URL does not carry.
    """

    rule: str
    endpoint: str
    methods: Iterable[str] | None = None
    websocket: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict)
    converters: dict[str, Converter] = field(init=False, default_factory=dict, repr=False)
    allowed: frozenset[str] = field(init=False, default=frozenset(), repr=False)

    def __post_init__(self) -> None:
        if not self.rule.startswith("/"):
            raise ValueError(f"a rule starts with '/': {self.rule!r}")
        methods = {m.upper() for m in (self.methods or ("GET",))}
        if "GET" in methods:
            methods.add("HEAD")
        self.allowed = frozenset(methods)

    @property
    def arguments(self) -> frozenset[str]:
        """The placeholder names of the rule."""
        return frozenset(self.converters)


#: What a match answers: the rule and its placeholder values.
Match = tuple[Rule, dict[str, Any]]
