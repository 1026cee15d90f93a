"""The routing answers that are not a match and not an error: a 308 and a 204.

The router raises them from ``match`` as it raises its errors, but they
derive from :class:`~sansio_http.HTTPException` only, not from
:class:`~sansio_http.HTTPError`: :class:`RequestRedirect` when only the
path with a trailing slash has a rule, :class:`AllowedMethods` when an
OPTIONS request finds rules for the path but none that takes OPTIONS. An
error handler or an error renderer written for every ``HTTPError`` never
sees them, so it cannot turn a redirect or an OPTIONS answer into an error
page.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

from sansio_http.http._urls import path_location
from sansio_http.messages._errors import HTTPException
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

__all__ = ["AllowedMethods", "RequestRedirect", "RoutingAnswer"]


class RoutingAnswer(HTTPException):
    """The base of the router's answers that are not errors.

    Adapters answer one with :meth:`to_response`; the App's error handlers
    never receive one, as Flask's never receive its routing redirects.
    """


class RequestRedirect(RoutingAnswer):
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

    def __init__(self, path: str) -> None:
        self.args = (path,)
        self.path = path
        self.location = path_location(path)
        self._headers = {"Location": self.location}

    def __str__(self) -> str:
        return f"308 {self.reason}: {self.location}"

    def to_response(self, request: Any = None) -> Response:
        """Build the 308, its Location under the request's root path and with its query.

        Args:
            request: The request being redirected; a
                :class:`~sansio_http.Request` gives its ``root_path`` and
                ``query_string`` to the Location.

        Returns:
            A new 308 response with a short HTML body linking to the Location.
        """
        location = self.location
        if isinstance(request, Request):
            location = path_location(self.path, request.root_path, request.query_string)
        link = escape(location)
        body = (
            "<!doctype html>\n<title>308 Permanent Redirect</title>\n"
            f'<p>The resource lives at <a href="{link}">{link}</a>.</p>\n'
        )
        headers = {**self.headers, "Location": location}
        return Response(body, 308, headers, "text/html; charset=utf-8")


class AllowedMethods(RoutingAnswer):
    """204: the answer to an OPTIONS request that no rule takes.

    RFC 9110 §9.3.7: OPTIONS asks what the target resource supports, and the
    answer is the Allow header, OPTIONS included, with no body.

    Args:
        allowed: The methods the path allows.

    Attributes:
        allowed: The methods, upper-case, as the Allow header lists them.
    """

    status = 204

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed: list[str] = [method.upper() for method in allowed]
        self.args = (self.allowed,)
        self._headers = {"Allow": ", ".join(self.allowed)}

    def __str__(self) -> str:
        return f"204 {self.reason}: Allow: {', '.join(self.allowed)}"

    def to_response(self, request: Any = None) -> Response:
        """Return an empty 204 whose Allow header lists the methods."""
        return Response(b"", 204, self.headers)
