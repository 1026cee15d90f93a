r"""Splitting one segment among several placeholders, in time linear in its length.

A part such as ``<year>-<month>-<day>.html`` is matched by one regex,
``([^/]+)\-([^/]+)\-([^/]+)\.html``. Where a placeholder's text may hold
the literal text after it (``[^/]+`` holds ``-``), the regex engine
backtracks through every way of cutting the segment: a time polynomial in
its length, of a degree the number of placeholders. A segment of 2,000
dashes took a router 19 seconds on that rule, holding the GIL (an event
loop) the while; the client chooses the segment.

SECURITY: :func:`splitter` gives such parts a matcher that answers as the
regex does (each placeholder as long as the rest allows, the first one
first) in time linear in the segment, for the placeholders that take a run
of characters: the default ``[^/]+`` (``string`` and converters that keep
the base regex) and ``\d+`` (``int``). The regex still answers short
segments, where its worst case stays under a millisecond and its usual
case is quicker than the split.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb
from typing import Final

from sansio_http.routing._rules import _Part

__all__ = ["splitter"]

#: The regexes a placeholder may hold for the split, and whether a character
#: may stand in its run: ``\d`` is the Unicode category Nd, as str.isdecimal.
_RUNS: Final[dict[str, Callable[[str], bool]]] = {
    "[^/]+": lambda char: char != "/",
    r"\d+": str.isdecimal,
}
#: About how many steps the regex may take on one segment: a part leaves
#: segments up to the length whose worst case stays within it to the regex.
_BUDGET: Final = 20_000


def splitter(part: _Part) -> tuple[int, Callable[[str], list[str] | None]] | None:
    """Return the longest segment the regex answers in time, and the linear split.

    Args:
        part: A part of two placeholders or more, within one segment.

    Returns:
        None where a placeholder's regex is not a run the split knows;
        else the length up to which ``part.pattern`` is cheap, and a
        function from a segment to the texts of the placeholders (the
        groups ``part.pattern.fullmatch`` would give), or None where the
        segment does not fit.
    """
    literals = part.literals
    count = len(part.converters)
    if count < 2 or part.spans or len(literals) != count + 1:
        return None
    tests = []
    for converter in part.converters:
        test = _RUNS.get(converter.regex)
        if test is None:
            return None
        tests.append(test)
    cheap = count
    while comb(cheap + 1, count) * count <= _BUDGET:
        cheap += 1
    head = literals[0]

    def split(segment: str) -> list[str] | None:
        if not segment.startswith(head):
            return None
        size = len(segment)
        # After the last placeholder, only its literal text ends the segment.
        fits = [False] * (size + 1)
        fits[size] = True
        lasts: list[list[int]] = []
        runs: list[list[int]] = []
        for index in range(count - 1, -1, -1):
            literal = literals[index + 1]
            width = len(literal)
            # last[q]: the greatest end e <= q where the placeholder may stop:
            # its literal follows at e and the rest fits after it; -1 if none.
            last = [-1] * (size + 1)
            found = -1
            for end in range(size + 1):
                if end + width <= size and fits[end + width] and segment.startswith(literal, end):
                    found = end
                last[end] = found
            # run[p]: where the run of characters the placeholder may hold,
            # starting at p, stops.
            test = tests[index]
            run = [size] * (size + 1)
            stop = size
            for position in range(size - 1, -1, -1):
                if not test(segment[position]):
                    stop = position
                run[position] = stop
            # This placeholder and the rest fit from p: it ends after p,
            # within its run, where the rest may follow.
            fits = [last[run[position]] > position for position in range(size)] + [False]
            lasts.append(last)
            runs.append(run)
        start = len(head)
        if not fits[start]:
            return None
        lasts.reverse()
        runs.reverse()
        texts = []
        for index in range(count):
            # As the regex: the longest text that lets the rest fit.
            end = lasts[index][runs[index][start]]
            texts.append(segment[start:end])
            start = end + len(literals[index + 1])
        return texts

    return cheap, split
