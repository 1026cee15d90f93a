"""The methods of a Response that write its header fields.

Cookies (``Set-Cookie``), validators (``ETag``, ``Last-Modified``) and the
typed ``Cache-Control``: each reads and writes :attr:`Response.headers` only
(``add_etag`` reads the body too). :class:`~sansio_http.Response` inherits
them; they live here so that the response module holds the message itself.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sansio_http.http import (
    ResponseCacheControl,
    http_date,
    parse_date,
    quote_etag,
    unquote_etag,
)
from sansio_http.http._cookies import EPOCH, SameSite, dump_cookie
from sansio_http.messages._cache_control import parsed_cache_control, write_cache_control
from sansio_http.messages._response_fields import has_no_length

if TYPE_CHECKING:
    from collections.abc import AsyncIterable, Iterable

    from sansio_http.http._headers import MutableHeaders
    from sansio_http.messages._files import FileBody

__all__: list[str] = []


class _HeaderMethods:
    """Cookies, validators and caching, for :class:`~sansio_http.Response`."""

    __slots__ = ()

    # What the methods read of the Response.
    _status: int
    _body: bytes | Iterable[bytes | str] | AsyncIterable[bytes | str] | FileBody

    @property
    def headers(self) -> MutableHeaders:
        """The header fields (the Response's own property)."""
        raise NotImplementedError

    def set_cookie(
        self,
        key: str,
        value: str = "",
        *,
        max_age: int | timedelta | None = None,
        expires: datetime | float | None = None,
        path: str | None = "/",
        domain: str | None = None,
        secure: bool = False,
        httponly: bool = False,
        samesite: SameSite | None = None,
        partitioned: bool = False,
    ) -> None:
        """Add a Set-Cookie field; see :func:`~sansio_http.dump_cookie`.

        Args:
            key: The cookie name, an RFC 9110 token.
            value: The cookie value; quoted with escapes if it needs to be.
            max_age: Seconds until the cookie expires, sent as Max-Age only
                (an Expires date for it would need the current time).
            expires: When it expires: a ``datetime`` or a POSIX timestamp.
            path: The path it applies to; ``None`` omits the attribute.
            domain: The domain it applies to; ``None`` keeps it to this host.
            secure: Send it over HTTPS only.
            httponly: Hide it from scripts.
            samesite: ``"Strict"``, ``"Lax"`` or ``"None"`` (needs ``secure``).
            partitioned: Partition it by top-level site (needs ``secure``).

        Raises:
            ValueError: The cookie or an attribute is invalid.
        """
        self.headers.add(
            "set-cookie",
            dump_cookie(
                key,
                value,
                max_age=max_age,
                expires=expires,
                path=path,
                domain=domain,
                secure=secure,
                httponly=httponly,
                samesite=samesite,
                partitioned=partitioned,
            ),
        )

    def delete_cookie(
        self,
        key: str,
        *,
        path: str | None = "/",
        domain: str | None = None,
        secure: bool = False,
        httponly: bool = False,
        samesite: SameSite | None = None,
        partitioned: bool = False,
    ) -> None:
        """Add a Set-Cookie field that makes the client drop a cookie.

        A browser replaces a cookie only when name, path and domain (and the
        partition) match, so pass the values the cookie was set with.

        Args:
            key: The cookie name.
            path: The path the cookie was set for.
            domain: The domain the cookie was set for.
            secure: Whether the cookie was Secure (a ``__Secure-`` or
                ``__Host-`` cookie must be).
            httponly: Whether the cookie was HttpOnly.
            samesite: The cookie's SameSite value.
            partitioned: Whether the cookie was Partitioned.

        Raises:
            ValueError: The name or an attribute is invalid.
        """
        # Max-Age=0 expires it at once (RFC 6265 §5.2.2); Expires at the epoch does the
        # same for clients that predate Max-Age, without reading a clock.
        self.set_cookie(
            key,
            max_age=0,
            expires=EPOCH,
            path=path,
            domain=domain,
            secure=secure,
            httponly=httponly,
            samesite=samesite,
            partitioned=partitioned,
        )

    # -- validators ---------------------------------------------------------------------

    @property
    def etag(self) -> tuple[str | None, bool]:
        """The ETag as ``(tag, is_weak)``; ``(None, False)`` when there is none."""
        return unquote_etag(self.headers.get("etag"))

    def set_etag(self, etag: str, weak: bool = False) -> None:
        """Set the ETag header from an unquoted entity tag.

        Args:
            etag: The opaque tag, without quotes or ``W/``.
            weak: Mark the tag weak (RFC 9110 §8.8.1).

        Raises:
            ValueError: The tag holds a double quote, a space or a control
                character, which RFC 9110 §8.8.3 does not allow.
        """
        self.headers["etag"] = quote_etag(etag, weak)

    def add_etag(self, *, overwrite: bool = False) -> None:
        """Set a strong ETag computed from the body, unless one is set.

        The tag is the first 128 bits of the SHA-256 hash of the body, in
        base64url: it changes whenever a byte of the body does, so it is a
        strong validator (RFC 9110 §8.8.1), and the same body gets the same
        tag in every process. Call it before
        :meth:`make_conditional`.

        Args:
            overwrite: Replace an ETag already set; by default it is kept.

        Raises:
            TypeError: The body is streamed or a
                :class:`~sansio_http.FileBody`: it is not in memory to hash.
                A file response gets its ETag from its size and mtime; set a
                stream's with :meth:`set_etag`.
            ValueError: The status is 1xx, 204 or 304, whose empty body is
                not the representation the tag would stand for.
        """
        body = self._body
        if not isinstance(body, bytes):
            raise TypeError(
                f"add_etag() hashes a body in memory, not a {type(body).__name__}: "
                "set the ETag of a streamed or file body with set_etag()"
            )
        if has_no_length(self._status):
            raise ValueError(
                f"a {self._status} response has no body to hash: "
                "set the ETag of the representation with set_etag()"
            )
        if not overwrite and "etag" in self.headers:
            return
        digest = hashlib.sha256(body).digest()[:16]
        self.headers["etag"] = quote_etag(base64.urlsafe_b64encode(digest).decode().rstrip("="))

    @property
    def cache_control(self) -> ResponseCacheControl:
        """The Cache-Control directives, typed; changes are written back at once.

        Reading it parses the header (RFC 9111 §5.2.2) into a
        :class:`~sansio_http.http.ResponseCacheControl`. Each change to it,
        an attribute set or a change to its ``extensions`` or to a list of
        field names, rewrites the header as one field; a change that leaves
        no directive removes it. Assign a ``ResponseCacheControl`` to replace
        them all, or ``None`` to remove the header.

        Durations must be ints of at least 0 and flags bools (``TypeError``
        or ``ValueError`` otherwise); field names and extension names must be
        RFC 9110 tokens.

        Example:
            >>> response = Response("hello")
            >>> response.cache_control.max_age = 60
            >>> response.cache_control.public = True
            >>> response.headers["cache-control"]
            'max-age=60, public'
        """
        return parsed_cache_control(self.headers)

    @cache_control.setter
    def cache_control(self, value: ResponseCacheControl | None) -> None:
        if value is None:
            self.headers.remove("cache-control")
            return
        if not isinstance(value, ResponseCacheControl):
            raise TypeError(
                f"cache_control takes a ResponseCacheControl or None, not {type(value).__name__}"
            )
        write_cache_control(value, self.headers)

    @property
    def last_modified(self) -> datetime | None:
        """The Last-Modified date, aware in UTC; set a datetime, timestamp or None.

        A naive datetime is taken as UTC; ``None`` removes the header, as does
        reading an unparsable date as ``None``.
        """
        value = self.headers.get("last-modified")
        return None if value is None else parse_date(value)

    @last_modified.setter
    def last_modified(self, value: datetime | float | None) -> None:
        if value is None:
            self.headers.remove("last-modified")
            return
        self.headers["last-modified"] = http_date(value)
