"""URL routing: rules with typed placeholders, matched by a segment tree.

A :class:`Router` holds :class:`Rule` objects such as
``/users/<int:id>/files/<path:rest>``. Rules are kept in a tree of path
segments, which the first match after a change compiles into Python source
(as Falcon's router does): a static segment is one comparison or dictionary
lookup, a placeholder is one converter match, so matching costs the depth of
the path and not the number of rules; a path made of static segments only is
one lookup in all. Matching answers 404, 405 (with the allowed methods),
204 to an OPTIONS request no rule takes (with the allowed methods) or a 308
redirect to the same path with a trailing slash, as HTTP errors; building
URLs (``url_for``) runs the converters the other way.

Everything here is pure: paths are the already percent-decoded text that
``Request.path`` holds.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote, urlencode

from sansio_http.messages._errors import HTTPError, MethodNotAllowed, NotFound, _Negotiating
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.http._urls import path_location

if TYPE_CHECKING:
    from sansio_http.messages._response import Response

__all__ = [
    "AllowedMethods",
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


#: Python's int() digit limit (sys.int_info.default_max_str_digits); never a valid id.
_MAX_DIGITS = 4300


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
        if len(text) > _MAX_DIGITS:
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

#: A compiled node: ``(segments, index, count, method, websocket, allowed)`` in,
#: the first rule that takes the request (and its values) out, or None. The
#: methods of rules that match the path but not the method are appended to
#: ``allowed``. A method of None takes any rule; one that no rule allows
#: (``""``) only collects.
_Step = Callable[[list[str], int, int, "str | None", bool, "list[frozenset[str]]"], "Match | None"]


#: A compiled router: the static paths' rules by method, the functions of the
#: root's children by first segment (where the root holds nothing else), and
#: the root's function.
_Compiled = tuple[dict[str, dict[str, Rule]], "dict[str, _Step] | None", _Step]


class _Leaf:
    """The rules that end at one node, indexed by method."""

    __slots__ = ("allowed", "by_method", "first_http", "first_websocket", "rules")

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)
        self.by_method: dict[str, Rule] = {}
        allowed: set[str] = set()
        self.first_http: Rule | None = None
        self.first_websocket: Rule | None = None
        for rule in self.rules:
            if rule.websocket:
                self.first_websocket = self.first_websocket or rule
                continue
            self.first_http = self.first_http or rule
            allowed |= rule.allowed
            for method in rule.allowed:
                # The first rule added wins, as it did when rules were tried in order.
                self.by_method.setdefault(method, rule)
        self.allowed = frozenset(allowed)


#: What a segment converter returns for a segment its placeholders do not fit.
_NO_MATCH: Any = object()


def _segment_converter(part: _Part) -> Callable[[str], Any]:
    """Return a function from a segment to its value (or values), or ``_NO_MATCH``.

    It raises ``ValueError`` where a converter's ``to_python`` does.
    """
    fullmatch = part.pattern.fullmatch
    converters = part.converters
    if len(converters) > 1:

        def convert_many(segment: str) -> Any:
            matched = fullmatch(segment)
            if matched is None:
                return _NO_MATCH
            return [c.to_python(t) for c, t in zip(converters, matched.groups(), strict=True)]

        return convert_many
    converter = converters[0]
    to_python = converter.to_python
    if type(converter) is IntegerConverter and part.pattern.pattern == r"(\d+)":
        # PERF: str.isdecimal() is true exactly where the regex \d+ matches
        # (both test Unicode category Nd), and costs no regex call.
        def convert_int(segment: str) -> Any:
            return to_python(segment) if segment.isdecimal() else _NO_MATCH

        return convert_int

    def convert(segment: str) -> Any:
        matched = fullmatch(segment)
        return _NO_MATCH if matched is None else to_python(matched[1])

    return convert


def _plain_int(part: _Part) -> bool:
    """Return whether a part is one ``<int:name>`` filling its segment, without options."""
    if len(part.converters) != 1:
        return False
    converter = part.converters[0]
    return (
        type(converter) is IntegerConverter
        and converter.min is None
        and converter.max is None
        and part.pattern.pattern == r"(\d+)"
    )


class _Compiler:
    """Write the matching functions of a segment tree as Python source.

    Each function takes what a :data:`_Step` takes and walks its subtree in
    the order the tree promises: at a node, the static child, then the
    placeholders by weight, then the path placeholders longest first; a
    subtree that takes nothing falls through to the next candidate. A leaf
    returns its rule with every placeholder value of the path, gathered in
    local variables on the way down. Rule and segment texts enter the source
    only through ``repr``, and converters only as names bound to them.

    PERF: one function holds a whole subtree, so a match makes a call only
    where a node has more static children than an ``if`` chain should test
    (one dictionary lookup finds the child's function there), or where the
    source would nest too deeply.
    """

    #: Static children tested by an if chain; more are found in a dictionary.
    MAX_CHAIN = 4
    #: Indentation levels (and loops) a function may reach before its
    #: subtree goes into a function of its own: Python allows 100 (and 20).
    MAX_DEPTH = 40
    MAX_LOOPS = 10

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"_NO_MATCH": _NO_MATCH, "_MAX_DIGITS": _MAX_DIGITS}
        self.count = 0

    def compile(self, node: _Node) -> _Step:
        """Return the matching function of ``node``, entered at index ``i``."""
        lines: list[str] = []
        name = self._name("walk")
        lines.append(f"def {name}(segments, i, count, method, websocket, allowed):")
        self._node(lines, node, "i", 0, 1, 0, [])
        lines.append("    return None")
        exec(compile("\n".join(lines), f"<sansio_http.routing {name}>", "exec"), self.namespace)
        step: _Step = self.namespace[name]
        return step

    def _name(self, prefix: str, value: Any = None) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        if value is not None:
            self.namespace[name] = value
        return name

    @staticmethod
    def _index(base: str, offset: int) -> str:
        return base if offset == 0 else f"{base} + {offset}"

    def _node(
        self,
        lines: list[str],
        node: _Node,
        base: str,
        offset: int,
        depth: int,
        loops: int,
        values: list[tuple[str, str]],
    ) -> None:
        pad = "    " * depth
        index = self._index(base, offset)
        children = node.static or node.parts or node.spans
        if node.rules:
            lines.append(f"{pad}if count == {index}:")
            self._leaf(lines, _Leaf(node.rules), depth + 1, values)
            if children:
                lines.append(f"{pad}else:")
                self._children(lines, node, base, offset, depth + 1, loops, values)
        elif children:
            lines.append(f"{pad}if count != {index}:")
            self._children(lines, node, base, offset, depth + 1, loops, values)
        else:
            lines.append(f"{pad}pass")

    def _leaf(
        self, lines: list[str], leaf: _Leaf, depth: int, values: list[tuple[str, str]]
    ) -> None:
        pad = "    " * depth
        # PERF: the values as a plain dict where no rule of the leaf has
        # defaults, as the router finds them when it compiles (the App keeps
        # the values of static rules from their first match likewise).
        merge = any(rule.defaults for rule in leaf.rules)

        def answer(rule: str) -> str:
            items = ", ".join(f"{name!r}: {value}" for name, value in values)
            if not merge:
                return f"return {rule}, {{{items}}}"
            # Placeholders take precedence over the rule's defaults.
            return f"return {rule}, {{**{rule}.defaults, {items}}}"

        lines.append(f"{pad}if websocket:")
        if leaf.first_websocket is not None:
            lines.append(f"{pad}    {answer(self._name('rule', leaf.first_websocket))}")
        else:
            lines.append(f"{pad}    pass")
        lines.append(f"{pad}elif method is None:")
        if leaf.first_http is not None:
            lines.append(f"{pad}    {answer(self._name('rule', leaf.first_http))}")
            lines.append(f"{pad}else:")
            rule = self._name("r")
            lines.append(f"{pad}    {rule} = {self._name('methods', leaf.by_method)}.get(method)")
            lines.append(f"{pad}    if {rule} is not None:")
            lines.append(f"{pad}        {answer(rule)}")
            lines.append(f"{pad}    allowed.append({self._name('allowed', leaf.allowed)})")
        else:
            lines.append(f"{pad}    pass")

    def _children(
        self,
        lines: list[str],
        node: _Node,
        base: str,
        offset: int,
        depth: int,
        loops: int,
        values: list[tuple[str, str]],
    ) -> None:
        pad = "    " * depth
        index = self._index(base, offset)
        segment = self._name("s")
        lines.append(f"{pad}{segment} = segments[{index}]")
        if 0 < len(node.static) <= self.MAX_CHAIN:
            keyword = "if"
            for text, child in node.static.items():
                lines.append(f"{pad}{keyword} {segment} == {text!r}:")
                self._below(lines, child, base, offset + 1, depth + 1, loops, values)
                keyword = "elif"
        elif node.static:
            table = {text: self.compile(child) for text, child in node.static.items()}
            step = self._name("step")
            lines.append(f"{pad}{step} = {self._name('static', table)}.get({segment})")
            lines.append(f"{pad}if {step} is not None:")
            self._call(lines, step, self._index(base, offset + 1), depth + 1, values)
        for part, child in node.parts:
            value = self._name("v")
            if _plain_int(part):
                # PERF: str.isdecimal() is true exactly where the regex \d+
                # matches (Unicode category Nd); IntegerConverter.to_python
                # adds only the digit limit.
                lines.append(f"{pad}if {segment}.isdecimal() and len({segment}) <= _MAX_DIGITS:")
                lines.append(f"{pad}    {value} = int({segment})")
            else:
                convert = self._name("convert", _segment_converter(part))
                lines.append(f"{pad}try:")
                lines.append(f"{pad}    {value} = {convert}({segment})")
                lines.append(f"{pad}except ValueError:")
                lines.append(f"{pad}    {value} = _NO_MATCH")
                lines.append(f"{pad}if {value} is not _NO_MATCH:")
            if len(part.names) == 1:
                found = [(part.names[0], value)]
            else:
                found = [(name, f"{value}[{k}]") for k, name in enumerate(part.names)]
            self._below(lines, child, base, offset + 1, depth + 1, loops, values + found)
        for name, converter, child in node.spans:
            end, text, value = self._name("end"), self._name("text"), self._name("v")
            inner = pad
            path = type(converter) is PathConverter
            if path:
                # PERF: PathConverter.regex, "[^/].*?", checked without re: a
                # first character other than "/", then no line feed.
                lines.append(f"{pad}if {segment}:")
                inner = pad + "    "
            # PERF: where only rules end below the placeholder, only the
            # longest text can match, so there is no loop.
            leaf_only = not (child.static or child.parts or child.spans)
            if leaf_only:
                lines.append(f"{inner}{text} = '/'.join(segments[{index}:])")
            else:
                # Longest first: a path placeholder is greedy, as users expect.
                lines.append(f"{inner}{end} = count + 1")
                lines.append(f"{inner}while {end} > {index} + 1:")
                inner += "    "
                lines.append(f"{inner}{end} -= 1")
                lines.append(f"{inner}{text} = '/'.join(segments[{index}:{end}])")
            if path:
                lines.append(f"{inner}if {text}.find('\\n', 1) == -1:")
            else:
                lines.append(f"{inner}if {self._name('matches', converter.match)}({text}):")
            inner += "    "
            if type(converter).to_python is Converter.to_python:
                value = text  # the base class's to_python returns the text as it is
            else:
                to_python = self._name("to_python", converter.to_python)
                lines.append(f"{inner}try:")
                lines.append(f"{inner}    {value} = {to_python}({text})")
                lines.append(f"{inner}except ValueError:")
                lines.append(f"{inner}    {value} = _NO_MATCH")
                lines.append(f"{inner}if {value} is not _NO_MATCH:")
                inner += "    "
            levels = len(inner) // 4
            found = [*values, (name, value)]
            if leaf_only:
                self._leaf(lines, _Leaf(child.rules), levels, found)
            else:
                self._below(lines, child, end, 0, levels, loops + 1, found)

    def _below(
        self,
        lines: list[str],
        node: _Node,
        base: str,
        offset: int,
        depth: int,
        loops: int,
        values: list[tuple[str, str]],
    ) -> None:
        if depth < self.MAX_DEPTH and loops < self.MAX_LOOPS:
            self._node(lines, node, base, offset, depth, loops, values)
            return
        step = self._name("step", self.compile(node))
        self._call(lines, step, self._index(base, offset), depth, values)

    def _call(
        self, lines: list[str], step: str, index: str, depth: int, values: list[tuple[str, str]]
    ) -> None:
        pad = "    " * depth
        found = self._name("found")
        lines.append(f"{pad}{found} = {step}(segments, {index}, count, method, websocket, allowed)")
        lines.append(f"{pad}if {found} is not None:")
        for name, value in values:
            lines.append(f"{pad}    {found}[1][{name!r}] = {value}")
        lines.append(f"{pad}    return {found}")


class AllowedMethods(MethodNotAllowed):
    """204: the answer to an OPTIONS request that no rule takes.

    RFC 9110 §9.3.7: OPTIONS asks what the target resource supports, and the
    answer is the Allow header, OPTIONS included. It subclasses
    :class:`~sansio_http.MethodNotAllowed` so that code which answers OPTIONS
    itself, as the App does, finds ``allowed`` where it always did; its own
    response is an empty 204, never a 405 that would refuse what it lists.

    Args:
        allowed: The methods the path allows.
    """

    status = 204
    description = "The methods the resource allows are in the Allow header."

    def __init__(self, allowed: Iterable[str]) -> None:
        super().__init__(allowed=allowed)

    def to_response(self, request: Any = None) -> Response:
        """Return an empty 204 whose Allow header lists the methods."""
        from sansio_http.messages._response import Response

        return Response(b"", 204, self.headers)


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
        self._compiled_matcher: _Compiled | None = None
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
        self._compiled_matcher = None
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

    def _compiled(self) -> _Compiled:
        # Rules may be added at any time (an App adds them as views are
        # decorated), so the tree is compiled again by the first match after.
        static: dict[str, dict[str, Rule]] = {}
        for rule in self.rules:
            if not rule.converters and rule.rule not in static:
                static[rule.rule] = self._static_leaf(rule.rule)
        compiler = _Compiler()
        root = self._root
        first: dict[str, _Step] | None = None
        if not (root.rules or root.parts or root.spans):
            # PERF: the usual root, a static first segment per section of the
            # site: match() looks it up itself, a call fewer.
            first = {text: compiler.compile(child) for text, child in root.static.items()}
        compiled = self._compiled_matcher = (static, first, compiler.compile(root))
        return compiled

    def _static_leaf(self, path: str) -> dict[str, Rule]:
        node = self._root
        for segment in path[1:].split("/"):
            node = node.static[segment]
        return _Leaf(node.rules).by_method

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
                error carries the allowed methods, OPTIONS among them.
            AllowedMethods: The method is OPTIONS, which no rule of the path
                takes: the 204 that answers it, with the allowed methods.
            RequestRedirect: Only the path with a trailing slash matches.
        """
        found = self.find(path, method, websocket=websocket)
        if found is None:
            raise NotFound()
        return found

    def find(self, path: str, method: str = "GET", *, websocket: bool = False) -> Match | None:
        """Return what :meth:`match` returns, or None where it raises NotFound.

        A miss is the common answer of a router that is asked first among
        others (a framework's own routes before its static files, say), and
        None costs a fraction of an exception.

        Args:
            path: The request path, percent-decoded, starting with ``/``.
            method: The request method, upper-case.
            websocket: Whether the request is a websocket handshake.

        Returns:
            The rule and its values, or None when no rule matches the path.

        Raises:
            MethodNotAllowed: As :meth:`match`.
            AllowedMethods: As :meth:`match`.
            RequestRedirect: As :meth:`match`.
        """
        static, first, walk = self._compiled_matcher or self._compiled()
        if not websocket:
            # PERF: the static rules of a path are its first candidates, so a
            # static rule that takes the method is the answer without a walk.
            by_method = static.get(path)
            if by_method is not None:
                rule = by_method.get(method)
                if rule is not None:
                    return rule, {**rule.defaults}
        segments = path[1:].split("/")
        allowed: list[frozenset[str]] = []
        step, start = walk, 0
        if first is not None:
            # PERF: the root holds static children only: look the first one
            # up here, a call fewer.
            child = first.get(segments[0])
            if child is None:
                return None  # nor could the path with a trailing slash match
            step, start = child, 1
        found = step(segments, start, len(segments), method, websocket, allowed)
        if found is not None:
            return found
        if allowed:
            methods = sorted(set().union(*allowed, ("OPTIONS",)))
            if method == "OPTIONS":
                raise AllowedMethods(methods)
            raise MethodNotAllowed(allowed=methods)
        if self.redirect_slashes and not path.endswith("/"):
            segments.append("")
            if step(segments, start, len(segments), None, websocket, allowed) is not None:
                raise RequestRedirect(path + "/")
        return None

    def allowed_methods(self, path: str) -> set[str]:
        """Return the methods some rule accepts for ``path`` (for OPTIONS)."""
        _, _, walk = self._compiled_matcher or self._compiled()
        segments = path[1:].split("/")
        collected: list[frozenset[str]] = []
        # No rule allows the method "", so the walk visits every candidate.
        walk(segments, 0, len(segments), "", False, collected)
        return set().union(*collected)

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
