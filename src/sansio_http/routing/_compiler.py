"""The segment tree of a router and the compiler that turns it into Python source.

A :class:`_Node` holds one level of the tree: its static children by text,
its placeholder parts by weight, its parts that may span segments (path
placeholders) by weight and the rules that end there. Equal parts share a
branch whatever their placeholders are called: values are gathered by
position and named by each rule at the end. :class:`_Compiler` writes a tree
as matching functions (:data:`_Step`) and ``exec``s them in a namespace of
its own, which holds every converter, rule and table the source names, plus
``_NO_MATCH`` and ``_MAX_DIGITS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sansio_http.routing._converters import _MAX_DIGITS, Converter, IntegerConverter, PathConverter
from sansio_http.routing._rules import Match, Rule, _Part
from sansio_http.routing._split import splitter


class _Node:
    """One level of the segment tree."""

    __slots__ = ("parts", "rules", "spans", "static")

    def __init__(self) -> None:
        self.static: dict[str, _Node] = {}
        self.parts: list[tuple[_Part, _Node]] = []
        self.spans: list[tuple[_Part, _Node]] = []
        self.rules: list[Rule] = []

    def find(self, key: str | _Part) -> _Node | None:
        """Return the child for a segment's text or part, or None."""
        if isinstance(key, str):
            return self.static.get(key)
        for part, child in self.spans if key.spans else self.parts:
            if part.key == key.key:
                return child
        return None

    def child(self, key: str | _Part) -> _Node:
        """Return the child for a segment's text or part, added if need be."""
        found = self.find(key)
        if found is not None:
            return found
        child = _Node()
        if isinstance(key, str):
            self.static[key] = child
        else:
            siblings = self.spans if key.spans else self.parts
            siblings.append((key, child))
            # A stable sort: among equal weights, the first added is tried first.
            siblings.sort(key=lambda item: item[0].weight)
        return child


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
        pairs = list(zip(converters, part.groups, strict=True))
        linear = splitter(part)

        def convert_many(segment: str) -> Any:
            matched = fullmatch(segment)
            if matched is None:
                return _NO_MATCH
            return [c.to_python(matched[group]) for c, group in pairs]

        if linear is None:
            return convert_many
        cheap, split = linear

        def convert_split(segment: str) -> Any:
            # SECURITY: past ``cheap`` characters the regex may backtrack for
            # seconds; the split answers alike in linear time (see _split).
            if len(segment) <= cheap:
                return convert_many(segment)
            texts = split(segment)
            if texts is None:
                return _NO_MATCH
            return [c.to_python(text) for c, text in zip(converters, texts, strict=True)]

        return convert_split
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
    the order the tree promises (the order the routing docs give): at a
    node, the static child, then the parts by weight, then the parts that
    span segments by weight; a subtree that takes nothing falls through to
    the next candidate. A leaf returns its rule with every placeholder value
    of the path, gathered by position in local variables on the way down
    and named by the rule. Rule and segment texts enter the source only
    through ``repr``, and converters only as names bound to them.

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

    def compile(self, node: _Node, outer: int = 0) -> _Step:
        """Return the matching function of ``node``, entered at index ``i``.

        Args:
            node: The subtree.
            outer: How many values the callers gathered above ``node``; the
                function names only the values it gathers itself, and each
                caller adds its own (see :meth:`_call`).
        """
        lines: list[str] = []
        name = self._name("walk")
        lines.append(f"def {name}(segments, i, count, method, websocket, allowed):")
        self._node(lines, node, "i", 0, 1, 0, [None] * outer)
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
        values: list[str | None],
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

    def _leaf(self, lines: list[str], leaf: _Leaf, depth: int, values: list[str | None]) -> None:
        pad = "    " * depth
        # PERF: the values as a plain dict where no rule of the leaf has
        # defaults, as the router finds them when it compiles (the App keeps
        # the values of static rules from their first match likewise).
        merge = any(rule.defaults for rule in leaf.rules)

        def answer(expression: str, rule: Rule) -> str:
            # Values that a caller gathered (None here) are added by the caller.
            items = ", ".join(
                f"{name!r}: {value}"
                for name, value in zip(rule.names, values, strict=True)
                if value is not None
            )
            if not merge:
                return f"return {expression}, {{{items}}}"
            # Placeholders take precedence over the rule's defaults.
            return f"return {expression}, {{**{expression}.defaults, {items}}}"

        lines.append(f"{pad}if websocket:")
        if leaf.first_websocket is not None:
            name = self._name("rule", leaf.first_websocket)
            lines.append(f"{pad}    {answer(name, leaf.first_websocket)}")
        else:
            lines.append(f"{pad}    pass")
        lines.append(f"{pad}elif method is None:")
        if leaf.first_http is None:
            lines.append(f"{pad}    pass")
            return
        lines.append(f"{pad}    {answer(self._name('rule', leaf.first_http), leaf.first_http)}")
        lines.append(f"{pad}else:")
        found = self._name("r")
        lines.append(f"{pad}    {found} = {self._name('methods', leaf.by_method)}.get(method)")
        lines.append(f"{pad}    if {found} is not None:")
        rules = list({id(rule): rule for rule in leaf.by_method.values()}.values())
        if len({rule.names for rule in rules}) == 1:
            lines.append(f"{pad}        {answer(found, rules[0])}")
        else:
            # Rules of one branch may call their placeholders differently.
            for rule in rules:
                lines.append(f"{pad}        if {found} is {self._name('rule', rule)}:")
                lines.append(f"{pad}            {answer(found, rule)}")
        lines.append(f"{pad}    allowed.append({self._name('allowed', leaf.allowed)})")

    def _children(
        self,
        lines: list[str],
        node: _Node,
        base: str,
        offset: int,
        depth: int,
        loops: int,
        values: list[str | None],
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
            table = {text: self.compile(child, len(values)) for text, child in node.static.items()}
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
            found: list[str | None] = [value] if len(part.converters) == 1 else _items(value, part)
            self._below(lines, child, base, offset + 1, depth + 1, loops, values + found)
        for part, child in node.spans:
            self._span(lines, part, child, index, segment, depth, loops, values)

    def _span(
        self,
        lines: list[str],
        part: _Part,
        child: _Node,
        index: str,
        segment: str,
        depth: int,
        loops: int,
        values: list[str | None],
    ) -> None:
        """Write the candidates of a part that may take segments from ``index`` on.

        ``segment`` names the variable that holds ``segments[index]``.

        NOTE: the documented order compares candidates segment by segment. A
        literal segment or a one-segment placeholder after the part wins over
        the part taking that segment too, so those come first, the part
        shortest first; then the part taking the rest of the path; then
        another path placeholder after it, the part longest first (a path
        placeholder keeps a segment rather than hand it on to the next).
        """
        pad = "    " * depth
        if child.static or child.parts:
            head = _Node()
            head.static, head.parts = child.static, child.parts
            end = self._name("end")
            lines.append(f"{pad}{end} = {index} + 1")
            lines.append(f"{pad}while {end} < count:")
            inner, found = self._span_value(lines, part, segment, f"{index}:{end}", depth + 1)
            self._below(lines, head, end, 0, inner, loops + 1, values + found)
            lines.append(f"{pad}    {end} += 1")
        if child.rules:
            # PERF: the part taking the rest of the path needs no loop.
            inner, found = self._span_value(lines, part, segment, f"{index}:", depth)
            self._leaf(lines, _Leaf(child.rules), inner, values + found)
        if child.spans:
            tail = _Node()
            tail.spans = child.spans
            end = self._name("end")
            lines.append(f"{pad}{end} = count")
            lines.append(f"{pad}while {end} > {index} + 1:")
            lines.append(f"{pad}    {end} -= 1")
            inner, found = self._span_value(lines, part, segment, f"{index}:{end}", depth + 1)
            self._below(lines, tail, end, 0, inner, loops + 1, values + found)

    def _span_value(
        self, lines: list[str], part: _Part, first: str, span: str, depth: int
    ) -> tuple[int, list[str | None]]:
        """Write the test of a spanning part on the segments ``segments[span]``.

        ``first`` names the variable holding the first of them.

        Returns:
            The depth inside the test, and the expressions of its values.
        """
        pad = "    " * depth
        text = self._name("text")
        converter = part.converters[0]
        if part.whole and type(converter) is PathConverter:
            # PERF: PathConverter.regex, "[^/].*?", checked without re: a first
            # segment that is not empty (the text starts with no slash), then no
            # line feed after the first character.
            lines.append(f"{pad}if {first}:")
            lines.append(f"{pad}    {text} = '/'.join(segments[{span}])")
            lines.append(f"{pad}    if {text}.find('\\n', 1) == -1:")
            return depth + 2, [text]
        lines.append(f"{pad}{text} = '/'.join(segments[{span}])")
        if part.whole and type(converter).to_python is Converter.to_python:
            # The base class's to_python returns the text as it is.
            lines.append(f"{pad}if {self._name('matches', converter.match)}({text}):")
            return depth + 1, [text]
        value, convert = self._name("v"), self._name("convert", _segment_converter(part))
        lines.append(f"{pad}try:")
        lines.append(f"{pad}    {value} = {convert}({text})")
        lines.append(f"{pad}except ValueError:")
        lines.append(f"{pad}    {value} = _NO_MATCH")
        lines.append(f"{pad}if {value} is not _NO_MATCH:")
        return depth + 1, [value] if len(part.converters) == 1 else _items(value, part)

    def _below(
        self,
        lines: list[str],
        node: _Node,
        base: str,
        offset: int,
        depth: int,
        loops: int,
        values: list[str | None],
    ) -> None:
        if depth < self.MAX_DEPTH and loops < self.MAX_LOOPS:
            self._node(lines, node, base, offset, depth, loops, values)
            return
        step = self._name("step", self.compile(node, len(values)))
        self._call(lines, step, self._index(base, offset), depth, values)

    def _call(
        self, lines: list[str], step: str, index: str, depth: int, values: list[str | None]
    ) -> None:
        pad = "    " * depth
        found = self._name("found")
        lines.append(f"{pad}{found} = {step}(segments, {index}, count, method, websocket, allowed)")
        lines.append(f"{pad}if {found} is not None:")
        for position, value in enumerate(values):
            if value is not None:
                name = f"{found}[0].names[{position}]"
                lines.append(f"{pad}    {found}[1][{name}] = {value}")
        lines.append(f"{pad}    return {found}")


def _items(value: str, part: _Part) -> list[str | None]:
    """Return the expressions of the values of a part with several placeholders."""
    return [f"{value}[{k}]" for k in range(len(part.converters))]
