"""The Router: rules matched by path and method, and built back into URLs.

This module holds :class:`Router` and the helpers of :meth:`Router.build`;
the package docstring says how matching works. The converters live in
``_converters``, the rules in ``_rules``, the segment tree and its compiler
in ``_compiler``, the host patterns of rules with a host in ``_hosts``, and
the 308 and 204 answers in ``_answers``; the Router sits on top of them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import quote, unquote, urlencode

from sansio_http.messages._errors import MethodNotAllowed, NotFound
from sansio_http.routing._answers import AllowedMethods, RequestRedirect
from sansio_http.routing._compiler import _Compiled, _Compiler, _Leaf, _Node, _Step
from sansio_http.routing._converters import (
    DEFAULT_CONVERTERS,
    SEGMENT_SAFE,
    Converter,
    PathConverter,
    segment_text,
)
from sansio_http.routing._hosts import (
    _HostMatcher,
    _HostTemplate,
    _HostTree,
    build_host,
    check_host_part,
    host_labels,
    host_template,
    on_host,
)
from sansio_http.routing._rules import _PLACEHOLDER, Match, Rule, _Part, _placeholder_text

__all__ = ["Router"]

#: What a built path keeps as it is: RFC 3986 pchar and "/" (§3.3), and "%",
#: which starts the escapes a converter wrote.
_BUILT_SAFE: Final = SEGMENT_SAFE + "/%"

#: A rule's URL as build() writes it: encoded literal text, and placeholders.
_Template = list["str | tuple[str, Converter]"]


class Router:
    """A set of rules, matched by path and method and built back into URLs.

    A rule with a ``host`` is a candidate only for a request to that host,
    and comes before every rule without one (see :meth:`match`).

    Args:
        rules: Rules to add at once.
        converters: Extra converter classes by name, beside the defaults
            ``string``, ``int``, ``float``, ``path``, ``uuid`` and ``any``.
        redirect_slashes: Answer a path missing its trailing slash with a
            308 to the rule that has it.

    Attributes:
        has_hosts: Whether a rule has a host: callers pass the request's
            host to :meth:`match` only then.
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
        self._by_endpoint: dict[str, list[tuple[Rule, _Template, _HostTemplate | None]]] = {}
        self.rules: list[Rule] = []
        self._compiled_matcher: _Compiled | None = None
        # The host patterns' trees by key, in the order they were added.
        self._hosts: dict[tuple[Any, ...], _HostTree] = {}
        self._host_matcher = _HostMatcher((), _Compiler().compile)
        self.has_hosts = False
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> Rule:
        """Add a rule; return it.

        Raises:
            ValueError: The rule names an unknown converter, or it or a rule
                added before could never match: a rule added before has the
                same path (whatever its placeholders are called), the same
                websocket flag and every method it allows; or a path
                placeholder follows a whole ``<path:...>`` segment where
                another rule of those methods ends (``/<path:a>/<path:b>``
                beside ``/<path:a>``, in either order). The rules of one host
                are checked against each other alone. Its host is not a host
                name without a port, whose placeholders each fill a part of
                one label (see :class:`Rule`), or a placeholder of the host
                takes dots or slashes (``path``, ``float``).
        """
        converters: dict[str, Converter] = {}
        tree, hosted = None, None
        if rule.host is not None:
            labels = host_labels(rule)
            parts = [self._key(label, rule, converters) for label in labels]
            for part in parts:
                if isinstance(part, _Part):
                    check_host_part(rule, part)
            tree = _HostTree(parts)
            tree = self._hosts.get(tree.key, tree)
            hosted = host_template(labels, converters)
        root = self._root if tree is None else tree.root
        keys: list[str | _Part] = []
        template: _Template = []
        for segment in rule.rule[1:].split("/"):
            keys.append(self._key(segment, rule, converters))
            template.extend(_template(segment, converters))
        self._refuse_repeats(rule, keys, root)
        self._refuse_shadowed(rule, keys, root)
        node = root
        for key in keys:
            node = node.child(key)
        node.rules.append(rule)
        rule.converters = converters
        self.rules.append(rule)
        if tree is not None:
            self._hosts.setdefault(tree.key, tree)
            self.has_hosts = True
        self._compiled_matcher = None
        self._by_endpoint.setdefault(rule.endpoint, []).append((rule, template, hosted))
        return rule

    def _refuse_repeats(self, rule: Rule, keys: list[str | _Part], root: _Node) -> None:
        """Refuse a rule that the rules of its leaf would always answer for."""
        node: _Node | None = root
        for key in keys:
            node = node.find(key) if node is not None else None
        if node is None:
            return
        same = [other for other in node.rules if other.websocket == rule.websocket]
        taken = frozenset().union(*(other.allowed for other in same))
        if same and (rule.websocket or rule.allowed <= taken):
            raise ValueError(
                f"rule {rule.rule!r} (endpoint {rule.endpoint!r}) repeats {same[0].rule!r} "
                f"(endpoint {same[0].endpoint!r}): it could never match; give it another "
                "path or methods that no rule of that path takes"
            )

    def _refuse_shadowed(self, rule: Rule, keys: list[str | _Part], root: _Node) -> None:
        """Refuse a rule that a rule ending at a ``<path:...>`` segment hides.

        The new rule may be either: the one that ends or the one that goes
        on. A whole ``<path:a>`` segment that ends a rule takes the rest of the
        path before a path placeholder after it is tried (see the docs'
        order), so ``/<path:a>/<path:b>`` gets only the paths ``/<path:a>``
        refuses: those holding a line feed at the start of a segment, and
        the methods it does not take. Only that case is refused; a literal
        or a one-segment placeholder after the path placeholder is tried
        before it, and other converters may refuse what ``b`` would take.
        """
        node: _Node | None = root
        for position, key in enumerate(keys):
            if node is None:
                return
            node = node.find(key)
            if node is None or not _whole_path(key):
                continue
            if position + 1 < len(keys):
                following = keys[position + 1]
                if isinstance(following, _Part) and following.spans:
                    shadow = [o for o in node.rules if o.websocket == rule.websocket]
                    if _covers(shadow, [rule]):
                        self._shadowed(rule, shadow[0])
            else:
                below = [o for o in _rules_below(node) if o.websocket == rule.websocket]
                same = [o for o in node.rules if o.websocket == rule.websocket]
                for other in below:
                    if _covers([*same, rule], [other]):
                        self._shadowed(other, rule)

    @staticmethod
    def _shadowed(hidden: Rule, shadow: Rule) -> None:
        raise ValueError(
            f"rule {hidden.rule!r} (endpoint {hidden.endpoint!r}) could never match: "
            f"{shadow.rule!r} (endpoint {shadow.endpoint!r}) takes the rest of every path "
            "first; write a literal segment or a one-segment placeholder after the path "
            "placeholder (such as '/<path:a>/edit' or '/<path:a>/<b>'), or give the rules "
            "different methods"
        )

    def _key(self, segment: str, rule: Rule, converters: dict[str, Converter]) -> str | _Part:
        """Return a segment's text, or its part where it holds placeholders."""
        pieces = list(_PLACEHOLDER.finditer(segment))
        if not pieces:
            return segment
        regex, specs, found, groups, literals = [], [], [], [], []
        position, group = 0, 1
        for match in pieces:
            spec, converter = self._converter(match, rule)
            converters[match["name"]] = converter
            specs.append(spec)
            found.append(converter)
            literals.append(segment[position : match.start()])
            regex.append(re.escape(segment[position : match.start()]))
            regex.append(f"({converter.regex})")
            groups.append(group)
            group += 1 + re.compile(converter.regex).groups
            position = match.end()
        literals.append(segment[position:])
        regex.append(re.escape(segment[position:]))
        source = "".join(regex)
        literal = len(segment) - sum(len(match[0]) for match in pieces)
        return _Part(
            pattern=re.compile(source),
            converters=found,
            groups=tuple(groups),
            key=(source, *specs),
            weight=min(c.weight for c in found) - literal,
            spans=any(c.spans_segments for c in found),
            whole=len(pieces) == 1 and pieces[0][0] == segment,
            literals=tuple(literals),
        )

    def _converter(self, match: re.Match[str], rule: Rule) -> tuple[Any, Converter]:
        """Return a placeholder's converter, and what equal converters share."""
        name = match["converter"] or "default"
        try:
            cls = self.converters[name]
        except KeyError:
            raise ValueError(f"unknown converter {name!r} in rule {rule.rule!r}") from None
        args = tuple(a.strip() for a in (match["args"] or "").split(",") if a.strip())
        return (cls, args), cls(*args)

    def _compiled(self) -> _Compiled:
        # Rules may be added at any time (an App adds them as views are
        # decorated), so the tree is compiled again by the first match after.
        static: dict[str, dict[str, Rule]] = {}
        for rule in self.rules:
            if not rule.converters and rule.host is None and rule.rule not in static:
                static[rule.rule] = self._static_leaf(rule.rule)
        compiler = _Compiler()
        root = self._root
        first: dict[str, _Step] | None = None
        if not (root.rules or root.parts or root.spans):
            # PERF: the usual root, a static first segment per section of the
            # site: match() looks it up itself, a call fewer.
            first = {text: compiler.compile(child) for text, child in root.static.items()}
        self._host_matcher = _HostMatcher(self._hosts.values(), compiler.compile)
        compiled = self._compiled_matcher = (static, first, compiler.compile(root))
        return compiled

    def _static_leaf(self, path: str) -> dict[str, Rule]:
        node = self._root
        for segment in path[1:].split("/"):
            node = node.static[segment]
        return _Leaf(node.rules).by_method

    def match(
        self, path: str, method: str = "GET", *, websocket: bool = False, host: str | None = None
    ) -> Match:
        """Return the rule for a path and method, with its placeholder values.

        Given a host, the rules of the host patterns it fits come first: an
        exact host, then the patterns with the most literal labels (the
        first added among equals), each pattern's rules in the order of
        paths; then the rules without a host. A rule of another host is no
        candidate: a path that only it takes is a 404, not a 405, and its
        methods are not allowed.

        Args:
            path: The request path, percent-decoded, starting with ``/``.
            method: The request method, upper-case.
            websocket: Whether the request is a websocket handshake.
            host: The request's host, ``host[:port]`` as a validated
                ``Request.host`` holds it, which the caller trusts (the App
                reads it through its trusted hosts); its port is ignored.
                None: only the rules without a host are candidates.

        Returns:
            The rule and the converted values merged over its defaults.

        Raises:
            NotFound: No rule matches the path.
            MethodNotAllowed: Rules match the path but not the method; the
                error carries the allowed methods, OPTIONS among them.
            AllowedMethods: The method is OPTIONS, which no rule of the path
                takes: the 204 that answers it, with the allowed methods.
            RequestRedirect: Only the path with a trailing slash matches; or
                the path matches rules of other methods only, and the path
                with a slash a rule of this one (OPTIONS aside).
        """
        found = self.find(path, method, websocket=websocket, host=host)
        if found is None:
            raise NotFound()
        return found

    def find(
        self, path: str, method: str = "GET", *, websocket: bool = False, host: str | None = None
    ) -> Match | None:
        """Return what :meth:`match` returns, or None where it raises NotFound.

        A miss is the common answer of a router that is asked first among
        others (a framework's own routes before its static files, say), and
        None costs a fraction of an exception.

        Args:
            path: The request path, percent-decoded, starting with ``/``.
            method: The request method, upper-case.
            websocket: Whether the request is a websocket handshake.
            host: As :meth:`match`.

        Returns:
            The rule and its values, or None when no rule matches the path.

        Raises:
            MethodNotAllowed: As :meth:`match`.
            AllowedMethods: As :meth:`match`.
            RequestRedirect: As :meth:`match`.
        """
        if host is not None:
            return self._find_on_host(host, path, method, websocket)
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
        if allowed or self.redirect_slashes:
            self._refuse(path, method, websocket, segments, [(step, start)], allowed)
        return None

    def _find_on_host(self, host: str, path: str, method: str, websocket: bool) -> Match | None:
        """Return what :meth:`find` returns for a request to ``host``."""
        static, first, walk = self._compiled_matcher or self._compiled()
        segments = path[1:].split("/")
        allowed: list[frozenset[str]] = []
        walks: list[tuple[_Step, int]] = []
        for step, host_values in self._host_matcher.candidates(host):
            found = step(segments, 0, len(segments), method, websocket, allowed)
            if found is not None:
                rule, values = found
                values.update(zip(rule.host_names, host_values, strict=True))
                return found
            walks.append((step, 0))
        by_method = None if websocket else static.get(path)
        static_rule = None if by_method is None else by_method.get(method)
        if static_rule is not None:
            return static_rule, {**static_rule.defaults}
        child = walk if first is None else first.get(segments[0])
        if child is not None:
            start = 0 if first is None else 1
            found = child(segments, start, len(segments), method, websocket, allowed)
            if found is not None:
                return found
            walks.append((child, start))
        if walks and (allowed or self.redirect_slashes):
            self._refuse(path, method, websocket, segments, walks, allowed)
        return None

    def _refuse(
        self,
        path: str,
        method: str,
        websocket: bool,
        segments: list[str],
        walks: list[tuple[_Step, int]],
        allowed: list[frozenset[str]],
    ) -> None:
        """Raise the answer to a path no rule of the method takes, if it is not a 404.

        Args:
            path: The request path.
            method: The request method.
            websocket: Whether the request is a websocket handshake.
            segments: The path's segments.
            walks: The steps that walked the path, with their first index.
            allowed: The methods of the rules that match the path.
        """
        slashed = self.redirect_slashes and not path.endswith("/")
        if allowed:
            if (
                slashed
                and method != "OPTIONS"
                and any(
                    step([*segments, ""], start, len(segments) + 1, method, websocket, [])
                    is not None
                    for step, start in walks
                )
            ):
                # NOTE: the path has rules of other methods, and the path with a
                # slash one of this method: the 308 leads to an answer, where a
                # 405 would list methods of a resource the client did not mean.
                raise RequestRedirect(path + "/")
            methods = sorted(set().union(*allowed, ("OPTIONS",)))
            if method == "OPTIONS":
                raise AllowedMethods(methods)
            raise MethodNotAllowed(allowed=methods)
        if slashed:
            segments.append("")
            for step, start in walks:
                if step(segments, start, len(segments), None, websocket, allowed) is not None:
                    raise RequestRedirect(path + "/")

    def allowed_methods(self, path: str, host: str | None = None) -> set[str]:
        """Return the methods some rule accepts for ``path`` (for OPTIONS).

        Args:
            path: The request path, percent-decoded.
            host: As :meth:`match`: the rules of the hosts it fits count too.
        """
        _, _, walk = self._compiled_matcher or self._compiled()
        segments = path[1:].split("/")
        collected: list[frozenset[str]] = []
        steps = [walk]
        if host is not None:
            steps.extend(step for step, _ in self._host_matcher.candidates(host))
        for step in steps:
            # No rule allows the method "", so the walk visits every candidate.
            step(segments, 0, len(segments), "", False, collected)
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
        origin: str | None = None,
    ) -> str:
        r"""Return the URL of an endpoint with the given placeholder values.

        Values that no placeholder takes become the query string. Literal
        text and values are percent-encoded to RFC 3986 form (§2.1, §3.3),
        so that ``match()`` of the decoded path gives the values back; a
        value whose placeholder would not match its decoded text back is
        refused. The check is made per placeholder: two placeholders in one
        segment (``<a>-<b>``) may still split their text otherwise, and a
        rule added before may still take the URL (``/users/new`` before
        ``/users/<name>``).

        SECURITY: the result stays on this host (unless ``base_url`` names
        one): it never starts with ``//`` or ``/\``, which browsers read as
        the start of another host, whatever the values and the root path;
        ``{"p": "/evil.example"}`` for ``/<path:p>`` is refused, and a rule
        or root path starting with ``//`` is written ``/%2F``.

        A rule with a host is on the host its values build, each placeholder
        one label that it matches back (lower-case ASCII letters, digits,
        ``-`` and ``_``), so its URL never names a host its pattern does not:
        it is absolute with ``base_url``'s scheme and port, or a path where
        ``origin`` names the same host, or else absolute with ``origin``'s
        scheme and port.

        Args:
            endpoint: The rule's endpoint.
            values: Placeholder values, and query arguments.
            method: Prefer a rule that accepts this method.
            root_path: The decoded path the application is mounted under, as
                ``Request.root_path`` holds it; it is encoded like the rest.
            anchor: A fragment to append.
            base_url: ``scheme://host`` for an absolute URL; a rule with a
                host puts its own in place of this one's name.
            origin: ``scheme://host`` of the request the URL is for: a rule
                on another host is built absolute from its scheme and port.

        Raises:
            LookupError: No rule of that endpoint fits the values.
            ValueError: A converter refuses a value, such as a negative
                number or a float that is not finite, or its placeholder
                would not match the value back: a ``path`` value starting
                with ``/``, an empty value, a ``/`` in the value of any
                other placeholder. The message names the rule and the value.
                A host placeholder's value is not one label it matches
                back, or the rule has a host and neither ``base_url`` nor
                ``origin`` gives a scheme.
        """
        values = {k: v for k, v in (values or {}).items() if v is not None}
        for rule, template, hosted in self._by_endpoint.get(endpoint, ()):
            if method is not None and method.upper() not in rule.allowed:
                continue
            if not rule.arguments <= set(values) | set(rule.defaults):
                continue
            if any(k in values and values[k] != v for k, v in rule.defaults.items()):
                continue
            texts: list[str] = []
            for piece in template:
                if isinstance(piece, str):
                    texts.append(piece)
                    continue
                name, converter = piece
                value, text = _placeholder_text(rule, endpoint, values, name, converter)
                # SECURITY: a converter of the application's own may write raw
                # text. What a path may not hold is encoded here ("%" aside,
                # which starts the escapes it wrote), so no tab, line feed or
                # backslash reaches a browser, which would drop or read it as "/".
                text = quote(text, safe=_BUILT_SAFE)
                _refuse_unmatched(rule, endpoint, name, value, converter, text)
                texts.append(text)
            url = _local_path(root_path, "".join(texts))
            extra = [
                (k, v)
                for k, v in values.items()
                if k not in rule.converters and k not in rule.defaults
            ]
            if extra:
                url += "?" + urlencode(_flatten(extra))
            if anchor:
                url += "#" + quote(anchor, safe="/?:@!$&'()*+,;=-._~")
            if hosted is not None:
                name = build_host(rule, endpoint, hosted, values)
                return on_host(name, url, base_url, origin, f"{rule.rule!r} ({endpoint!r})")
            return (base_url.rstrip("/") + url) if base_url else url
        raise LookupError(f"no rule for endpoint {endpoint!r} with arguments {sorted(values)}")


