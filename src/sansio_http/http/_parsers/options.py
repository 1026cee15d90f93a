"""Values with parameters (``Content-Type``), plus list and dict headers.

``Content-Type``, ``Content-Disposition`` and multipart part headers share one
shape: a value, then ``; key=value`` parameters (RFC 9110 §5.6.6), where a
``key*`` parameter carries text in another charset (RFC 8187, which profiles
RFC 2231 and replaced RFC 5987), possibly cut into numbered pieces (RFC 2231
§3). ``parse_list_header`` and ``parse_dict_header`` read the comma-separated
lists of RFC 9110 §5.6.1 that have no dedicated parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import quote as percent_quote
from urllib.parse import unquote_to_bytes

from sansio_http.http._fields import _shown
from sansio_http.http._parsers.tokens import (
    charset_name,
    is_token,
    iter_pairs,
    quote,
    split_quoted,
    unquote,
)

# RFC 8187 §3.2.1: recipients must support UTF-8 and ISO-8859-1; US-ASCII is a
# subset of both. Other charsets are refused rather than looked up in Python's
# codec registry, which also holds transforms (``unicode_escape``, ``idna``)
# never meant for header text. Values are Python codec names.
_CODECS: Final = {"utf-8": "utf-8", "iso-8859-1": "latin-1", "us-ascii": "ascii"}
# RFC 8187 §3.2.1 ``attr-char`` besides letters, digits and ``-._~``, which
# urllib.parse.quote always keeps.
_ATTR_SAFE: Final = "!#$&+^`|"
# RFC 2231 §3 numbers the pieces of a long parameter; three digits allow 1000
# pieces, far more than any real header holds, and keep int() cheap.
_MAX_INDEX_DIGITS: Final = 3


def _decode_extended(raw: str) -> tuple[str, bytes] | None:
    """Split an RFC 8187 ``charset'language'value`` into codec and bytes."""
    charset, _, rest = raw.partition("'")
    _language, quote_mark, data = rest.partition("'")
    codec = _CODECS.get(charset_name(charset))
    if codec is None or not quote_mark:
        return None
    return codec, unquote_to_bytes(data)


def _join_pieces(pieces: dict[int, tuple[str, bool]]) -> tuple[str, bool] | None:
    """Join RFC 2231 §3 numbered pieces into ``(text, is_extended)``.

    Pieces count from 0 and stop at the first gap (RFC 2231 §3 numbers them
    without holes). Piece 0 decides: if it is extended, it names the charset
    for all extended pieces (RFC 2231 §4.1); otherwise they are read as UTF-8.
    """
    codec = "utf-8"
    data = bytearray()
    first_raw, extended = pieces[0]
    if extended:
        decoded = _decode_extended(first_raw)
        if decoded is None:
            return None
        codec, first = decoded
        data += first
    else:
        data += first_raw.encode(codec, "replace")
    index = 1
    while index in pieces:
        raw, piece_extended = pieces[index]
        data += unquote_to_bytes(raw) if piece_extended else raw.encode(codec, "replace")
        index += 1
    return data.decode(codec, "replace"), extended


class Parameters(dict[str, str]):
    """The parameters of a header value: a dict that knows its repeated names.

    RFC 6838 §4.3 makes a parameter given twice an error; readers disagree on
    which copy counts (the first here, the last in Werkzeug and ``multipart``),
    so a caller that acts on a parameter can refuse the value instead.

    Attributes:
        repeated: The lower-cased names given more than once, plain or as
            RFC 2231 pieces beside a plain one.
    """

    __slots__ = ("repeated",)

    def __init__(self) -> None:
        super().__init__()
        self.repeated: frozenset[str] = frozenset()


def parse_options_header(value: str | None) -> tuple[str, Parameters]:
    r"""Parse a ``Content-Type``-like value into the value and its parameters.

    The value and parameter names are lower-cased; parameter values are
    stripped and unquoted (only ``\"`` and ``\\`` are escapes, so a
    browser's ``filename="C:\dir\a.txt"`` keeps its backslashes). The first
    of several parameters with one name wins, and the name is listed in the
    result's ``repeated``; bare names without ``=`` are skipped.

    An RFC 8187 ``key*=charset'lang'%xx`` parameter is percent-decoded with its
    charset (UTF-8, ISO-8859-1 or US-ASCII; the language is dropped) and
    stored under ``"key*"``, beside any plain ``key``. RFC 2231 numbered pieces
    (``key*0*=``, ``key*1=``) are joined and stored under ``"key*"`` if piece 0
    is extended, else under ``"key"``. Extended parameters that cannot be
    decoded are skipped.

    Args:
        value: The header value, or None when the header is absent.

    Returns:
        ``(value, params)``; ``("", {})`` for an absent or empty header. Never
        raises.
    """
    params = Parameters()
    if not value:
        return "", params
    items = split_quoted(value, ";")
    seen: set[str] = set()
    repeated: set[str] = set()
    pieces: dict[str, dict[int, tuple[str, bool]]] = {}
    for item in items[1:]:
        key, equals, raw = item.partition("=")
        key = key.strip().lower()
        if not key or not equals:
            continue
        if key in seen:
            repeated.add(key)
        seen.add(key)
        text = unquote(raw.strip())
        extended = key.endswith("*")
        name, star, index = (key[:-1] if extended else key).rpartition("*")
        if star and name and index.isascii() and index.isdigit():
            if len(index) <= _MAX_INDEX_DIGITS:
                pieces.setdefault(name, {}).setdefault(int(index), (text, extended))
        elif extended:
            decoded = _decode_extended(text)
            if decoded is not None:
                params.setdefault(key, decoded[1].decode(decoded[0], "replace"))
        else:
            params.setdefault(key, text)
    for name, numbered in pieces.items():
        joined = _join_pieces(numbered) if 0 in numbered else None
        if joined is not None:
            key = name + "*" if joined[1] else name
            if key in params:
                repeated.add(key)
            params.setdefault(key, joined[0])
    if repeated:
        params.repeated = frozenset(repeated)
    return items[0].strip().lower(), params


def dump_options_header(value: str, params: Mapping[str, str]) -> str:
    """Build a ``Content-Type``-like value from a value and parameters.

    Parameter values are written as tokens when they are, else as quoted
    strings; a name ending in ``*`` gets its value as RFC 8187
    ``UTF-8''%xx`` text. CR, LF and NUL are written as they are:
    :class:`~sansio_http.MutableHeaders` refuses them when the header is set.

    Args:
        value: The value before the parameters, such as ``"text/html"``.
        params: Parameter names and values, in the order to write them.

    Returns:
        The header value, such as ``'attachment; filename="a b.txt"'``.

    Raises:
        TypeError: ``value``, a parameter name or a parameter value is not
            ``str``; nothing is converted, so pass ``str(n)`` for a number.
        ValueError: A parameter name is not a token, or an extended value
            cannot be encoded as UTF-8 (it holds a lone surrogate).
    """
    if not isinstance(value, str):
        raise TypeError(f"dump_options_header() needs a str value, not {_shown(value)}")
    parts = [value]
    for key, text in params.items():
        if not isinstance(key, str):
            raise TypeError(f"dump_options_header() needs str parameter names, not {_shown(key)}")
        if not isinstance(text, str):
            raise TypeError(
                f"dump_options_header(): parameter {key!r} needs a str value, not {_shown(text)}"
            )
        if not is_token(key):
            raise ValueError(f"parameter name {key!r} is not a token")
        if key.endswith("*"):
            encoded = percent_quote(text.encode("utf-8"), safe=_ATTR_SAFE)
            parts.append(f"{key}=UTF-8''{encoded}")
        else:
            parts.append(f"{key}={quote(text)}")
    return "; ".join(parts)


def parse_list_header(value: str | None) -> list[str]:
    """Parse a comma-separated list header into its stripped items.

    Commas inside quoted strings do not split; quoted items are unquoted and
    empty items are skipped (RFC 9110 §5.6.1 asks recipients to ignore them).
    Useful for ``X-Forwarded-For`` and other lists without a dedicated parser.

    Args:
        value: The header value (all field lines joined by ``", "``), or None.

    Returns:
        The items in order; ``[]`` for an absent or empty header. Never raises.
    """
    if not value:
        return []
    return [unquote(item) for item in (piece.strip() for piece in split_quoted(value, ",")) if item]


def parse_dict_header(value: str | None) -> dict[str, str | None]:
    """Parse a comma-separated list of ``key=value`` items into a dict.

    Keys are stripped and keep their case; values are stripped and unquoted.
    A bare ``key`` maps to None. The first of several items with one key
    wins, and items with an empty key are skipped.

    Args:
        value: The header value, or None.

    Returns:
        The items in order; ``{}`` for an absent or empty header. Never raises.
    """
    result: dict[str, str | None] = {}
    for key, text in iter_pairs(value or "", ","):
        result.setdefault(key, text)
    return result
