"""Byte ranges: the ``Range`` request header and ``Content-Range`` values.

RFC 9110 §14 lets a client ask for parts of a representation. A parsed
:class:`Range` keeps the request as written; :meth:`Range.resolve` turns it
into byte offsets once the length is known, which is where a server decides
what is satisfiable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# SECURITY: many ranges make many parts, and overlapping ones can multiply the
# bytes sent (CVE-2011-3192, "Apache Killer"). Browsers and media players ask
# for one range and PDF readers for a few; Apache answered the CVE with a
# MaxRanges default of 200. 100 leaves room for any real client.
#: The most ranges :func:`parse_range` accepts unless told otherwise.
DEFAULT_MAX_RANGES: Final = 100
# 19 digits hold any offset in a signed 64-bit file size; longer numbers are
# no real offset and would make int() slow on adversarial input.
_RANGE_RE: Final = re.compile(r"([0-9]{0,19})[ \t]*-[ \t]*([0-9]{0,19})")


@dataclass
class Range:
    """A parsed ``Range`` header: a unit and ranges in request order.

    Each range is ``(first, last)``, both inclusive byte positions;
    ``(first, None)`` for "from ``first`` to the end"; or ``(None, n)`` for
    the last ``n`` bytes (RFC 9110 §14.1.2).

    Attributes:
        unit: The range unit, lower-cased; ``"bytes"`` once parsed.
        ranges: The ranges, in the order the client wrote them.
    """

    unit: str
    ranges: list[tuple[int | None, int | None]]

    def resolve(self, length: int) -> list[tuple[int, int]]:
        """Return the satisfiable ranges of a ``length``-byte representation.

        A range is satisfiable when it starts before the end, or is a suffix
        of at least one byte of a non-empty representation (RFC 9110
        §14.1.2). Ranges that overlap or touch are merged and the result is
        sorted, as RFC 9110 §14.2 allows, so the parts never hold more bytes
        than the representation.

        Args:
            length: The length of the selected representation in bytes.

        Returns:
            Half-open ``(start, stop)`` offsets; ``[]`` when none is
            satisfiable, which calls for a 416 response.
        """
        spans = []
        for first, last in self.ranges:
            if first is None:
                if last and length > 0:
                    spans.append((max(0, length - last), length))
            elif first < length:
                spans.append((first, length if last is None else min(last + 1, length)))
        spans.sort()
        merged: list[tuple[int, int]] = []
        for start, stop in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(stop, merged[-1][1]))
            else:
                merged.append((start, stop))
        return merged

    def to_header(self) -> str:
        """Return the ranges as a ``Range`` header value."""
        specs = (
            f"{'' if first is None else first}-{'' if last is None else last}"
            for first, last in self.ranges
        )
        return f"{self.unit}={','.join(specs)}"


def parse_range(value: str | None, max_ranges: int = DEFAULT_MAX_RANGES) -> Range | None:
    """Parse a ``Range`` header such as ``bytes=0-499, -500, 9500-``.

    The unit is case-insensitive and must be ``bytes``; RFC 9110 §14.2 has a
    server ignore units it does not know. Empty list items are skipped.

    Args:
        value: The header value, or None.
        max_ranges: The most ranges accepted; 100 by default, since clients
            ask for one or a few and many ranges are a denial-of-service
            pattern (RFC 9110 §14.2).

    Returns:
        The ranges, or None when the header is absent, not in bytes,
        malformed (a range with neither end, or whose last position is before
        its first), or holds more than ``max_ranges`` ranges: a server
        ignores such a header and sends the whole representation. Never
        raises.
    """
    unit, equals, specs = (value or "").partition("=")
    if not equals or unit.strip().lower() != "bytes":
        return None
    ranges: list[tuple[int | None, int | None]] = []
    for spec in specs.split(","):
        spec = spec.strip()
        if not spec:
            continue
        match = _RANGE_RE.fullmatch(spec)
        if match is None or len(ranges) == max_ranges:
            return None
        first_text, last_text = match.groups()
        first = int(first_text) if first_text else None
        last = int(last_text) if last_text else None
        # RFC 9110 §14.1.1: an int-range whose last-pos is before its
        # first-pos is invalid, and so is "-" with neither end.
        if (first is None and last is None) or (
            first is not None and last is not None and last < first
        ):
            return None
        ranges.append((first, last))
    return Range("bytes", ranges) if ranges else None


def content_range(start: int, stop: int, length: int | None) -> str:
    """Build a ``Content-Range`` value for the half-open range ``start:stop``.

    Args:
        start: The first byte offset sent.
        stop: One past the last byte offset sent.
        length: The complete length, or None when it is unknown (``*``).

    Returns:
        A value such as ``bytes 0-499/1234`` (RFC 9110 §14.4).

    Raises:
        ValueError: The range is empty, negative, or ends past ``length``.
    """
    if not 0 <= start < stop or (length is not None and stop > length):
        raise ValueError(f"invalid range {start}:{stop} of {length}")
    return f"bytes {start}-{stop - 1}/{'*' if length is None else length}"


def unsatisfied_range(length: int) -> str:
    """Build the ``Content-Range`` value of a 416 response: ``bytes */length``.

    Args:
        length: The current length of the representation (RFC 9110 §14.4).

    Raises:
        ValueError: ``length`` is negative.
    """
    if length < 0:
        raise ValueError(f"negative length {length}")
    return f"bytes */{length}"
