"""Decode a JSON request body, answering every way it can be wrong with a 400.

A body is the client's: invalid JSON, text that is not UTF-8, nesting deep enough to exhaust
the stack, integers longer than Python converts and numbers no finite float holds are all
the client's fault, so each is a :class:`~sansio_http.BadRequest`, never an exception that
becomes a 500 (or a value that cannot be written back as JSON).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from math import inf
from typing import Any, Final

from sansio_http.messages._errors import BadRequest

__all__ = ["decode_json"]

# RFC 8259 §8.1: JSON exchanged between systems is UTF-8 and a parser MAY ignore a BOM.
# RFC 4627 also allowed UTF-16 and UTF-32; a BOM names them unambiguously. UTF-32-LE must be
# tried before UTF-16-LE, whose BOM it starts with.
_BOMS: Final = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _refuse_constant(name: str) -> Any:
    # RFC 8259 §6: NaN and Infinity are not JSON numbers; Python's json accepts them.
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    # RFC 8259 §6: a number too large for a double (1e999) is not Infinity, which JSON
    # cannot write back. float() reads a number in one pass however long its digits or its
    # exponent (int() would refuse more than sys.get_int_max_str_digits() digits).
    value = float(text)
    if value in _INFINITIES:
        raise ValueError("a number is too large for a finite float")
    return value


_INFINITIES: Final = (inf, -inf)

# PERF: json.loads with an option builds a decoder per call; this one is built once, as
# json.loads keeps its own default decoder. Decoding keeps no state between calls.
_DECODER: Final = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse_constant)
# PERF: decode_json does what _DECODER.decode does, through its scanner and without
# its two Python calls (decode, then raw_decode): skip the white space, scan one value,
# skip the white space, refuse anything after it.
_scan: Final[Callable[[str, int], tuple[Any, int]]] = getattr(_DECODER, "scan_once")  # noqa: B009
_space: Final[Callable[[str, int], re.Match[str]]] = getattr(json.decoder, "WHITESPACE").match  # noqa: B009

# The first bytes of the BOMs, so that a body without one is not compared with each.
_BOM_STARTS: Final = frozenset(bom[0] for bom, _ in _BOMS)


def decode_json(data: bytes | str, loads: Callable[[str], Any] | None = None) -> Any:
    r"""Decode a JSON body; any fault in it is a 400, never a 500.

    Bytes are read as UTF-8, or as UTF-16 or UTF-32 when a byte order mark
    says so; a UTF-8 BOM is skipped.

    Args:
        data: The body, or text already decoded.
        loads: Parses the text; ``ValueError`` and ``RecursionError`` from it
            become a 400. The default is ``json.loads`` refusing ``NaN``,
            ``Infinity`` and numbers too large for a finite float, such as
            ``1e999`` (RFC 8259 §6), in time linear in the body's length.

    Returns:
        The decoded value.

    Raises:
        BadRequest: The body is not valid UTF-8 (or BOM-marked UTF-16/32),
            not valid JSON, nested too deeply, holds an integer with more
            digits than Python converts (``sys.get_int_max_str_digits``), or a
            number beyond the largest finite float.

    Example:
        >>> decode_json(b'{"name": "caf\u00e9"}')
        {'name': 'café'}
    """
    if isinstance(data, str):
        text = data
    else:
        encoding = "utf-8"
        if data and data[0] in _BOM_STARTS:
            for bom, name in _BOMS:
                if data.startswith(bom):
                    data, encoding = data[len(bom) :], name
                    break
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise BadRequest(
                f"The JSON body is not valid {encoding.upper()}: {exc.reason} at byte {exc.start}."
            ) from exc
    try:
        if loads is not None:
            return loads(text)
        try:
            value, end = _scan(text, _space(text, 0).end())
        except StopIteration as exc:
            raise json.JSONDecodeError("Expecting value", text, exc.value) from None
        end = _space(text, end).end()
        if end != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
        return value
    except json.JSONDecodeError as exc:
        raise BadRequest(
            f"The body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}."
        ) from exc
    except RecursionError as exc:
        raise BadRequest("The JSON body is nested too deeply.") from exc
    except ValueError as exc:
        # The digit limit on int() (Python 3.11+), a refused constant, or a custom loads.
        raise BadRequest(f"The JSON body cannot be decoded: {exc}.") from exc
