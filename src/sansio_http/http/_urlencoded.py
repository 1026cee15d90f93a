"""Decoding ``application/x-www-form-urlencoded`` data: query strings and simple form bodies.

The rules are the WHATWG URL Standard's "application/x-www-form-urlencoded parser", which is
what browsers produce and what ``URLSearchParams`` reads. Turning the pairs into a multidict,
and limiting sizes, is the caller's business.
"""

from __future__ import annotations

import re

__all__ = ["parse_urlencoded"]

# A valid escape: "%" and two hexadecimal digits of either case. A "%" not followed by two
# hexadecimal digits never matches and so stays in the output as it is.
_split_escapes = re.compile(rb"%([0-9A-Fa-f]{2})").split
_HEX_DIGITS = "0123456789abcdefABCDEF"
_BYTE_OF_HEX: dict[bytes, bytes] = {
    (high + low).encode("ascii"): bytes.fromhex(high + low)
    for high in _HEX_DIGITS
    for low in _HEX_DIGITS
}
_byte_of_hex = _BYTE_OF_HEX.__getitem__


def _unescape(data: bytes) -> bytes:
    """Replace every valid ``%XX`` escape in ``data`` by the byte it stands for."""
    # split() with one group alternates text and hex digits: [text, hex, text, ..., text].
    parts = _split_escapes(data)
    parts[1::2] = map(_byte_of_hex, parts[1::2])
    return b"".join(parts)


def _decode(token: bytes) -> str:
    return _unescape(token.replace(b"+", b" ")).decode("utf-8", "replace")


def _to_utf8(text: str) -> bytes:
    """Encode text as UTF-8, lone surrogates becoming U+FFFD as in a browser."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A round trip through UTF-16 pairs up surrogates that form a character and replaces
        # the rest, which is WHATWG's conversion to a "scalar value string".
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return fixed.encode("utf-8")


def parse_urlencoded(data: bytes | str) -> list[tuple[str, str]]:
    """Decode urlencoded data into ``(name, value)`` pairs, in order.

    The decoding follows the WHATWG URL Standard and never raises:

    - the data is split on ``&`` only (never on ``;``), and empty pieces are skipped;
    - the first ``=`` of a piece separates name and value, a piece without ``=`` is a name
      with the value ``""``, and a piece such as ``=x`` has the name ``""``;
    - ``+`` becomes a space, then ``%XX`` escapes are decoded to bytes; a ``%`` not followed
      by two hexadecimal digits is kept as it is (``"100%"`` stays ``"100%"``);
    - the resulting bytes are read as UTF-8, each invalid sequence becoming U+FFFD;
    - text is first encoded as UTF-8, a lone surrogate in it becoming U+FFFD.

    Args:
        data: A query string (without the ``?``) or a request body.

    Returns:
        The pairs as text; repeated names are kept in order.

    Example:
        >>> parse_urlencoded(b"q=caf%C3%A9+au+lait&tag=a&tag&&bad=%zz")
        [('q', 'café au lait'), ('tag', 'a'), ('tag', ''), ('bad', '%zz')]
    """
    if isinstance(data, str):
        data = data.encode("ascii") if data.isascii() else _to_utf8(data)
    tokens: list[bytes] = []
    append = tokens.append
    for piece in data.split(b"&"):
        if piece:
            name, _, value = piece.partition(b"=")
            append(name)
            append(value)
    if not tokens:
        return []
    if b"\x00" in data or b"%00" in data:
        # NUL separates the tokens below, so data that holds or encodes one is decoded token
        # by token instead (same result, slower).
        names = map(_decode, tokens[::2])
        return list(zip(names, map(_decode, tokens[1::2]), strict=True))
    # PERF: decoding every token in one pass over a NUL-joined buffer does the "+", escape
    # and UTF-8 work in a few C calls instead of two Python calls per field. Joining is safe:
    # NUL is one UTF-8 character, so an invalid sequence at the end of one token becomes its
    # own U+FFFD and never swallows the separator or the start of the next token.
    joined = b"\x00".join(tokens).replace(b"+", b" ")
    if b"%" in joined:
        joined = _unescape(joined)
    texts = joined.decode("utf-8", "replace").split("\x00")
    return list(zip(texts[::2], texts[1::2], strict=True))
