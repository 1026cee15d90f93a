"""Rules: a path pattern with placeholders, its endpoint and its methods.

A :class:`Rule` reads like ``/users/<int:id>/files/<path:rest>``; the router
splits it into segments and fills in its converters as it adds it. A segment
that holds placeholders is kept as a :class:`_Part`, one regex over the whole
segment (over the segments it takes, where a path placeholder lets it span
several). :data:`Match` is what matching a path answers: a rule and its values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sansio_http.routing._converters import Converter

__all__ = ["Match", "Rule", "rule_methods"]

_PLACEHOLDER = re.compile(
    r"<(?:(?P<converter>[a-zA-Z_][a-zA-Z0-9_]*)(?:\((?P<args>[^)]*)\))?:)?"
    r"(?P<name>[a-zA-Z_][a-zA-Z0-9_]*)>"
)

#: A placeholder as Starlette, FastAPI and OpenAPI spell it: ``{id}``, ``{id:int}``.
_BRACED = re.compile(r"\{(?P<name>[^{}/:]*)(?::(?P<converter>[^{}/]*))?\}")

#: Starlette's converter names, as this router spells them.
_STARLETTE_CONVERTERS = {"str": "string", "int": "int", "float": "float", "path": "path"}


@dataclass
class _Part:
    """A segment holding placeholders: one regex over its text.

    Attributes:
        pattern: The regex over the segment's text, a group per placeholder.
        converters: The converters of its placeholders, in order.
        groups: The group of each converter in ``pattern`` (a converter's
            regex may hold groups of its own).
        key: What equal parts share a branch of the tree by: the regex and
            the converters' names and arguments, not the placeholder names.
        weight: The order among the parts of a node, lowest first: the
            lowest converter weight less the literal characters beside the
            placeholders.
        spans: Whether a placeholder may hold slashes, so that the part
            takes one segment or more.
        whole: Whether one placeholder fills the segment.
        literals: The literal texts around the placeholders, one more than
            them (``""`` where two touch or one starts or ends the segment).
    """

    pattern: re.Pattern[str]
    converters: list[Converter]
    groups: tuple[int, ...]
    key: tuple[Any, ...]
    weight: int
    spans: bool
    whole: bool
    literals: tuple[str, ...] = ()


@dataclass
class Rule:
    """A URL rule: a path pattern, an endpoint and the methods it accepts.

    Args:
        rule: The pattern, starting with ``/``; placeholders are
            ``<converter(args):name>`` with ``string`` as the default.
        endpoint: The name :meth:`Router.build` finds the rule by.
        methods: The methods it accepts, such as ``["GET", "POST"]``;
            ``None`` means GET. HEAD comes with GET (RFC 9110 §9.3.2).
        websocket: Whether the rule matches websocket requests only.
        defaults: Values passed to the view that the URL does not carry.
        host: The host it matches only, such as ``api.example.com`` or
            ``<tenant>.example.com``, its placeholders written as in the
            path; None matches any host. The router checks the rest.

    Attributes:
        names: The placeholder names of the path, in the order of the rule.
        host_names: The placeholder names of the host, in their order.

    Raises:
        ValueError: The rule does not start with ``/``, a ``<`` or ``>``
            belongs to no placeholder, a name appears twice (in the path,
            the host, or both), or it holds ``{...}``, Starlette's spelling
            of a placeholder.
        TypeError: ``methods`` is a string (``methods="GET"`` would allow
            G, E and T) or holds something other than strings, or ``host``
            is not a string.
    """

    rule: str
    endpoint: str
    methods: Iterable[str] | None = None
    websocket: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict)
    host: str | None = None
    converters: dict[str, Converter] = field(init=False, default_factory=dict, repr=False)
    allowed: frozenset[str] = field(init=False, default=frozenset(), repr=False)
    names: tuple[str, ...] = field(init=False, default=(), repr=False)
    host_names: tuple[str, ...] = field(init=False, default=(), repr=False)

    def __post_init__(self) -> None:
        if not self.rule.startswith("/"):
            raise ValueError(f"a rule starts with '/': {self.rule!r}")
        self.allowed = rule_methods(self.methods, self.rule)
        _refuse_braces(self.rule)
        self.names = _names(self.rule.split("/"), f"rule {self.rule!r}", ())
        if self.host is not None:
            if not isinstance(self.host, str):
                raise TypeError(
                    f"the host of rule {self.rule!r} is a str such as 'api.example.com', "
                    f"not {self.host!r}"
                )
            _refuse_braces(self.host, "host")
            where = f"host {self.host!r} of rule {self.rule!r}"
            self.host_names = _names([self.host], where, self.names)

    @property
    def arguments(self) -> frozenset[str]:
        """The placeholder names of the rule."""
        return frozenset(self.converters)


def _names(pieces: list[str], where: str, taken: tuple[str, ...]) -> tuple[str, ...]:
    """Return the placeholder names of a rule's segments or host, in order.

    Args:
        pieces: The segments (a placeholder never holds a slash, so each
            is read alone), or the whole host.
        where: What the pieces are, for the messages: ``rule '/a'``.
        taken: The names of the path, for a host's.

    Raises:
        ValueError: A ``<`` or ``>`` belongs to no placeholder, or a name
            appears twice, or in both the path and the host.
    """
    names: list[str] = []
    for piece in pieces:
        if "<" in piece or ">" in piece:
            stray = _PLACEHOLDER.sub("", piece)
            if "<" in stray or ">" in stray:
                raise ValueError(
                    f"malformed placeholder in {where}: write <name> or "
                    "<converter:name>, with a name such as user_id"
                )
        for match in _PLACEHOLDER.finditer(piece):
            name = match["name"]
            if name in taken:
                raise ValueError(
                    f"placeholder {name!r} appears in both the path and the {where}: "
                    "each value comes from one place; rename one of them"
                )
            if name in names:
                raise ValueError(f"placeholder {name!r} appears twice in {where}")
            names.append(name)
    return tuple(names)


def _refuse_braces(rule: str, what: str = "rule") -> None:
    """Refuse ``{name}`` and ``{name:type}``, which would be matched literally.

    NOTE: ``/numbers/{n:int}`` would otherwise be a literal path, and
    ``/numbers/5`` a 404 nobody could explain. A literal ``{...}`` in a URL
    is rare enough to give up for that.

    Raises:
        ValueError: The rule holds ``{...}``; the message gives the rule
            with ``<converter:name>`` in its place.
    """
    braced = _BRACED.search(rule)
    if braced is None:
        return

    def spelled(match: re.Match[str]) -> str:
        name = match["name"] or "name"
        converter = match["converter"]
        if not converter:
            return f"<{name}>"
        return f"<{_STARLETTE_CONVERTERS.get(converter, converter)}:{name}>"

    raise ValueError(
        f"{what} {rule!r} holds {braced[0]!r}, which is matched as literal text: "
        f"placeholders are written <converter:name>, so write {_BRACED.sub(spelled, rule)!r}"
    )


def rule_methods(methods: Iterable[str] | None, rule: str) -> frozenset[str]:
    """Return the methods a rule allows: upper-cased, HEAD beside GET.

    Args:
        methods: The rule's methods; ``None`` means GET.
        rule: The rule, for the error messages.

    Raises:
        TypeError: ``methods`` is a string, or holds something other than strings.
    """
    if isinstance(methods, str):
        # A string is an iterable of one-letter methods: "GET" would allow G, E and T.
        raise TypeError(
            f"methods of rule {rule!r} is a list of names, not a string: "
            f"write methods=[{methods!r}]"
        )
    allowed = set()
    for method in methods or ("GET",):
        if not isinstance(method, str):
            raise TypeError(f"methods of rule {rule!r} are strings, not {method!r}")
        allowed.add(method.upper())
    if "GET" in allowed:
        allowed.add("HEAD")
    return frozenset(allowed)


#: What a match answers: the rule and its placeholder values.
Match = tuple[Rule, dict[str, Any]]


def _placeholder_text(
    rule: Rule,
    endpoint: str,
    values: Mapping[str, Any],
    name: str,
    converter: Converter,
    part: str = "rule",
) -> tuple[Any, str]:
    """Return a placeholder's value for building a URL, and its converter's text of it.

    The value is the caller's, else the rule's default; ``part`` names what
    is built in the error (``"rule"``, ``"the host of rule"``).

    Raises:
        ValueError: The converter refuses the value.
    """
    value = values[name] if name in values else rule.defaults[name]
    try:
        return value, converter.to_url(value)
    except ValueError as exc:
        raise ValueError(
            f"cannot build {part} {rule.rule!r} (endpoint {endpoint!r}) with "
            f"{name}={value!r}: {exc}"
        ) from exc