def _whole_path(key: str | _Part) -> bool:
    """Return whether a key is a segment filled by one ``<path:...>``."""
    return isinstance(key, _Part) and key.whole and type(key.converters[0]) is PathConverter


def _covers(shadow: list[Rule], hidden: list[Rule]) -> bool:
    """Return whether ``shadow`` takes every request ``hidden`` would."""
    if not shadow:
        return False
    if hidden[0].websocket:
        return True
    taken = frozenset().union(*(other.allowed for other in shadow))
    return all(rule.allowed <= taken for rule in hidden)


def _rules_below(node: _Node) -> list[Rule]:
    """Return the rules under the path placeholders that follow ``node``."""
    found: list[Rule] = []
    stack = [child for _, child in node.spans]
    while stack:
        current = stack.pop()
        found.extend(current.rules)
        stack.extend(current.static.values())
        stack.extend(child for _, child in current.parts)
        stack.extend(child for _, child in current.spans)
    return found


def _refuse_unmatched(
    rule: Rule, endpoint: str, name: str, value: Any, converter: Converter, text: str
) -> None:
    """Refuse a value whose URL text its placeholder would not match back.

    ``Request.path`` is decoded, so the placeholder sees ``text`` decoded: a
    ``path`` value starting with ``/`` (``%2F`` comes back as a slash), an
    empty value, or a ``/`` in the value of a placeholder that takes none
    would build a URL that is a 404, or that another rule answers.

    Raises:
        ValueError: The converter does not match the decoded text; the
            message names the rule and the value.
    """
    # PERF: most texts hold no escape, and unquote() is the dearer step.
    if converter.match(unquote(text) if "%" in text else text):
        return
    raise ValueError(
        f"cannot build rule {rule.rule!r} (endpoint {endpoint!r}) with {name}={value!r}: "
        f"the URL would not match back to that value, which <{name}> does not take "
        "(a path value may not start with '/', a value may not be empty, and only a "
        "path placeholder takes '/'); pass a value the placeholder matches"
    )


