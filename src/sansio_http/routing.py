"""URL routing: rules with typed placeholders, matched by a segment tree.

A :class:`Router` holds :class:`Rule` objects such as
``/users/<int:id>/files/<path:rest>``. Rules are compiled once into a tree of
path segments: a static segment is one dictionary lookup, a placeholder is
one converter match, so matching costs the depth of the path and not the
number of rules. Matching answers 404, 405 (with the allowed methods) or a
308 redirect to the same path with a trailing slash, as HTTP errors; building
URLs (``url_for``) runs the converters the other way.

Everything here is pure: paths are the already percent-decoded text that
``Request.path`` holds.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

from sansio_http._errors import HTTPError, MethodNotAllowed, NotFound, _Negotiating
from sansio_http._request import Request
from sansio_http._response import Response, path_location

__all__ = [
    "AnyConverter",
    "Converter",
    "FloatConverter",
    "IntegerConverter",
    "PathConverter",
    "RequestRedirect",
    "Router",
    "Rule",
    "StringConverter",
    "UUIDConverter",
]


class RequestRedirect(HTTPError):
    """308: the rule exists with a trailing slash; go there.

    RFC 9110 §15.4.9: 308 keeps the method and body, unlike 301.

    SECURITY: the Location is the path percent-encoded to RFC 3986 ``pchar``
    form, never starting with ``//``, so it always points at this origin
    whatever the client put in the path. Given the request,
    :meth:`to_response` puts its ``root_path`` in front and keeps its query
    string.

    Args:
        path: The percent-decoded path to redirect to, as the router
            matched it (``Request.path`` with a trailing slash).

    Attributes:
        path: The decoded path.
        location: The Location without the request's root path and query.
    """

    status = 308
    description = "The resource lives at the URL with a trailing slash."

    def __init__(self, path: str) -> None:
        self.path = path
        self.location = path_location(path)
        super().__init__(headers={"Location": self.location})

    def to_response(self, request: _Negotiating | None = None) -> Response:
        """Build the 308, its Location under the request's root path and with its query.

        Args:
            request: The request being redirected; a
                :class:`~sansio_http.Request` gives its ``root_path`` and
                ``query_string`` to the Location.

        Returns:
            A new 308 response.
        """
        response = super().to_response(request)
        if isinstance(request, Request):
            response.headers["Location"] = path_location(
                self.path, request.root_path, request.query_string
            )
        return response


class Converter:
    """Turn one placeholder of a rule into a value and back.

    Subclasses set ``regex`` (what one segment may hold) and override
    :meth:`to_python` and :meth:`to_url`. ``to_python`` raises ``ValueError``
    to reject a segment that the regex let through.

    Attributes:
        regex: A pattern for the placeholder's text, without anchors.
        weight: Order among placeholders at the same place: lower tries first.
        spans_segments: Whether the placeholder may hold slashes.
    """

    regex: str = "[^/]+"
    weight: ClassVar[int] = 100
    spans_segments: ClassVar[bool] = False

    def __init__(self, *args: str) -> None:
        if args:
            raise TypeError(f"{type(self).__name__} takes no arguments")
        self._pattern = re.compile(self.regex)

    def match(self, text: str) -> bool:
        """Return whether ``text`` is all placeholder."""
        return self._pattern.fullmatch(text) is not None

    def to_python(self, text: str) -> Any:
        """Return the value of a matched placeholder."""
        return text

    def to_url(self, value: Any) -> str:
        """Return the URL text of a value, percent-encoded."""
        return quote(str(value), safe="")


class StringConverter(Converter):
    """Text without slashes: ``<name>`` or ``<string(minlength=2,maxlength=8):name>``."""

    def __init__(self, *args: str) -> None:
        options = dict(arg.split("=", 1) for arg in args)
        self.minlength = int(options.pop("minlength", 1))
        maxlength = options.pop("maxlength", None)
        length = options.pop("length", None)
        if options:
            raise TypeError(f"unknown string converter options: {sorted(options)}")
        self.maxlength = int(maxlength) if maxlength is not None else None
        if length is not None:
            self.minlength = self.maxlength = int(length)
        super().__init__()

    def to_python(self, text: str) -> str:
        """Return the text, checking its length."""
        if len(text) < self.minlength or (
            self.maxlength is not None and len(text) > self.maxlength
        ):
            raise ValueError("length out of bounds")
        return text


class IntegerConverter(Converter):
    """A non-negative decimal integer: ``<int:id>`` (``<int(signed=true):n>``)."""

    regex = r"\d+"
    weight = 50

    def __init__(self, *args: str) -> None:
        options = dict(arg.split("=", 1) for arg in args)
        signed = options.pop("signed", "false").lower() == "true"
        self.min = int(options.pop("min")) if "min" in options else None
        self.max = int(options.pop("max")) if "max" in options else None
        if options:
            raise TypeError(f"unknown int converter options: {sorted(options)}")
        if signed:
            self.regex = r"-?\d+"
        super().__init__()

    def to_python(self, text: str) -> int:
        """Return the integer, checking its bounds."""
        if len(text) > 4300:  # Python's int() digit limit; never a valid id.
            raise ValueError("too many digits")
        value = int(text)
        if (self.min is not None and value < self.min) or (
            self.max is not None and value > self.max
        ):
            raise ValueError("out of bounds")
        return value

    def to_url(self, value: Any) -> str:
        """Return the decimal text of an integer."""
        return str(int(value))


class FloatConverter(Converter):
    """A non-negative decimal number with a point: ``<float:ratio>``."""

    regex = r"\d+\.\d+"
    weight = 50

    def to_python(self, text: str) -> float:
        """Return the number."""
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not finite")
        return value

    def to_url(self, value: Any) -> str:
        """Return the decimal text of a number."""
        return repr(float(value))


class PathConverter(Converter):
    """Text that may hold slashes: ``<path:rest>``."""

    regex = r"[^/].*?"
    weight = 200
    spans_segments = True

    def to_url(self, value: Any) -> str:
        """Return the path, keeping its slashes."""
        return quote(str(value), safe="/")


class UUIDConverter(Converter):
    """A UUID in its canonical hexadecimal form: ``<uuid:id>``."""

    regex = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    weight = 50

    def to_python(self, text: str) -> uuid.UUID:
        """Return the UUID."""
        return uuid.UUID(text)


class AnyConverter(Converter):
    """One of a fixed set of words: ``<any(about,help):page>``."""

    weight = 40

    def __init__(self, *items: str) -> None:
        if not items:
            raise TypeError("any() needs at least one item")
        self.items = frozenset(items)
        self.regex = "|".join(re.escape(item) for item in items)
        super().__init__()

    def to_url(self, value: Any) -> str:
        """Return the word, which must be one of the items."""
        if str(value) not in self.items:
            raise ValueError(f"{value!r} is not one of {sorted(self.items)}")
        return quote(str(value), safe="")


DEFAULT_CONVERTERS: Mapping[str, type[Converter]] = {
    "default": StringConverter,
    "string": StringConverter,
    "int": IntegerConverter,
    "float": FloatConverter,
    "path": PathConverter,
    "uuid": UUIDConverter,
    "any": AnyConverter,
}

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


class _Node:
    """One level of the segment tree."""

    __slots__ = ("parts", "rules", "spans", "static")

    def __init__(self) -> None:
        self.static: dict[str, _Node] = {}
        self.parts: list[tuple[_Part, _Node]] = []
        self.spans: list[tuple[str, Converter, _Node]] = []
        self.rules: list[Rule] = []


Match = tuple[Rule, dict[str, Any]]


class Router:
    """A set of rules, matched by path and method and built back into URLs.

    Args:
        rules: Rules to add at once.
        converters: Extra converter classes by name, beside the defaults
            ``string``, ``int``, ``float``, ``path``, ``uuid`` and ``any``.
        redirect_slashes: Answer a path missing its trailing slash with a
            308 to the rule that has it.
    """

    def __init__(
        self,
        rules: Iterable[Rule] = (),
        *,
        converters: Mapping[str, type[Converter]] | None = None,
        redirect_slashes: bool = True,
    ) -> None:
        self.converters: dict[str, type[Converter]] = {**DEFAULT_CONVERTERS, **(converters or {})}
        self.redirect_slashes = redirect_slashes
        self._root = _Node()
        self._by_endpoint: dict[str, list[Rule]] = {}
        self.rules: list[Rule] = []
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> Rule:
        """Add a rule; return it."""
        node = self._root
        segments = rule.rule[1:].split("/")
        for index, segment in enumerate(segments):
            node = self._insert(node, segment, rule, last=index == len(segments) - 1)
        node.rules.append(rule)
        self.rules.append(rule)
        self._by_endpoint.setdefault(rule.endpoint, []).append(rule)
        return rule

    def _insert(self, node: _Node, segment: str, rule: Rule, *, last: bool) -> _Node:
        pieces = list(_PLACEHOLDER.finditer(segment))
        if not pieces:
            return node.static.setdefault(segment, _Node())
        converters = [self._converter(m) for m in pieces]
        names = [m["name"] for m in pieces]
        for name, converter in zip(names, converters, strict=True):
            if name in rule.converters:
                raise ValueError(f"placeholder {name!r} appears twice in {rule.rule!r}")
            rule.converters[name] = converter
        if len(pieces) == 1 and pieces[0].group(0) == segment and converters[0].spans_segments:
            for existing_name, existing, child in node.spans:
                if existing_name == names[0] and type(existing) is type(converters[0]):
                    return child
            child = _Node()
            node.spans.append((names[0], converters[0], child))
            return child
        regex, pos = [], 0
        for match, converter in zip(pieces, converters, strict=True):
            regex.append(re.escape(segment[pos : match.start()]))
            regex.append(f"({converter.regex})")
            pos = match.end()
        regex.append(re.escape(segment[pos:]))
        source = "".join(regex)
        for part, child in node.parts:
            if part.pattern.pattern == source and part.names == names:
                return child
        weight = min(c.weight for c in converters) - (len(segment) - sum(len(m[0]) for m in pieces))
        child = _Node()
        node.parts.append((_Part(re.compile(source), names, converters, weight), child))
        node.parts.sort(key=lambda item: item[0].weight)
        return child

    def _converter(self, match: re.Match[str]) -> Converter:
        name = match["converter"] or "default"
        try:
            cls = self.converters[name]
        except KeyError:
            raise ValueError(f"unknown converter {name!r}") from None
        args = [a.strip() for a in (match["args"] or "").split(",") if a.strip()]
        return cls(*args)

    def _candidates(self, node: _Node, segments: list[str], start: int) -> Iterator[Match]:
        if start == len(segments):
            for rule in node.rules:
                yield rule, {}
            return
        segment = segments[start]
        child = node.static.get(segment)
        if child is not None:
            yield from self._candidates(child, segments, start + 1)
        for part, child in node.parts:
            found = part.pattern.fullmatch(segment)
            if found is None:
                continue
            try:
                values = {
                    name: converter.to_python(text)
                    for name, converter, text in zip(
                        part.names, part.converters, found.groups(), strict=True
                    )
                }
            except ValueError:
                continue
            for rule, rest in self._candidates(child, segments, start + 1):
                yield rule, {**values, **rest}
        for name, converter, child in node.spans:
            # Longest first: a path placeholder is greedy, as users expect.
            for end in range(len(segments), start, -1):
                text = "/".join(segments[start:end])
                if not converter.match(text):
                    continue
                try:
                    value = converter.to_python(text)
                except ValueError:
                    continue
                for rule, rest in self._candidates(child, segments, end):
                    yield rule, {name: value, **rest}

    def match(self, path: str, method: str = "GET", *, websocket: bool = False) -> Match:
        """Return the rule for a path and method, with its placeholder values.

        Args:
            path: The request path, percent-decoded, starting with ``/``.
            method: The request method, upper-case.
            websocket: Whether the request is a websocket handshake.

        Returns:
            The rule and the converted values merged over its defaults.

        Raises:
            NotFound: No rule matches the path.
            MethodNotAllowed: Rules match the path but not the method; the
                error carries the allowed methods.
            RequestRedirect: Only the path with a trailing slash matches.
        """
        segments = path[1:].split("/")
        allowed: set[str] = set()
        for rule, values in self._candidates(self._root, segments, 0):
            if rule.websocket != websocket:
                continue
            if websocket or method in rule.allowed:
                return rule, {**rule.defaults, **values}
            allowed |= rule.allowed
        if allowed:
            raise MethodNotAllowed(allowed=sorted(allowed | {"OPTIONS"}))
        if self.redirect_slashes and not path.endswith("/"):
            for rule, _ in self._candidates(self._root, [*segments, ""], 0):
                if rule.websocket == websocket:
                    raise RequestRedirect(path + "/")
        raise NotFound()

    def allowed_methods(self, path: str) -> set[str]:
        """Return the methods some rule accepts for ``path`` (for OPTIONS)."""
        segments = path[1:].split("/")
        methods: set[str] = set()
        for rule, _ in self._candidates(self._root, segments, 0):
            if not rule.websocket:
                methods |= rule.allowed
        return methods

    def build(
        self,
        endpoint: str,
        values: Mapping[str, Any] | None = None,
        *,
        method: str | None = None,
        root_path: str = "",
        anchor: str | None = None,
        base_url: str | None = None,
    ) -> str:
        """Return the URL of an endpoint with the given placeholder values.

        Values that no placeholder takes become the query string.

        Args:
            endpoint: The rule's endpoint.
            values: Placeholder values, and query arguments.
            method: Prefer a rule that accepts this method.
            root_path: The prefix the application is mounted under.
            anchor: A fragment to append.
            base_url: ``scheme://host`` for an absolute URL.

        Raises:
            LookupError: No rule of that endpoint fits the values.
        """
        values = {k: v for k, v in (values or {}).items() if v is not None}
        for rule in self._by_endpoint.get(endpoint, ()):
            if method is not None and method.upper() not in rule.allowed:
                continue
            if not rule.arguments <= set(values) | set(rule.defaults):
                continue
            if any(k in values and values[k] != v for k, v in rule.defaults.items()):
                continue
            path = _PLACEHOLDER.sub(_builder(rule, values), rule.rule)
            url = root_path.rstrip("/") + path
            extra = [
                (k, v)
                for k, v in values.items()
                if k not in rule.converters and k not in rule.defaults
            ]
            if extra:
                url += "?" + urlencode(_flatten(extra))
            if anchor:
                url += "#" + quote(anchor, safe="/?:@!$&'()*+,;=-._~")
            return (base_url.rstrip("/") + url) if base_url else url
        raise LookupError(f"no rule for endpoint {endpoint!r} with arguments {sorted(values)}")


def _builder(rule: Rule, values: Mapping[str, Any]) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        return rule.converters[name].to_url(values.get(name, rule.defaults.get(name)))

    return replace


def _flatten(pairs: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    flat: list[tuple[str, str]] = []
    for key, value in pairs:
        if isinstance(value, (list, tuple)):
            flat.extend((key, str(item)) for item in value)
        else:
            flat.append((key, str(value)))
    return flat
