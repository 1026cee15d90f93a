"""Decoding ``application/x-www-form-urlencoded`` data: query strings and simple form bodies.

The rules are the WHATWG URL Standard's "application/x-www-form-urlencoded parser", which is
what browsers produce and what ``URLSearchParams`` reads. Turning the pairs into a multidict,
and limiting sizes, is the caller's business.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

__all__ = ["parse_urlencoded"]


def _sanitise(text: str) -> str:
    """Replace lone surrogates by U+FFFD, as a browser converts a string to UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A round trip through UTF-16 pairs up surrogates that form a character and replaces
        # the rest, exactly what WHATWG's "scalar value string" conversion does.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _decode_bytes(piece: bytes) -> str:
    return unquote_to_bytes(piece.replace(b"+", b" ")).decode("utf-8", "replace")


def _parse_bytes(data: bytes) -> list[tuple[str, str]]:
    """Decode data that is not valid UTF-8, piece by piece, at the byte level."""
    pairs: list[tuple[str, str]] = []
    for piece in data.split(b"&"):
        if piece:
            name, _, value = piece.partition(b"=")
            pairs.append((_decode_bytes(name), _decode_bytes(value)))
    return pairs


def parse_urlencoded(data: bytes | str) -> list[tuple[str, str]]:
    """Decode urlencoded data into ``(name, value)`` pairs, in order.

    The decoding follows the WHATWG URL Standard and never raises:

    - the data is split on ``&`` only (never on ``;``), and empty pieces are skipped;
    - the first ``=`` of a piece separates name and value, a piece without ``=`` is a name
      with the value ``""``, and a piece such as ``=x`` has the name ``""``;
    - ``+`` becomes a space, then ``%XX`` escapes are decoded to bytes; a ``%`` not followed
      by two hexadecimal digits is kept as it is (``"100%"`` stays ``"100%"``);
    - the resulting bytes are read as UTF-8, each invalid sequence becoming U+FFFD;
    - text input is treated as its UTF-8 encoding, with lone surrogates read as U+FFFD.

    Args:
        data: A query string (without the ``?``) or a request body.

    Returns:
        The pairs as text; repeated names are kept in order.

    Example:
        >>> parse_urlencoded(b"q=caf%C3%A9+au+lait&tag=a&tag&&bad=%zz")
        [('q', 'café au lait'), ('tag', 'a'), ('tag', ''), ('bad', '%zz')]
    """
    if isinstance(data, str):
        text = data if data.isascii() else _sanitise(data)
    else:
        try:
            # PERF: valid UTF-8 (nearly always ASCII) is decoded once and split as text.
            # Escapes can then be decoded piece by piece: raw UTF-8 characters are complete,
            # so they never merge with the bytes of a neighbouring escape.
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return _parse_bytes(data)
    pairs: list[tuple[str, str]] = []
    append = pairs.append
    # PERF: most names and values need no decoding at all; only pieces holding "%" or "+"
    # go through the (comparatively slow) unquoting.
    for piece in text.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        if "%" in piece or "+" in piece:
            if "%" in name or "+" in name:
                name = unquote_to_bytes(name.replace("+", " ")).decode("utf-8", "replace")
            if "%" in value or "+" in value:
                value = unquote_to_bytes(value.replace("+", " ")).decode("utf-8", "replace")
        append((name, value))
    return pairs
