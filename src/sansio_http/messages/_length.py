"""The Content-Length field: its value as a number, or a 400.

Both the request (:attr:`~sansio_http.Request.content_length`) and the head
checks read it, so it lives below both of them. It is on every request's path
and is one of the modules the optional compiled build compiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sansio_http.messages._errors import BadRequest

__all__ = ["TOO_LARGE", "parse_content_length"]

#: What a Content-Length of 2**63 or more reads as. No sender can mean that
#: many bytes (Go, nginx and Node all use signed 64-bit sizes), so such a
#: value exceeds every limit and is never parsed past its 19th digit.
TOO_LARGE: Final = 2**63
_MAX_DIGITS: Final = 19


def parse_content_length(values: Sequence[str]) -> int | None:
    """Return the length the Content-Length field values give.

    RFC 9110 §8.6: the value is ``1*DIGIT``; a list of identical values (a
    field repeated by a proxy) counts as that value.

    Args:
        values: The field's values, as text.

    Returns:
        The length; None when there are no values; :data:`TOO_LARGE` for any
        value of 2**63 or more.

    Raises:
        BadRequest: A value is not a decimal number, or the values differ.
    """
    if not values:
        return None
    if len(values) == 1:
        # PERF: the usual single plain value; 18 digits stay below 2**63.
        value = values[0]
        if value.isdigit() and value.isascii() and len(value) <= _MAX_DIGITS - 1:
            return int(value)
    lengths = set()
    for value in values:
        for item in value.split(","):
            item = item.strip(" \t")
            # NOTE: int() would also take signs, "_" and non-ASCII digits.
            if not (item.isascii() and item.isdigit()):
                raise BadRequest("Invalid Content-Length header")
            digits = item.lstrip("0")
            number = int(digits or "0") if len(digits) <= _MAX_DIGITS else TOO_LARGE
            lengths.add(min(number, TOO_LARGE))
    if len(lengths) != 1:
        raise BadRequest("Conflicting Content-Length values")
    return lengths.pop()
