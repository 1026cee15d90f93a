"""Lexical pieces shared by the header parsers: tokens and quoted strings.

RFC 9110 §5.6 builds most header values from three things: tokens, quoted
strings and comma-separated lists. This module recognises them once, so the
parsers beside it agree on the details.

PERF: every regular expression here is free of ambiguity: each character can
be consumed by exactly one branch, and the optional closing quote means a
match never fails part-way and backtracks. Scanning is linear in the input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

#: RFC 9110 §5.6.2 ``tchar``.
TOKEN_CHARS: Final = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

_TOKEN_RE: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# A quoted string, its closing quote optional so that an unterminated one runs
# to the end of the value instead of making the match fail and backtrack.
_QUOTED: Final = r'"[^"\\]*(?:\\.[^"\\]*)*"?'
_SPLITTERS: Final = {
    sep: re.compile(_QUOTED + "|" + re.escape(sep), re.DOTALL) for sep in (",", ";")
}
# NOTE: only ``\"`` and ``\\`` are unescaped. RFC 9110 §5.6.4 lets senders
# escape nothing else, and browsers encode form-data filenames the WHATWG way:
# ``"`` as ``%22`` and backslashes raw, so ``"C:\dir\a.txt"`` must keep them.
_ESCAPE_RE: Final = re.compile(r'\\(["\\])')
_QUOTED_RE: Final = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)("?)', re.DOTALL)


# SECURITY: charset names come from the peer, so they are never given to
# codecs.lookup(): Python's encodings search caches every unknown name it is
# asked for, without bound, and tries an import for each. This table folds the
# common aliases (from the WHATWG Encoding Standard and Python's own) instead.
_CHARSET_ALIASES: Final = {
    alias: name
    for name, aliases in {
        "utf-8": ("utf8", "unicode-1-1-utf-8", "x-unicode20utf8"),
        "iso-8859-1": ("latin1", "latin-1", "l1", "iso8859-1", "iso-ir-100", "cp819", "ibm819"),
        "us-ascii": ("ascii", "ansi-x3.4-1968", "us", "iso646-us"),
        "utf-16": ("utf16",),
        "utf-16le": ("utf16le", "utf-16-le"),
        "utf-16be": ("utf16be", "utf-16-be"),
        "windows-1252": ("cp1252", "x-cp1252"),
        "iso-8859-15": ("latin9", "latin-9", "iso8859-15", "l9"),
        "shift-jis": ("shift_jis", "sjis", "ms-kanji", "x-sjis"),
        "euc-jp": ("eucjp", "x-euc-jp"),
        "gbk": ("cp936", "x-gbk"),
        "koi8-r": ("koi8r", "koi"),
    }.items()
    for alias in aliases
}


def charset_name(value: str) -> str:
    """Return the canonical lower-case name of a charset, folding aliases.

    Unknown names come back lower-cased with ``_`` read as ``-``.
    """
    name = value.strip().lower().replace("_", "-")
    return _CHARSET_ALIASES.get(name, name)


def is_token(value: str) -> bool:
    """Tell whether ``value`` is a non-empty RFC 9110 token."""
    return _TOKEN_RE.fullmatch(value) is not None


def split_quoted(value: str, sep: str) -> list[str]:
    """Split ``value`` on ``sep`` (``","`` or ``";"``) outside quoted strings.

    The pieces are not stripped. An unterminated quoted string runs to the end.
    """
    if '"' not in value:
        return value.split(sep)
    parts = []
    start = 0
    for match in _SPLITTERS[sep].finditer(value):
        if match.group() == sep:
            parts.append(value[start : match.start()])
            start = match.end()
    parts.append(value[start:])
    return parts


def unquote(value: str) -> str:
    """Return the text of a stripped value, unquoting a quoted string.

    A value that does not start with a quote is returned as it is. For one that
    does, only the quoted string counts: text after its closing quote is
    dropped, and an unterminated one runs to the end.
    """
    if not value.startswith('"'):
        return value
    match = _QUOTED_RE.match(value)
    text = match.group(1) if match is not None and match.group(2) else value[1:]
    return _ESCAPE_RE.sub(r"\1", text)


def quote(value: str) -> str:
    """Return ``value`` as a token when it is one, else as a quoted string."""
    if is_token(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def iter_pairs(value: str, sep: str) -> Iterator[tuple[str, str | None]]:
    """Yield ``(key, value)`` for each ``key=value`` or bare ``key`` item.

    Items are separated by ``sep`` outside quoted strings; keys are stripped
    but keep their case, values are stripped and unquoted (``None`` for a
    bare key), and items with an empty key are skipped.
    """
    for item in split_quoted(value, sep):
        key, equals, rest = item.partition("=")
        key = key.strip()
        if not key:
            continue
        yield key, unquote(rest.strip()) if equals else None
