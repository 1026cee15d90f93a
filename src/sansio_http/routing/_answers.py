"""The routing answers that are not a match: a 308 to the slashed path, a 204 to OPTIONS.

Both are HTTP errors the router raises from ``match``: :class:`RequestRedirect`
when only the path with a trailing slash has a rule, :class:`AllowedMethods`
when an OPTIONS request finds rules for the path but none that takes OPTIONS.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sansio_http.http._urls import path_location
from sansio_http.messages._errors import HTTPError, MethodNotAllowed, _Negotiating
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

__all__ = ["AllowedMethods", "RequestRedirect"]


class RequestRedirect(HTTPError):
    """308: the rule exists with a trailing slash; go there.

    RFC 9110 §15.4.9: 308 keeps the method and body, unlike 301.

    SECURITY: the Location is the path percent-encoded to RFC 3986 ``pchar``
    form, never starting with ``//``, so it always points at this origin
    whatever the client put in the path. Given the request,
    :meth:`to_response` puts its ``root_path`` in front and keeps its query
    string.

    Args:
        path: The percent-decoded path to redirect to, as the router
            matched it (``Request.path`` with a trailing slash).

    Attributes:
        path: The decoded path.
        location: The Location without the request's root path and query.
    """

    status = 308
    description = "The resource lives at the URL with a trailing slash."

    def __init__(self, path: str) -> None:
        self.path = path
        self.location = path_location(path)
        super().__init__(headers={"Location": self.location})

    def to_response(self, request: _Negotiating | None = None) -> Response:
        """Build the 308, its Location under the request's root path and with its query.

        Args:
            request: The request being redirected; a
                :class:`~sansio_http.Request` gives its ``root_path`` and
                ``query_string`` to the Location.

        Returns:
            A new 308 response.
        """
        response = super().to_response(request)
        if isinstance(request, Request):
            response.headers["Location"] = path_location(
                self.path, request.root_path, request.query_string
            )
        return response


class AllowedMethods(MethodNotAllowed):
    """204: the answer to an OPTIONS request that no rule takes.

    RFC 9110 §9.3.7: OPTIONS asks what the target resource supports, and the
    answer is the Allow header, OPTIONS included. It subclasses
    :class:`~sansio_http.MethodNotAllowed` so that code which answers OPTIONS
    itself, as the App does, finds ``allowed`` where it always did; its own
    response is an empty 204, never a 405 that would refuse what it lists.

    Args:
        allowed: The methods the path allows.
    """

    status = 204
    description = "The methods the resource allows are in the Allow header."

    def __init__(self, allowed: Iterable[str]) -> None:
        super().__init__(allowed=allowed)

    def to_response(self, request: Any = None) -> Response:
        """Return an empty 204 whose Allow header lists the methods."""
        return Response(b"", 204, self.headers)
