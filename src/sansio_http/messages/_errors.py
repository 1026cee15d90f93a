"""HTTP errors: exceptions that stand for an error response (``abort`` raises them).

Raise an :class:`HTTPError` subclass when the *peer* sent something wrong (or the
server cannot serve it); the adapter or the app turns it into a response with
:meth:`HTTPError.to_response`, which needs no ``environ`` or ``scope``. Misuse of the
API by our caller raises ``ValueError`` or ``TypeError`` instead (STYLE.md §4).

SECURITY: the body of an error response holds the status, its phrase and
``detail``, HTML-escaped; never a traceback, an exception's arguments or anything
else from the server. ``detail`` is meant for the client, so callers should not
put internal information into it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from html import escape
from typing import ClassVar, Final, Protocol

from sansio_http.http import http_date
from sansio_http.http._status import reason_phrase
from sansio_http.messages._response import Response

__all__ = [
    "BadGateway",
    "BadRequest",
    "BadRequestKeyError",
    "ClientDisconnected",
    "Conflict",
    "ExpectationFailed",
    "Forbidden",
    "GatewayTimeout",
    "Gone",
    "HTTPError",
    "HTTPException",
    "HTTPVersionNotSupported",
    "ImATeapot",
    "InternalServerError",
    "LengthRequired",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "NotImplemented",
    "PreconditionFailed",
    "PreconditionRequired",
    "RequestEntityTooLarge",
    "RequestHeaderFieldsTooLarge",
    "RequestTimeout",
    "RequestURITooLong",
    "RequestedRangeNotSatisfiable",
    "ServiceUnavailable",
    "TooManyRequests",
    "Unauthorized",
    "UnprocessableEntity",
    "UnsupportedMediaType",
    "UntrustedHost",
]


class _MIMEAccept(Protocol):
    def best_match(self, offers: list[str], default: str | None = None) -> str | None: ...


class _Negotiating(Protocol):
    """What :meth:`HTTPError.to_response` reads from a request: its Accept header."""

    @property
    def accept_mimetypes(self) -> _MIMEAccept: ...


# The first offer wins ties, so "*/*" and a missing Accept header get HTML.
_OFFERS: Final = ["text/html", "application/json"]
_JSON: Final = "application/json"


class HTTPException(Exception):
    """An HTTP answer raised as an exception: the base of errors and routing answers.

    Two families derive from it. :class:`HTTPError` (status 400 to 599) is
    what went wrong: error handlers and error renderers see it. The router's
    answers that are not errors, the 308 to the URL with a trailing slash
    and the 204 to ``OPTIONS`` (:class:`~sansio_http.routing.RoutingAnswer`),
    are answered with their own response and reach no error handler. Catch
    ``HTTPException`` for both, ``HTTPError`` for errors alone.

    Subclasses set :attr:`status` and implement :meth:`to_response`.
    """

    status: ClassVar[int] = 500

    # PERF: no instance dict unless headers are given (see HTTPError).
    _headers: dict[str, str] | None = None

    @property
    def headers(self) -> dict[str, str]:
        """Extra header fields of the answer, such as ``Allow`` or ``Location``."""
        headers = self._headers
        if headers is None:
            headers = self._headers = {}
        return headers

    @headers.setter
    def headers(self, headers: dict[str, str]) -> None:
        self._headers = headers

    @property
    def reason(self) -> str:
        """The reason phrase of :attr:`status`, such as ``"Not Found"``."""
        return reason_phrase(self.status)

    def to_response(self, request: _Negotiating | None = None) -> Response:
        """Build the response this exception stands for.

        Args:
            request: The request being answered, if known.

        Returns:
            A new response.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement to_response")


