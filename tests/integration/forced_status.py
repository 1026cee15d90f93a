"""A Response whose status skips the core's checks, to test the adapters alone.

The core refuses content on a 1xx, 204 or 304; the adapters and the server
must still send none when a response gets past that (a subclass, a proxy
object, a response mutated after the check). This subclass is such a
response: it keeps its body and its Content-Length whatever its status.
``Chunks`` and ``AsyncChunks`` are bodies that count how often they are
iterated and closed, for the rule that every body is closed exactly once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from sansio_http.http._status import reason_phrase
from sansio_http.messages._response import Response


class ForcedStatus(Response):
    """A 200 response built with ``body``, then reporting ``status``."""

    def __init__(self, body: Any, status: int, **options: Any) -> None:
        super().__init__(body, **options)
        self.forced = status

    @property
    def status(self) -> int:
        """The forced status."""
        return self.forced

    @status.setter
    def status(self, status: int) -> None:
        self.forced = status

    @property
    def reason(self) -> str:
        """The reason phrase of the forced status."""
        return reason_phrase(self.forced)

    @property
    def status_line(self) -> str:
        """The forced status as ``start_response`` wants it."""
        return f"{self.forced} {self.reason}"


class Chunks:
    """A sync body that counts its iterations and its close() calls."""

    def __init__(self) -> None:
        self.iterated = 0
        self.closed = 0

    def __iter__(self) -> Iterator[bytes]:
        self.iterated += 1
        yield b"te"
        yield b"st"

    def close(self) -> None:
        self.closed += 1


class AsyncChunks:
    """An async body that counts its iterations and its aclose() calls."""

    def __init__(self) -> None:
        self.iterated = 0
        self.closed = 0

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        self.iterated += 1
        yield b"test"

    async def aclose(self) -> None:
        self.closed += 1


def with_status(body: Any, status: int, length: int | None = None) -> Response:
    """Return a response of ``status`` that holds ``body`` (and a length, if known)."""
    headers = None if length is None else {"content-length": str(length)}
    return ForcedStatus(body, status, headers=headers, content_type="text/plain")
