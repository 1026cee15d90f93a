"""The ``Date`` header of every response, formatted once per second.

RFC 9110 §6.6.1: an origin server with a clock MUST send ``Date`` in its
2xx, 3xx and 4xx responses (and may in the others); the server sends it in
every final response unless the application set its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sansio_http.http import http_date as format_date


class DateHeader:
    """Give the current IMF-fixdate, formatting it at most once a second.

    Args:
        clock: Seconds since the epoch; :func:`time.time` by default.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._second = -1
        self._value = b""

    def __call__(self) -> bytes:
        """Return the ``Date`` value for now, such as ``Sun, 06 Nov 1994 08:49:37 GMT``."""
        second = int(self._clock())
        if second != self._second:
            # PERF: formatting costs more than the rest of a small response
            # head; a busy second reuses one string.
            self._value = format_date(second).encode("ascii")
            self._second = second
        return self._value


#: The server's one clock for ``Date``.
date_header = DateHeader()


def with_date(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Return ``headers`` with a ``Date`` field added unless one is there."""
    if any(name.lower() == b"date" for name, _ in headers):
        return headers
    return [*headers, (b"date", date_header())]