class HTTPError(HTTPException):
    """An error response raised as an exception: a status, detail and headers.

    Subclasses set :attr:`status` (400 to 599) and :attr:`description`;
    instances carry a ``detail`` for the client (the description by default)
    and extra response headers.

    Args:
        detail: Text for the client, shown HTML-escaped or as a JSON string;
            the class's :attr:`description` when omitted.
        headers: Extra headers for the error response, such as ``Allow``.
    """

    status: ClassVar[int] = 500
    description: ClassVar[str] = "The server could not complete the request."

    # PERF: routing raises a NotFound per unknown path, so building an error
    # is kept cheap: no instance dict unless a detail or headers are given
    # (their class defaults stand in), and no call to Exception.__init__
    # through super(), which costs more than the rest of this constructor.
    _detail: str | None = None

    def __init__(self, detail: str | None = None, *, headers: Mapping[str, str] | None = None):
        self.args = (detail,)
        if detail is not None:
            self._detail = detail
        if headers:
            self._headers = dict(headers)

    @property
    def detail(self) -> str:
        """Text for the client; the class's :attr:`description` by default."""
        detail = self._detail
        return self.description if detail is None else detail

    @detail.setter
    def detail(self, detail: str) -> None:
        self._detail = detail

    def __str__(self) -> str:
        return f"{self.status} {self.reason}: {self.detail}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.detail!r})"

    def to_response(self, request: _Negotiating | None = None) -> Response:
        """Build the error response, as HTML or as JSON if the client prefers.

        Args:
            request: The request being answered, if known; only its
                ``accept_mimetypes`` is read, to choose JSON when the client
                prefers ``application/json`` to ``text/html``.

        Returns:
            A new response with this error's status, headers and a small body.
        """
        accept = getattr(request, "accept_mimetypes", None) if request is not None else None
        if accept is not None and accept.best_match(_OFFERS) == _JSON:
            payload = {"status": self.status, "error": self.reason, "detail": self.detail}
            body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            content_type = "application/json"
        else:
            body = self._html()
            content_type = "text/html; charset=utf-8"
        return Response(body, self.status, self._headers or None, content_type)

    def _html(self) -> str:
        title = escape(f"{self.status} {self.reason}")
        return (
            "<!doctype html>\n"
            '<html lang="en">\n'
            f'<head><meta charset="utf-8"><title>{title}</title></head>\n'
            f"<body><h1>{title}</h1><p>{escape(self.detail)}</p></body>\n"
            "</html>\n"
        )


def _retry_after(value: int | datetime) -> str:
    # RFC 9110 §10.2.3: Retry-After = HTTP-date / delay-seconds.
    if isinstance(value, datetime):
        return http_date(value)
    if value < 0:
        raise ValueError(f"retry_after must not be negative, got {value}")
    return str(int(value))


def _with(headers: Mapping[str, str] | None, name: str, value: str | None) -> dict[str, str]:
    merged = dict(headers) if headers else {}
    if value is not None:
        merged[name] = value
    return merged


class BadRequest(HTTPError):
    """400: the request is malformed and the server will not process it."""

    status = 400
    description = "The server could not understand the request."


class UntrustedHost(BadRequest):
    """400: the request's Host header is not one of the trusted hosts."""

    description = "The requested host is not served here."


class ClientDisconnected(BadRequest):
    """400: the request body ended before its declared Content-Length."""

    description = "The request body ended before its declared length."


class BadRequestKeyError(BadRequest, KeyError):
    """400: a view asked for a query argument, form field or cookie the client left out.

    ``request.args[key]``, ``request.cookies[key]`` and the decoded form and files raise it
    for an absent key. As a ``KeyError``, it is caught wherever one is, and its ``args``
    hold the key; as a :class:`BadRequest`, one that escapes a view answers 400 with the
    key named, not 500. Error handlers registered for 400 or :class:`BadRequest` come
    before those for ``KeyError`` or ``LookupError``, since the HTTP side comes first in
    its method resolution order.

    Args:
        key: The key that was looked up.
        detail: Text for the client; by default it names the key.
        headers: Extra headers for the error response.

    Example:
        >>> error = BadRequestKeyError("page")
        >>> error.key, error.args, error.detail
        ('page', ('page',), "The request has no value for 'page'.")
    """

    description = "The request lacks a value the server needs."

    def __init__(
        self,
        key: object,
        detail: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
    ):
        # SECURITY: the key is what the application looked up, not what the client sent,
        # and the error page escapes it; naming it tells the client what to add.
        super().__init__(
            f"The request has no value for {key!r}." if detail is None else detail,
            headers=headers,
        )
        #: The key that was looked up.
        self.key = key
        # As for any KeyError, args hold the key (HTTPError keeps the detail there).
        self.args = (key,)


