"""Views that answer 204 or 304 with content in the response, under real servers.

The core refuses content on such a status, so each view returns a
``ForcedStatus``, which gets past that check as a subclass could: the body
and its Content-Length are in place, and only the adapter and the server
stand between them and the wire. ``/closed`` reports how many bodies were
closed, to show each was closed exactly once even though none was sent.
``wsgi`` (wrapped in ``wsgiref.validate``) and ``asgi`` serve the same views.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterator
from wsgiref.validate import validator

from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.wsgi import WSGIRequest, wsgi_app
from tests.integration.forced_status import ForcedStatus

warnings.simplefilter("error")

# How many times each kind of body was closed in this process.
CLOSED = {"sync": 0, "async": 0}


class _Chunks:
    def __iter__(self) -> Iterator[bytes]:
        yield b"test"

    def close(self) -> None:
        CLOSED["sync"] += 1


class _AsyncChunks:
    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        yield b"test"

    async def aclose(self) -> None:
        CLOSED["async"] += 1


def answer(request: Request) -> Response:
    """Answer ``/<status>/<body kind>``, ``/closed`` or ``/hello``."""
    parts = request.path.strip("/").split("/")
    if parts[0] == "closed":
        return Response(f"{CLOSED['sync']} {CLOSED['async']}", content_type="text/plain")
    if parts[0].isdigit():
        kind = parts[1] if len(parts) > 1 else "bytes"
        body = {"bytes": b"test", "sync": _Chunks(), "async": _AsyncChunks()}[kind]
        headers = {"content-length": "4"}
        return ForcedStatus(body, int(parts[0]), headers=headers, content_type="text/plain")
    return Response(b"hello", content_type="text/plain")


def _wsgi_view(request: WSGIRequest) -> Response:
    return answer(request)


async def _asgi_view(request: ASGIRequest) -> Response:
    return answer(request)


wsgi = validator(wsgi_app(_wsgi_view))
asgi = asgi_app(_asgi_view)