def _template(segment: str, converters: Mapping[str, Converter]) -> _Template:
    """Return what a segment adds to its rule's template, its leading slash first."""
    template: _Template = []
    text, position = "/", 0
    for match in _PLACEHOLDER.finditer(segment):
        # RFC 3986 §2.1: a rule's literal text is encoded as values are.
        template.append(text + segment_text(segment[position : match.start()]))
        template.append((match["name"], converters[match["name"]]))
        text, position = "", match.end()
    template.append(text + segment_text(segment[position:]))
    return template


def _local_path(root_path: str, path: str) -> str:
    r"""Return the root path, encoded, and a built path: a path on this host.

    SECURITY: a reference that starts with ``//`` names a host (RFC 3986
    §4.2), and browsers read ``\`` as ``/`` there (the WHATWG URL Standard).
    No backslash survives the encoding, and a second slash at the start is
    written ``%2F``, which ``Request.path`` decodes back to the same text.
    """
    root = segment_text(root_path.rstrip("/"), SEGMENT_SAFE + "/")
    if root and root[0] != "/":
        root = "/" + root
    url = root + path
    return "/%2F" + url[2:] if url[:2] == "//" else url


def _flatten(pairs: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    flat: list[tuple[str, str]] = []
    for key, value in pairs:
        if isinstance(value, (list, tuple)):
            flat.extend((key, str(item)) for item in value)
        else:
            flat.append((key, str(value)))
    return flat