class Unauthorized(HTTPError):
    """401: the request lacks valid credentials for the target resource.

    Args:
        detail: Text for the client.
        www_authenticate: One challenge or several, sent as WWW-Authenticate,
            which RFC 9110 §15.5.2 requires on a 401.
        headers: Extra headers for the error response.
    """

    status = 401
    description = "Valid credentials are required to access this resource."

    def __init__(
        self,
        detail: str | None = None,
        *,
        www_authenticate: str | Iterable[str] | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        challenge = www_authenticate
        if challenge is not None and not isinstance(challenge, str):
            # RFC 9110 §11.6.1: challenges form a comma-separated list.
            challenge = ", ".join(challenge)
        super().__init__(detail, headers=_with(headers, "WWW-Authenticate", challenge))


class Forbidden(HTTPError):
    """403: the server understood the request but refuses to fulfil it."""

    status = 403
    description = "You do not have permission to access this resource."


class NotFound(HTTPError):
    """404: the server has no representation for the target resource."""

    status = 404
    description = "The requested resource was not found on this server."


class MethodNotAllowed(HTTPError):
    """405: the target resource does not support the request method.

    Args:
        detail: Text for the client.
        allowed: The methods the resource supports, sent as Allow, which
            RFC 9110 §15.5.6 requires on a 405.
        headers: Extra headers for the error response.
    """

    status = 405
    description = "The method is not allowed for the requested resource."

    def __init__(
        self,
        detail: str | None = None,
        *,
        allowed: Iterable[str] | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        self.allowed: list[str] = [method.upper() for method in allowed or ()]
        allow = ", ".join(self.allowed) if allowed is not None else None
        super().__init__(detail, headers=_with(headers, "Allow", allow))


class NotAcceptable(HTTPError):
    """406: no representation matches the request's proactive negotiation."""

    status = 406
    description = "No representation of the resource matches the Accept headers."


class RequestTimeout(HTTPError):
    """408: the server did not receive a complete request in time."""

    status = 408
    description = "The server timed out waiting for the request."


class Conflict(HTTPError):
    """409: the request conflicts with the current state of the resource."""

    status = 409
    description = "The request conflicts with the current state of the resource."


class Gone(HTTPError):
    """410: the resource is no longer available and will not come back."""

    status = 410
    description = "The requested resource is no longer available."


class LengthRequired(HTTPError):
    """411: the server requires a Content-Length for this request."""

    status = 411
    description = "The request must state its Content-Length."


class PreconditionFailed(HTTPError):
    """412: a precondition in the request's headers evaluated to false."""

    status = 412
    description = "A precondition of the request was not met."


class RequestEntityTooLarge(HTTPError):
    """413: the request content is larger than the server will process."""

    status = 413
    description = "The request content is too large."


class RequestURITooLong(HTTPError):
    """414: the target URI is longer than the server will interpret."""

    status = 414
    description = "The request URI is too long."


class UnsupportedMediaType(HTTPError):
    """415: the content is in a format the target resource does not support."""

    status = 415
    description = "The request content is in an unsupported format."


class RequestedRangeNotSatisfiable(HTTPError):
    """416: none of the requested ranges overlap the selected representation.

    Args:
        detail: Text for the client.
        length: The representation's length in bytes, sent as
            ``Content-Range: bytes */length`` (RFC 9110 §15.5.17).
        headers: Extra headers for the error response.
    """

    status = 416
    description = "The requested range cannot be satisfied."

    def __init__(
        self,
        detail: str | None = None,
        *,
        length: int | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        if length is not None and length < 0:
            raise ValueError(f"length must not be negative, got {length}")
        self.length = length
        content_range = None if length is None else f"bytes */{length}"
        super().__init__(detail, headers=_with(headers, "Content-Range", content_range))


class ExpectationFailed(HTTPError):
    """417: the server cannot meet the request's Expect header."""

    status = 417
    description = "The server cannot meet the expectation of the request."


class ImATeapot(HTTPError):
    """418: the server refuses to brew coffee because it is a teapot."""

    status = 418
    description = "The server is a teapot and refuses to brew coffee."


class UnprocessableEntity(HTTPError):
    """422: the content is well-formed but its instructions cannot be processed."""

    status = 422
    description = "The request content could not be processed."


class PreconditionRequired(HTTPError):
    """428: the server requires the request to be conditional."""

    status = 428
    description = "The request must be conditional."


class _RetryLater(HTTPError):
    """An error whose response may say when to retry (Retry-After)."""

    def __init__(
        self,
        detail: str | None = None,
        *,
        retry_after: int | datetime | None = None,
        headers: Mapping[str, str] | None = None,
    ):
        value = None if retry_after is None else _retry_after(retry_after)
        super().__init__(detail, headers=_with(headers, "Retry-After", value))


class TooManyRequests(_RetryLater):
    """429: the client has sent too many requests in a given time.

    Args:
        detail: Text for the client.
        retry_after: Seconds to wait, or the time to retry at (an aware
            datetime), sent as Retry-After (RFC 6585 §4).
        headers: Extra headers for the error response.
    """

    status = 429
    description = "Too many requests were sent; please retry later."


class RequestHeaderFieldsTooLarge(HTTPError):
    """431: the request's header fields are too large to process."""

    status = 431
    description = "The request header fields are too large."


class InternalServerError(HTTPError):
    """500: the server met an unexpected condition.

    The :class:`~sansio_http.App` hands an exception that nothing handled to
    the error handler of 500 (or of this class) as an instance of this class,
    with the exception itself in :attr:`original_exception`, as Flask does.

    Args:
        detail: Text for the client.
        headers: Extra headers for the error response.
        original_exception: The exception this error stands for, if any;
            never shown to the client.
    """

    status = 500
    description = "The server met an unexpected condition and could not complete the request."

    def __init__(
        self,
        detail: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        original_exception: BaseException | None = None,
    ):
        super().__init__(detail, headers=headers)
        #: The unhandled exception this error stands for; None when the
        #: error was raised as itself.
        self.original_exception = original_exception


class NotImplemented(HTTPError):  # The 3.10 HTTPStatus name (STYLE.md §3).
    """501: the server does not support the functionality required."""

    status = 501
    description = "The server does not support the functionality required."


class BadGateway(HTTPError):
    """502: the server, acting as a gateway, got an invalid upstream response."""

    status = 502
    description = "The server received an invalid response from an upstream server."


class ServiceUnavailable(_RetryLater):
    """503: the server cannot handle the request right now.

    Args:
        detail: Text for the client.
        retry_after: Seconds to wait, or the time to retry at (an aware
            datetime), sent as Retry-After (RFC 9110 §15.6.4).
        headers: Extra headers for the error response.
    """

    status = 503
    description = "The service is temporarily unavailable; please retry later."


class GatewayTimeout(HTTPError):
    """504: the server, acting as a gateway, got no timely upstream response."""

    status = 504
    description = "The upstream server did not answer in time."


class HTTPVersionNotSupported(HTTPError):
    """505: the server does not support the request's major HTTP version."""

    status = 505
    description = "The HTTP version of the request is not supported."


_BY_STATUS: Final[dict[int, type[HTTPError]]] = {
    cls.status: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        NotAcceptable,
        RequestTimeout,
        Conflict,
        Gone,
        LengthRequired,
        PreconditionFailed,
        RequestEntityTooLarge,
        RequestURITooLong,
        UnsupportedMediaType,
        RequestedRangeNotSatisfiable,
        ExpectationFailed,
        ImATeapot,
        UnprocessableEntity,
        PreconditionRequired,
        TooManyRequests,
        RequestHeaderFieldsTooLarge,
        InternalServerError,
        NotImplemented,
        BadGateway,
        ServiceUnavailable,
        GatewayTimeout,
        HTTPVersionNotSupported,
    )
}
