"""The client's cookie jar: Set-Cookie parsing, storage and matching.

The jar follows the user agent side of RFC 6265 (§5.2 parsing, §5.3
storage, §5.4 the Cookie header), plus the RFC 6265bis rules browsers
apply today: Secure cookies come only from secure origins and cannot be
shadowed from insecure ones, the ``__Secure-`` and ``__Host-`` prefixes
are enforced, and Max-Age is capped at 400 days. It keeps no public
suffix list: every domain attribute the request host domain-matches is
accepted, which is what a test of a single application needs.

Expiry needs the current time; the testing package is an adapter, so it
may read the clock, and takes a ``clock`` callable so that tests need not.
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final
from urllib.parse import urlsplit

from sansio_http.http import parse_cookie
from sansio_http.http._cookies import dump_cookie

__all__ = ["Cookie", "CookieJar", "SetCookie", "parse_set_cookie"]

#: Schemes whose connections count as secure for the Secure attribute.
SECURE_SCHEMES: Final = frozenset({"https", "wss"})
# RFC 6265bis §5.6.2: user agents cap Max-Age and Expires at 400 days, as
# Chrome and Firefox do.
_MAX_LIFETIME: Final = 400 * 24 * 60 * 60

# RFC 6265 §5.1.1: the cookie-date algorithm splits on these delimiters and
# reads the tokens in any order; it accepts the dashed Netscape form
# ("Wed, 21-Oct-2015 07:28:00 GMT") that HTTP dates do not.
_DATE_DELIMITERS: Final = re.compile(r"[\x09\x20-\x2f\x3b-\x40\x5b-\x60\x7b-\x7e]+")
_TIME: Final = re.compile(r"(\d{1,2}):(\d{1,2}):(\d{1,2})(?!\d)")
_DAY: Final = re.compile(r"(\d{1,2})(?!\d)")
_YEAR: Final = re.compile(r"(\d{2,4})(?!\d)")
_MONTHS: Final = (
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
)
_MAX_AGE: Final = re.compile(r"-?\d+")


def parse_cookie_date(text: str) -> float | None:
    """Read a Set-Cookie ``Expires`` value as a POSIX timestamp.

    Args:
        text: The attribute value.

    Returns:
        The timestamp, or None when the value is not a date (RFC 6265
        §5.1.1 then ignores the attribute).
    """
    clock: tuple[int, int, int] | None = None
    day = month = year = None
    for token in _DATE_DELIMITERS.split(text):
        if clock is None and (found := _TIME.match(token)):
            clock = (int(found[1]), int(found[2]), int(found[3]))
        elif day is None and (found := _DAY.match(token)):
            day = int(found[1])
        elif month is None and token[:3].lower() in _MONTHS:
            month = _MONTHS.index(token[:3].lower()) + 1
        elif year is None and (found := _YEAR.match(token)):
            year = int(found[1])
    if clock is None or day is None or month is None or year is None:
        return None
    # RFC 6265 §5.1.1 step 3 and 4: two-digit years.
    if 70 <= year <= 99:
        year += 1900
    elif year <= 69:
        year += 2000
    hour, minute, second = clock
    if year < 1601 or hour > 23 or minute > 59 or second > 59:
        return None
    try:
        when = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:  # day 0, or a day the month does not have
        return None
    return when.timestamp()


@dataclass
class SetCookie:
    """One parsed Set-Cookie field, before the jar applies its rules."""

    name: str
    raw_value: str
    expires: float | None = None
    max_age: int | None = None
    domain: str | None = None
    path: str | None = None
    secure: bool = False
    http_only: bool = False
    same_site: str | None = None

    @property
    def value(self) -> str:
        """The value as the application meant it (quotes and escapes undone)."""
        return _decode(self.raw_value)


def parse_set_cookie(field: str) -> SetCookie | None:
    """Parse a Set-Cookie field value the way RFC 6265 §5.2 reads it.

    Args:
        field: The field value.

    Returns:
        The cookie and its attributes, or None when the field holds no
        ``name=value`` pair (the user agent then ignores it). Unknown or
        malformed attributes are skipped.
    """
    pair, *attributes = field.split(";")
    name, equals, raw_value = pair.partition("=")
    name = name.strip(" \t")
    if not equals or not name:
        return None
    cookie = SetCookie(name, raw_value.strip(" \t"))
    for attribute in attributes:
        key, _, value = attribute.partition("=")
        key = key.strip(" \t").lower()
        value = value.strip(" \t")
        if key == "expires":
            cookie.expires = parse_cookie_date(value)
        elif key == "max-age" and _MAX_AGE.fullmatch(value):
            cookie.max_age = int(value)
        elif key == "domain" and value:
            # RFC 6265 §5.2.3: a leading dot is ignored.
            cookie.domain = value.removeprefix(".").lower() or None
        elif key == "path":
            # RFC 6265 §5.2.4: an empty or relative path means the default path.
            cookie.path = value if value.startswith("/") else None
        elif key == "secure":
            cookie.secure = True
        elif key == "httponly":
            cookie.http_only = True
        elif key == "samesite":
            cookie.same_site = value
    return cookie


@dataclass
class Cookie:
    """A cookie kept by the jar.

    Attributes:
        name: The cookie name.
        value: The value as the application meant it (quotes and escapes undone).
        raw_value: The value exactly as it travels in Set-Cookie and Cookie.
        domain: The host, or the domain for a domain cookie.
        path: The path prefix the cookie is sent for.
        host_only: True when the cookie goes only to ``domain`` itself.
        secure: Sent only over https and wss.
        http_only: Set with HttpOnly (scripts would not see it).
        expires: When it expires, as a POSIX timestamp; None for a session cookie.
        same_site: The SameSite attribute as sent, or None.
    """

    name: str
    value: str
    raw_value: str
    domain: str
    path: str = "/"
    host_only: bool = True
    secure: bool = False
    http_only: bool = False
    expires: float | None = None
    same_site: str | None = None
    # The storage order, for RFC 6265 §5.4 step 2's "earlier creation first".
    created: int = 0


def _decode(raw_value: str) -> str:
    pairs = parse_cookie("x=" + raw_value)
    return pairs[0][1] if pairs else raw_value


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def domain_match(host: str, domain: str) -> bool:
    """Tell whether ``host`` domain-matches ``domain`` (RFC 6265 §5.1.3)."""
    return host == domain or (host.endswith("." + domain) and not _is_ip(host))


def path_match(request_path: str, cookie_path: str) -> bool:
    """Tell whether ``request_path`` path-matches ``cookie_path`` (RFC 6265 §5.1.4)."""
    if request_path == cookie_path:
        return True
    return request_path.startswith(cookie_path) and (
        cookie_path.endswith("/") or request_path[len(cookie_path)] == "/"
    )


def default_path(request_path: str) -> str:
    """Return the default cookie path for a request path (RFC 6265 §5.1.4)."""
    if not request_path.startswith("/") or request_path.count("/") == 1:
        return "/"
    return request_path[: request_path.rindex("/")]


def _origin(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.path or "/"


class CookieJar:
    """Cookies kept across requests, matched by domain, path, expiry and Secure.

    Args:
        clock: Return the current time as a POSIX timestamp; ``time.time``
            by default. Tests pass their own to move time on.

    Example:
        >>> jar = CookieJar(clock=lambda: 0.0)
        >>> jar.extract("http://testserver/a/b", ["sid=1", "theme=dark; Path=/"])
        >>> jar.header_for("http://testserver/a/c"), jar.header_for("http://testserver/")
        ('sid=1; theme=dark', 'theme=dark')
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._cookies: dict[tuple[str, str, str], Cookie] = {}
        self._created = 0

    def _live(self) -> list[Cookie]:
        now = self.clock()
        expired = [
            k for k, c in self._cookies.items() if c.expires is not None and c.expires <= now
        ]
        for key in expired:
            del self._cookies[key]
        return list(self._cookies.values())

    def __iter__(self) -> Iterator[Cookie]:
        return iter(self._live())

    def __len__(self) -> int:
        return len(self._live())

    def __repr__(self) -> str:
        return f"<CookieJar {[f'{c.name}={c.raw_value}' for c in self._live()]!r}>"

    def _select(self, name: str, domain: str | None, path: str | None) -> list[Cookie]:
        return [
            cookie
            for cookie in self._live()
            if cookie.name == name
            and (domain is None or cookie.domain == domain.lower().removeprefix("."))
            and (path is None or cookie.path == path)
        ]

    def get(
        self,
        name: str,
        default: str | None = None,
        *,
        domain: str | None = None,
        path: str | None = None,
    ) -> str | None:
        """Return the value of a stored cookie, or ``default``.

        Args:
            name: The cookie name.
            default: Returned when no cookie matches.
            domain: Only a cookie of this domain; any domain by default.
            path: Only a cookie of this path; any path by default.

        Returns:
            The decoded value of the first cookie stored with that name.
        """
        found = self._select(name, domain, path)
        return found[0].value if found else default

    def set(
        self,
        name: str,
        value: str,
        *,
        domain: str = "testserver",
        path: str = "/",
        secure: bool = False,
        http_only: bool = False,
        expires: float | datetime | None = None,
    ) -> None:
        """Store a cookie as if a response had set it.

        Args:
            name: The cookie name, an RFC 9110 token.
            value: The value; quoted on the wire when it needs to be.
            domain: The host it belongs to; a leading dot makes it a domain
                cookie, also sent to subdomains.
            path: The path prefix it is sent for.
            secure: Send it only over https and wss.
            http_only: Mark it HttpOnly.
            expires: When it expires: a timestamp or an aware datetime;
                None for a session cookie.

        Raises:
            ValueError: The name is not a token.
        """
        raw_value = dump_cookie(name, value, path=None).partition("=")[2]
        if isinstance(expires, datetime):
            expires = expires.timestamp()
        self._store(
            Cookie(
                name=name,
                value=value,
                raw_value=raw_value,
                domain=domain.lower().removeprefix("."),
                path=path,
                host_only=not domain.startswith("."),
                secure=secure,
                http_only=http_only,
                expires=expires,
            )
        )

    def delete(self, name: str, *, domain: str | None = None, path: str | None = None) -> None:
        """Remove the cookies of that name (restricted to a domain or path).

        Args:
            name: The cookie name.
            domain: Only the cookie of this domain.
            path: Only the cookie of this path.
        """
        for cookie in self._select(name, domain, path):
            del self._cookies[cookie.name, cookie.domain, cookie.path]

    def clear(self) -> None:
        """Remove every cookie."""
        self._cookies.clear()

    def _store(self, cookie: Cookie) -> None:
        key = (cookie.name, cookie.domain, cookie.path)
        old = self._cookies.pop(key, None)
        # RFC 6265 §5.3 step 11: a replaced cookie keeps its creation time.
        if old is not None:
            cookie.created = old.created
        else:
            self._created += 1
            cookie.created = self._created
        if cookie.expires is None or cookie.expires > self.clock():
            self._cookies[key] = cookie

    def extract(self, url: str, set_cookie: Iterable[str]) -> None:
        """Store the cookies a response to ``url`` set, applying RFC 6265 §5.3.

        Args:
            url: The URL of the request the response answered.
            set_cookie: The Set-Cookie field values of the response.
        """
        scheme, host, request_path = _origin(url)
        secure_origin = scheme in SECURE_SCHEMES
        for field in set_cookie:
            parsed = parse_set_cookie(field)
            if parsed is not None:
                self._extract_one(parsed, host, request_path, secure_origin)

    def _extract_one(
        self, parsed: SetCookie, host: str, request_path: str, secure_origin: bool
    ) -> None:
        now = self.clock()
        expires = parsed.expires
        if parsed.max_age is not None:
            # RFC 6265 §5.3 step 3: Max-Age wins over Expires; §5.2.2: zero or
            # less means "already expired".
            expires = now + parsed.max_age if parsed.max_age > 0 else float("-inf")
        if expires is not None:
            expires = min(expires, now + _MAX_LIFETIME)
        if parsed.domain is not None:
            # RFC 6265 §5.3 step 6: a Domain the host does not domain-match is refused.
            if not domain_match(host, parsed.domain):
                return
            domain, host_only = parsed.domain, False
        else:
            domain, host_only = host, True
        path = parsed.path or default_path(request_path)
        # RFC 6265bis §5.7 steps 8 and 16: Secure cookies come only from secure
        # origins, and an insecure origin cannot replace a Secure cookie.
        if parsed.secure and not secure_origin:
            return
        if not secure_origin and any(
            c.secure
            and c.name == parsed.name
            and (domain_match(domain, c.domain) or domain_match(c.domain, domain))
            and path_match(path, c.path)
            for c in self._live()
        ):
            return
        # RFC 6265bis §4.1.3: the name prefixes, matched without regard to case.
        prefix = parsed.name[:9].lower()
        if prefix.startswith(("__secure-", "__host-")) and not parsed.secure:
            return
        if prefix.startswith("__host-") and (not host_only or path != "/"):
            return
        self._store(
            Cookie(
                name=parsed.name,
                value=_decode(parsed.raw_value),
                raw_value=parsed.raw_value,
                domain=domain,
                path=path,
                host_only=host_only,
                secure=parsed.secure,
                http_only=parsed.http_only,
                expires=expires,
                same_site=parsed.same_site,
            )
        )

    def matching(self, url: str) -> list[Cookie]:
        """Return the cookies a request to ``url`` sends, in RFC 6265 §5.4 order.

        Args:
            url: The request URL.

        Returns:
            The cookies, those with longer paths first, then the older first.
        """
        scheme, host, path = _origin(url)
        found = [
            cookie
            for cookie in self._live()
            if (host == cookie.domain if cookie.host_only else domain_match(host, cookie.domain))
            and path_match(path, cookie.path)
            and (scheme in SECURE_SCHEMES or not cookie.secure)
        ]
        found.sort(key=lambda cookie: (-len(cookie.path), cookie.created))
        return found

    def header_for(self, url: str) -> str | None:
        """Return the Cookie header value for a request to ``url``.

        Args:
            url: The request URL.

        Returns:
            ``"name=value; ..."``, or None when no cookie applies.
        """
        cookies = self.matching(url)
        return "; ".join(f"{c.name}={c.raw_value}" for c in cookies) or None
