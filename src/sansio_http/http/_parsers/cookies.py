"""The ``Cookie`` request header, read as browsers actually send it.

RFC 6265 §4.2 describes a strict ``name=value; name=value`` syntax, but
cookies are set by scripts and old servers that ignore it. This parser
follows browsers instead: it skips what it cannot read, keeps everything it
can, and leaves the choice among duplicate names to the caller. Writing
``Set-Cookie`` belongs to the responses.
"""

from __future__ import annotations

import re
from typing import Final

# Python's http.cookies, a common producer, quotes values and writes other
# bytes as three octal digits (``\351``); ``\"`` and ``\\`` escape themselves.
_ESCAPE_RE: Final = re.compile(r"\\(?:([0-3][0-7][0-7])|(.))", re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    octal, char = match.groups()
    return chr(int(octal, 8)) if octal else char


def _as_utf8(text: str) -> str:
    """Re-read Latin-1 header text as UTF-8 when its bytes are valid UTF-8."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return text


def parse_cookie(value: str | None) -> list[tuple[str, str]]:
    r"""Parse a ``Cookie`` header into ``(name, value)`` pairs.

    Pairs are split on ``;``, and names and values are stripped of spaces
    and tabs. Pairs
    without ``=`` or with an empty name are skipped; a value may hold ``=``.
    A value in double quotes is unquoted, reading ``\"``, ``\\`` and the
    octal escapes Python's ``http.cookies`` writes. Names and values whose
    Latin-1 text is valid UTF-8 are decoded as UTF-8, since browsers send
    script-set cookies that way. Duplicate names are all kept, in order:
    the first is usually the one with the most specific path (RFC 6265
    §5.4).

    Args:
        value: The header value (several field lines joined by ``"; "``,
            RFC 6265 §5.4), or None.

    Returns:
        The pairs in order; ``[]`` for an absent or empty header. Never
        raises.
    """
    pairs = []
    for item in (value or "").split(";"):
        name, equals, text = item.partition("=")
        # RFC 6265 §5.2: only spaces and tabs around names and values are
        # insignificant; str.strip() would also eat U+0085 and U+00A0.
        name = name.strip(" \t")
        if not equals or not name:
            continue
        text = text.strip(" \t")
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = _ESCAPE_RE.sub(_unescape, text[1:-1])
        pairs.append((_as_utf8(name), _as_utf8(text)))
    return pairs
