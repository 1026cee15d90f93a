"""The Router: rules matched by path and method, and built back into URLs.

This module holds :class:`Router` and the helpers of :meth:`Router.build`;
the package docstring says how matching works. The converters live in
``_converters``, the rules in ``_rules``, the segment tree and its compiler
in ``_compiler``, and the 308 and 204 answers in ``_answers``; the Router
sits on top of them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

from sansio_http.messages._errors import MethodNotAllowed, NotFound
from sansio_http.routing._answers import AllowedMethods, RequestRedirect
from sansio_http.routing._compiler import _Compiled, _Compiler, _Leaf, _Node, _Step
from sansio_http.routing._converters import DEFAULT_CONVERTERS, Converter
from sansio_http.routing._rules import _PLACEHOLDER, Match, Rule, _Part

__all__ = ["Router"]


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
