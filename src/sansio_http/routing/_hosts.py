"""Host patterns: the host part of a rule, matched and built label by label.

A rule's ``host``, such as ``api.example.com`` or ``<tenant>.example.com``,
is split at its dots into labels, as a path is split at its slashes into
segments: a label is literal text, compared as it is, or holds placeholders,
matched by one regex over the label (a :class:`~sansio_http.routing._rules._Part`).
A placeholder never spans labels, so ``<tenant>`` never holds a dot, whatever
its converter's regex. Each host pattern keeps the segment tree of its rules'
paths (:class:`_HostTree`); a request's host selects the trees whose pattern
it fits (:class:`_HostMatcher`), and the router tries them before the rules
without a host.

SECURITY: the Host header is the client's to write. The router matches only
names made of labels of ASCII letters, digits, ``-`` and ``_``, at most 63
characters each, so no placeholder ever sees ``%``, quotes, brackets or any
other text a validated Host may still hold (RFC 3986 ``reg-name``); and it
builds only hosts made of such labels. Whether the host is one the
application serves at all is the caller's business: the App reads it only
through its trusted hosts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, TypeAlias

from sansio_http.http._hosts import host_name, idna_name, split_host
from sansio_http.routing._compiler import _NO_MATCH, _Node, _segment_converter, _Step
from sansio_http.routing._converters import Converter, FloatConverter
from sansio_http.routing._rules import _PLACEHOLDER, Rule, _Part, _placeholder_text

__all__: list[str] = []

#: One label as the router matches and builds it: the letters, digits, "-"
#: and "_" of a DNS name (RFC 1035 §2.3.1, with the "_" of service names),
#: lower-case, at most 63 characters (RFC 1035 §2.3.4).
_LABEL: Final = re.compile(r"[a-z0-9_-]{1,63}")
#: A host name made of such labels, at most 253 characters written out.
_NAME: Final = re.compile(r"(?=.{1,253}\Z)[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*\Z", re.DOTALL)

#: A host pattern as build() writes it: literal text and placeholders, dots included.
_HostTemplate = list["str | tuple[str, Converter]"]


def _refuse(rule: Rule, problem: str) -> ValueError:
    return ValueError(
        f"host {rule.host!r} of rule {rule.rule!r} (endpoint {rule.endpoint!r}) {problem}; "
        "a host rule is a host name without a port, such as 'api.example.com' or "
        "'<tenant>.example.com', where a placeholder fills a part of one label"
    )


def host_labels(rule: Rule) -> list[str]:
    """Return the labels of a rule's host, their literal text lower-case ASCII.

    A trailing dot is dropped (``example.com.`` is ``example.com``), a
    non-ASCII literal label is written in the ASCII form a browser sends
    (``bücher.example`` is ``xn--bcher-kva.example``), and placeholders are
    kept as they are written.

    Raises:
        ValueError: The host is empty, holds a port, a label is empty or
            holds anything but letters, digits, ``-`` and ``_`` besides its
            placeholders, or a literal label has no ASCII form.
    """
    host = rule.host or ""
    if host.startswith("["):
        raise _refuse(rule, "is an IP literal, not a host name's labels")
    pieces: list[list[str]] = [[]]
    position = 0
    for match in _PLACEHOLDER.finditer(host):
        _split_text(host[position : match.start()], pieces)
        pieces[-1].append(match[0])
        position = match.end()
    _split_text(host[position:], pieces)
    if len(pieces) > 1 and not pieces[-1]:
        pieces.pop()  # the trailing dot of an absolute name
    labels = []
    for label_pieces in pieces:
        label = "".join(label_pieces)
        if not label:
            raise _refuse(rule, "has an empty label")
        if ":" in _PLACEHOLDER.sub("", label):
            raise _refuse(rule, "holds a port: host rules match the name alone, on any port")
        if len(label_pieces) == 1 and not _PLACEHOLDER.fullmatch(label):
            label = _literal_label(rule, label)
        else:
            for piece in label_pieces:
                if not _PLACEHOLDER.fullmatch(piece) and not _LABEL.fullmatch(piece.lower()):
                    raise _refuse(
                        rule,
                        f"holds {piece!r} beside a placeholder, where only ASCII letters, "
                        "digits, '-' and '_' may stand",
                    )
            label = "".join(
                piece if _PLACEHOLDER.fullmatch(piece) else piece.lower() for piece in label_pieces
            )
        labels.append(label)
    return labels


def _split_text(text: str, pieces: list[list[str]]) -> None:
    """Add literal text to the labels being gathered, starting a label at each dot."""
    first, *rest = text.split(".")
    if first:
        pieces[-1].append(first)
    for label in rest:
        pieces.append([label] if label else [])


def _literal_label(rule: Rule, label: str) -> str:
    """Return a literal label in lower-case ASCII, as a validated Host holds it."""
    ascii_label = label if label.isascii() else idna_name(label)
    if ascii_label is None or not _LABEL.fullmatch(ascii_label.lower()):
        raise _refuse(rule, f"holds the label {label!r}, which is not a host name's")
    return ascii_label.lower()


def check_host_part(rule: Rule, part: _Part) -> None:
    """Refuse a label part whose converters could never match inside one label.

    Raises:
        ValueError: A converter takes slashes (``path``) or needs a dot
            (``float``): a label holds neither.
    """
    for converter in part.converters:
        if converter.spans_segments or isinstance(converter, FloatConverter):
            raise _refuse(
                rule,
                f"has a {type(converter).__name__} placeholder, whose values hold a "
                "dot or a slash, which a label never does: use <name>, <int:name>, "
                "<any(...):name> or <uuid:name>",
            )


def host_template(labels: list[str], converters: dict[str, Converter]) -> _HostTemplate:
    """Return what build() writes a host pattern from: literal text and placeholders."""
    template: _HostTemplate = []
    text = ""
    for index, label in enumerate(labels):
        text += "." if index else ""
        position = 0
        for match in _PLACEHOLDER.finditer(label):
            template.append(text + label[position : match.start()])
            template.append((match["name"], converters[match["name"]]))
            text, position = "", match.end()
        text += label[position:]
    template.append(text)
    return [piece for piece in template if piece != ""]


def build_host(rule: Rule, endpoint: str, template: _HostTemplate, values: dict[str, Any]) -> str:
    """Return the host name of a rule's URL, from its placeholder values.

    Raises:
        ValueError: A converter refuses a value, or the value's text is not
            one label that its placeholder would match back (lower-case
            ASCII letters, digits, ``-`` and ``_``, at most 63 characters):
            a host built from it could name another host, or never reach
            the rule.
    """
    texts = []
    for piece in template:
        if isinstance(piece, str):
            texts.append(piece)
            continue
        name, converter = piece
        value, text = _placeholder_text(rule, endpoint, values, name, converter, "the host of rule")
        # SECURITY: what reaches the host is one label of a DNS name, which the
        # placeholder matches back: no dot, "@", "/", ":" or escape moves the URL
        # to a host the rule does not name.
        if not _LABEL.fullmatch(text) or not converter.match(text):
            raise ValueError(
                f"cannot build the host of rule {rule.rule!r} (endpoint {endpoint!r}) with "
                f"{name}={value!r}: a host placeholder takes one label of lower-case "
                "ASCII letters, digits, '-' and '_' (at most 63) that it matches back; "
                "pass such a value"
            )
        texts.append(text)
    return "".join(texts)


def on_host(name: str, url: str, base_url: str | None, origin: str | None, rule: str) -> str:
    """Return the URL of a rule on the host ``name``: a path on the origin's host, else absolute.

    The absolute URL keeps the scheme and the port of ``base_url`` (else of
    ``origin``): the port the application is served on.

    Raises:
        ValueError: Neither ``base_url`` nor ``origin`` is given.
    """
    start = base_url if base_url is not None else origin
    if start is None:
        raise ValueError(
            f"rule {rule} is on the host {name!r}: its URL is absolute, and needs a scheme; "
            "pass base_url='https://' (url_for: call it in a request, or pass _scheme='https')"
        )
    scheme, _, authority = start.partition("://")
    authority = authority.partition("/")[0]
    if base_url is None and host_name(authority).lower() == name:
        return url
    parts = split_host(authority)
    port = parts[1] if parts is not None and parts[1] else None
    return f"{scheme}://{name}:{port}{url}" if port else f"{scheme}://{name}{url}"


class _HostTree:
    """The rules of one host pattern: its labels and the segment tree of their paths.

    Attributes:
        labels: The pattern's labels, literal text or parts.
        key: What equal patterns share a tree by: the labels' texts and the
            parts' keys, not the placeholder names.
        root: The segment tree of the rules' paths.
    """

    __slots__ = ("key", "labels", "root")

    def __init__(self, labels: list[str | _Part]) -> None:
        self.labels = labels
        self.key = tuple(label if isinstance(label, str) else label.key for label in labels)
        self.root = _Node()

    @property
    def literal(self) -> str | None:
        """The host name, where every label is literal; else None."""
        if all(isinstance(label, str) for label in self.labels):
            return ".".join(label for label in self.labels if isinstance(label, str))
        return None


#: A label's test: its literal text, or the part's converter (the label's text
#: in, its value or list of values out, or ``_NO_MATCH``) and its placeholder count.
_Test: TypeAlias = "str | tuple[Callable[[str], Any], int]"


class _HostMatcher:
    """The compiled host trees of a router: which trees a host name fits, in order.

    A host name fits an exact pattern (no placeholder) by one dictionary
    lookup; then the patterns with placeholders of as many labels are tried,
    those with the most literal labels first and, among equals, the first
    added first.
    """

    __slots__ = ("exact", "patterns")

    def __init__(self, trees: Iterable[_HostTree], compile_tree: Callable[[_Node], _Step]) -> None:
        self.exact: dict[str, _Step] = {}
        patterns: list[tuple[int, list[_Test], _Step]] = []
        for tree in trees:
            step = compile_tree(tree.root)
            literal = tree.literal
            if literal is not None:
                self.exact[literal] = step
                continue
            tests = [_label_test(label) for label in tree.labels]
            patterns.append((sum(isinstance(test, str) for test in tests), tests, step))
        patterns.sort(key=lambda pattern: -pattern[0])  # stable: the first added first
        self.patterns = [(len(tests), tests, step) for _, tests, step in patterns]

    def candidates(self, host: str) -> Iterator[tuple[_Step, tuple[Any, ...]]]:
        """Yield the step of each tree a host fits, with its placeholder values by position.

        Args:
            host: ``host[:port]``, as ``Request.host`` holds it; the port and
                a trailing dot are ignored, and letters compared lower-case.
        """
        name = host_name(host).lower()
        if not _NAME.match(name):
            return  # SECURITY: only names of plain labels reach a placeholder
        step = self.exact.get(name)
        if step is not None:
            yield step, ()
        if not self.patterns:
            return
        labels = name.split(".")
        count = len(labels)
        for size, tests, step in self.patterns:
            if size != count:
                continue
            values = _label_values(tests, labels)
            if values is not None:
                yield step, values


def _label_test(label: str | _Part) -> _Test:
    """Return a label's test: its text, or its part's converter and placeholder count."""
    if isinstance(label, str):
        return label
    return _segment_converter(label), len(label.converters)


def _label_values(tests: list[_Test], labels: list[str]) -> tuple[Any, ...] | None:
    """Return the placeholder values of labels that fit a pattern's tests, or None."""
    values: list[Any] = []
    for test, label in zip(tests, labels, strict=True):
        if isinstance(test, str):
            if test != label:
                return None
            continue
        convert, count = test
        try:
            value = convert(label)
        except ValueError:
            return None
        if value is _NO_MATCH:
            return None
        # A label of several placeholders gives their values as a list.
        if count > 1:
            values.extend(value)
        else:
            values.append(value)
    return tuple(values)
