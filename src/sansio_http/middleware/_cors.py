"""``CORSMiddleware``: the server's side of the CORS protocol (Fetch standard §3.2).

A browser asks before a cross-origin request that is not "simple" with a
preflight (``OPTIONS`` with ``Access-Control-Request-Method``); the
middleware answers it without reaching the view. For the actual request it
adds the ``Access-Control-*`` fields that let the page read the response.
Every decision is a function of the request's ``Origin`` and the settings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar, Final

from sansio_http.app._middleware import Middleware, add_checked_fields, add_vary_field
from sansio_http.messages._response import Response

if TYPE_CHECKING:
    from sansio_http.messages._request import Request

__all__ = ["CORSMiddleware", "is_origin"]

# RFC 6454 §7.1 and the Fetch standard's serialisation of a tuple origin:
# scheme "://" host [":" port], no path, no userinfo, no trailing slash. A
# host is a DNS name, an IPv4 address or a bracketed IPv6 address.
_ORIGIN: Final = re.compile(
    r"[a-z][a-z0-9+.\-]*://"
    r"(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?)*)"
    r"(?::[0-9]{1,5})?",
    re.ASCII | re.IGNORECASE,
)
# Fetch standard §2.2.1 (CORS-safelisted method): they need no preflight.
_SAFELISTED_METHODS: Final = ("GET", "HEAD", "POST")
# Fetch standard §2.2.2 (CORS-safelisted request-header): these names are safe
# with some values only, so a browser lists them in a preflight's
# Access-Control-Request-Headers when the value is another one, such as
# Content-Type: application/json. They are always allowed, whatever
# allow_headers says: a JSON POST must not need a setting. Range is left out:
# the standard safelists it for a single plain byte range only, so allowing
# any Range stays the application's choice.
_SAFELISTED_HEADERS: Final = frozenset(
    {"accept", "accept-language", "content-language", "content-type"}
)
# RFC 9110 §5.6.2: a field name (and a method) is a token.
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_ALLOW_ANY: Final = (b"access-control-allow-origin", b"*")
_ALLOW_CREDENTIALS: Final = (b"access-control-allow-credentials", b"true")
_VARY_ORIGIN: Final = (b"vary", b"Origin")

OriginMatcher = Callable[[str], bool]

# The allowed preflights whose answers are kept: a page makes a few kinds of
# requests, from one origin or a few; 256 covers many pages and stays small.
_MAX_ANSWERED: Final = 256


def is_origin(value: str) -> bool:
    """Tell whether a string is a serialised origin, as browsers send it.

    ``"null"`` (an opaque origin: a sandboxed frame, a ``file:`` page) counts
    as one. A path, a trailing slash, userinfo, several origins or
    characters outside ASCII do not.

    Args:
        value: An ``Origin`` header value.
    """
    return value == "null" or _ORIGIN.fullmatch(value) is not None


def _tokens(values: Iterable[str] | str, what: str) -> tuple[str, ...]:
    items = (values,) if isinstance(values, str) else tuple(values)
    for item in items:
        if item != "*" and _TOKEN.fullmatch(item) is None:
            raise ValueError(f"{what} {item!r} is not an HTTP token")
    return items


class CORSMiddleware(Middleware):
    """Answer CORS preflights and mark responses readable by allowed origins.

    The outcome for each request:

    - **No Origin:** not a CORS request; the response is left alone, except
      for ``Vary: Origin`` when the answer depends on the origin (anything
      but ``allow_origins="*"``), so that caches keep the answers apart.
    - **Preflight** (``OPTIONS`` with ``Origin`` and
      ``Access-Control-Request-Method``): answered here with 204 and the
      allowed methods, headers and max age when the origin, the method and
      every requested header are allowed; with 403 and no CORS fields
      otherwise, which the browser reports as a failed request.
    - **Actual request from an allowed origin:** the response gets
      ``Access-Control-Allow-Origin`` (the origin, or ``*``),
      ``Access-Control-Allow-Credentials`` and
      ``Access-Control-Expose-Headers`` as configured.
    - **Disallowed or malformed Origin** (see :func:`is_origin`): the view
      answers as usual without CORS fields, so the browser hides the
      response from the page. A malformed value never reaches a regex or a
      callable, and never matches a list. With ``allow_origins="*"`` any
      Origin, malformed too, gets ``*``: nothing of it is echoed.

    Args:
        allow_origins: Who may read responses: ``"*"`` for everyone (never
            with credentials), an iterable of origins such as
            ``"https://app.example"`` (compared case-insensitively), a
            compiled regex that must match the whole origin, or a callable
            taking the origin and returning whether it is allowed. List
            ``"null"`` only knowingly: any sandboxed page sends it.
        allow_methods: The methods a preflight may ask for, or ``"*"`` for
            any; the safelisted GET, HEAD and POST by default.
        allow_headers: The request header fields a preflight may ask for,
            or ``"*"`` for any. The CORS-safelisted names (``Accept``,
            ``Accept-Language``, ``Content-Language`` and ``Content-Type``,
            with any value) are always allowed and need no listing; a
            preflight's answer names those it asked for beside the listed
            ones.
        allow_credentials: Let pages send cookies and read the answers
            (``Access-Control-Allow-Credentials: true``).
        expose_headers: Response header fields the page may read beyond the
            safelisted ones.
        max_age: How long, in seconds, a browser may cache a preflight's
            answer; 600 is Chromium's cap for years (now 7200), short enough
            that a change of settings reaches browsers soon.

    Raises:
        ValueError: ``"*"`` with credentials anywhere it would apply, a
            listed origin that is not one (such as a trailing slash), or a
            method or header name that is not an HTTP token.
    """

    blocking: ClassVar[bool] = False

    def __init__(
        self,
        allow_origins: str | Iterable[str] | re.Pattern[str] | OriginMatcher = (),
        *,
        allow_methods: Iterable[str] | str = _SAFELISTED_METHODS,
        allow_headers: Iterable[str] | str = (),
        allow_credentials: bool = False,
        expose_headers: Iterable[str] = (),
        max_age: int = 600,
    ) -> None:
        self.allow_all = allow_origins == "*"
        self._origins: frozenset[str] = frozenset()
        self._matcher: OriginMatcher | None = None
        self._cacheable = True
        self._answered: dict[tuple[str, str, str | None], list[tuple[bytes, bytes]]] = {}
        if isinstance(allow_origins, re.Pattern):
            self._matcher = allow_origins.fullmatch  # type: ignore[assignment]
        elif callable(allow_origins):
            self._matcher = allow_origins
            self._cacheable = False
        elif not self.allow_all:
            origins = (allow_origins,) if isinstance(allow_origins, str) else allow_origins
            for origin in origins:
                if not is_origin(origin):
                    raise ValueError(
                        f"{origin!r} is not an origin: write scheme://host[:port], "
                        "without a path or a trailing slash"
                    )
            self._origins = frozenset(origin.lower() for origin in origins)
        methods = _tokens(allow_methods, "method")
        headers = _tokens(allow_headers, "header field")
        exposed = _tokens(expose_headers, "header field")
        # Fetch standard §3.2.3: with credentials, "*" is not a wildcard but
        # a literal value, so the browser would refuse every answer.
        if allow_credentials and self.allow_all:
            raise ValueError(
                "allow_origins='*' cannot be combined with allow_credentials=True: list "
                "the origins, or pass a regex or a callable"
            )
        if allow_credentials and "*" in exposed:
            raise ValueError("expose_headers='*' cannot be combined with allow_credentials=True")
        if max_age < 0:
            raise ValueError("max_age cannot be negative")
        self.any_method = "*" in methods
        self.any_header = "*" in headers
        self.allow_methods = frozenset(method.upper() for method in methods)
        self.allow_headers = frozenset(header.lower() for header in headers)
        self.allow_credentials = allow_credentials
        self.max_age = max_age
        self._headers_value = ", ".join(sorted(self.allow_headers))
        # PERF: the fields that do not depend on the request, encoded once.
        self._preflight_fields: list[tuple[bytes, bytes]] = [
            (b"access-control-max-age", str(max_age).encode("ascii"))
        ]
        if not self.any_method:
            methods_value = ", ".join(sorted(self.allow_methods)) or "GET"
            self._preflight_fields.append(
                (b"access-control-allow-methods", methods_value.encode("ascii"))
            )
        self._exposed_fields: list[tuple[bytes, bytes]] = (
            [(b"access-control-expose-headers", ", ".join(exposed).encode("ascii"))]
            if exposed
            else []
        )

    def allows_origin(self, origin: str) -> bool:
        """Tell whether an ``Origin`` value may read responses.

        Args:
            origin: The header value as sent.

        Returns:
            True for an allowed, well-formed origin (any value if
            ``allow_origins="*"``); False otherwise. Never raises for any
            ``str``.
        """
        if self.allow_all:
            return True
        matcher = self._matcher
        if matcher is None:
            # PERF: the listed origins are well-formed, so a match is too; only
            # ASCII is compared, since str.lower() folds some other letters to
            # ASCII ones (the Kelvin sign to "k").
            return origin.isascii() and origin.lower() in self._origins
        return is_origin(origin) and bool(matcher(origin))

    def process_request(self, request: Request) -> Response | None:
        """Answer a preflight request; let any other request through."""
        if request.method != "OPTIONS":
            return None
        headers = request.headers
        origin = headers.get("origin")
        method = headers.get("access-control-request-method")
        if origin is None or method is None:
            return None  # a plain OPTIONS request, for the App to answer
        # Fetch standard §4.8: a browser sends the requested fields as one
        # comma-separated Access-Control-Request-Headers field.
        requested = headers.get("access-control-request-headers")
        fields = self._answered.get((origin, method, requested))
        if fields is not None:
            response = Response(b"", status=204)
            add_checked_fields(response, fields)
            return response
        return self._preflight(origin, method, requested)

    def _preflight(self, origin: str, method: str, requested: str | None) -> Response:
        names: list[str] = []
        headers_allowed = True
        if requested:
            names = [name.strip().lower() for name in requested.split(",") if name.strip()]
            headers_allowed = (
                all(_TOKEN.fullmatch(name) for name in names)
                if self.any_header
                else all(
                    name in self.allow_headers or name in _SAFELISTED_HEADERS for name in names
                )
            )
        allowed = (
            headers_allowed
            and self.allows_origin(origin)
            and (self.any_method or method in self.allow_methods or method in _SAFELISTED_METHODS)
            and _TOKEN.fullmatch(method) is not None
        )
        if not allowed:
            response = Response("CORS preflight refused\n", status=403)
            if not self.allow_all:
                add_vary_field(response, b"Origin")
            return response
        response = Response(b"", status=204)
        # Every value below is a checked token, a number or a well-formed
        # origin (ASCII without CR, LF or NUL), so it goes in unchecked.
        fields = [*self._origin_fields(origin), *self._preflight_fields]
        if self.any_method:
            # Fetch standard §3.2.3: "*" is literal with credentials, so echo
            # what was asked for instead; it was checked above.
            fields.append((b"access-control-allow-methods", method.encode("ascii")))
        if names:
            value = ", ".join(names) if self.any_header else self._allowed_headers_value(names)
            fields.append((b"access-control-allow-headers", value.encode("ascii")))
        # PERF: a browser repeats the same few preflights; their fields are
        # kept, at most _MAX_ANSWERED of them, unless a callable decides
        # (its answer may change over time).
        if self._cacheable and len(self._answered) < _MAX_ANSWERED:
            self._answered[origin, method, requested] = fields.copy()
        add_checked_fields(response, fields)
        return response

    def _allowed_headers_value(self, names: list[str]) -> str:
        # The configured names, and the safelisted ones this preflight asked
        # for: an answer for configured names stays what it was.
        asked = _SAFELISTED_HEADERS.intersection(names) - self.allow_headers
        if not asked:
            return self._headers_value
        return ", ".join(sorted(self.allow_headers | asked))

    def _origin_fields(self, origin: str) -> list[tuple[bytes, bytes]]:
        if self.allow_all:
            return [_ALLOW_ANY]
        fields = [(b"access-control-allow-origin", origin.encode("ascii")), _VARY_ORIGIN]
        if self.allow_credentials:
            fields.append(_ALLOW_CREDENTIALS)
        return fields

    def process_response(self, request: Request, response: Response) -> Response:
        """Add the CORS fields of an actual request's response."""
        origin = request.headers.get("origin")
        if origin is None or not self.allows_origin(origin):
            if not self.allow_all:
                add_vary_field(response, b"Origin")
            return response
        if self.allow_all:
            add_checked_fields(response, [_ALLOW_ANY, *self._exposed_fields])
            return response
        add_vary_field(response, b"Origin")
        fields = [(b"access-control-allow-origin", origin.encode("ascii"))]
        if self.allow_credentials:
            fields.append(_ALLOW_CREDENTIALS)
        add_checked_fields(response, [*fields, *self._exposed_fields])
        return response
