"""The ``Forwarded`` header of RFC 7239, which proxies append to.

Each proxy adds an element, such as ``for=192.0.2.60;proto=http;by=203.0.113.43``.
Deciding which elements to trust is the job of the proxy policy; this
module only reads the syntax, and reads it strictly: a header that a
trusted proxy wrote is well-formed, so a malformed one is ignored whole
rather than guessed at.
"""

from __future__ import annotations

import re
from typing import Final

from sansio_http.http._parsers.tokens import is_token, split_quoted

# Unambiguous, so a failed match backtracks in linear time.
_QUOTED_RE: Final = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"', re.DOTALL)
_PAIR_RE: Final = re.compile(r"\\(.)", re.DOTALL)


def _value(text: str) -> str | None:
    """Read a ``token`` or complete ``quoted-string`` value, else None."""
    if is_token(text):
        return text
    match = _QUOTED_RE.fullmatch(text)
    # RFC 9110 §5.6.4: in a quoted-pair, the backslash quotes any character.
    return _PAIR_RE.sub(r"\1", match.group(1)) if match else None


def parse_forwarded(value: str | None) -> list[dict[str, str]]:
    """Parse a ``Forwarded`` header into one dict per element.

    Parameter names are lower-cased (RFC 7239 §4); values are tokens or
    unquoted quoted strings, returned as written (``"[2001:db8::1]:80"``,
    ``unknown``, ``_hidden``). Empty elements and pairs are skipped.

    Args:
        value: The header value (all field lines joined by ``", "``), or None.

    Returns:
        The elements, the one nearest to the client first; ``[]`` when the
        header is absent or malformed anywhere (a pair that is not
        ``token=value``, or a parameter twice in one element, RFC 7239 §4).
        Never raises.
    """
    elements = []
    for element in split_quoted(value or "", ","):
        params: dict[str, str] = {}
        for pair in split_quoted(element, ";"):
            pair = pair.strip()
            if not pair:
                continue
            name, equals, text = pair.partition("=")
            parsed = _value(text)
            name = name.lower()
            if not equals or not is_token(name) or parsed is None or name in params:
                return []
            params[name] = parsed
        if params:
            elements.append(params)
    return elements
