"""The sans-IO ``Request``: a request's head as values, parsed on demand.

This module holds :class:`Request` and the host and URL rules it applies:
validating the ``Host`` header, matching it against ``trusted_hosts`` and
rebuilding the request URL. Header grammars live in :mod:`sansio_http.http`;
the proxy trust policy lives in :mod:`sansio_http.messages._proxy`. A request never
holds a body and never performs I/O: the adapters add bodies in subclasses.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import datetime
from typing import Any, Final, Generic, TypedDict, TypeVar, overload

from typing_extensions import Self, Unpack

from sansio_http.http import (
    Authorization,
    CharsetAccept,
    EncodingAccept,
    ETags,
    IfRange,
    LanguageAccept,
    MIMEAccept,
    Range,
    RequestCacheControl,
    parse_accept_header,
    parse_authorization,
    parse_cache_control,
    parse_cookie,
    parse_date,
    parse_etags,
    parse_forwarded,
    parse_if_range,
    parse_list_header,
    parse_options_header,
    parse_range,
)
from sansio_http.http._headers import Headers
from sansio_http.http._hosts import find_host, node_address, trusted_host
from sansio_http.http._multidict import ImmutableMultiDict
from sansio_http.http._urlencoded import parse_urlencoded
from sansio_http.http._urls import quote_path, quote_query
from sansio_http.messages._errors import BadRequest, BadRequestKeyError, UntrustedHost
from sansio_http.messages._events import parse_last_event_id
from sansio_http.messages._length import parse_content_length
from sansio_http.messages._state import State

__all__ = ["RAISE_EXCEPTIONS", "Request", "TransportValue"]

T = TypeVar("T")

HeadersInput = (
    Headers | Iterable[tuple[bytes, bytes]] | Iterable[tuple[str, str]] | Mapping[str, str]
)


class _cached(functools.cached_property[T]):
    """Compute an attribute on first access and store it on the instance."""

    # PERF: functools.cached_property takes a lock on every first access before
    # Python 3.12. This non-data descriptor writes straight to the instance
    # ``__dict__``; later reads never reach it, since the dict entry wins.
    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type[Any] | None = None) -> T | Self:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.attrname] = value  # type: ignore[index]
        return value


class _RequestMultiDict(ImmutableMultiDict[str, str]):
    """The query arguments or cookies of a request, where an absent key is a 400."""

    __slots__ = ()

    # NOTE: a view that indexes a field the client left out gets an error that is both a
    # KeyError and a 400, so it answers 400 naming the key, as Flask does, not 500.
    key_error = BadRequestKeyError


R = TypeVar("R")

#: The name by which a caller of an application, a test client, asks for the
#: exceptions a view leaves unhandled, raised rather than answered with a 500:
#: a WSGI environ key, or an ASGI scope extension. A server never sets it.
RAISE_EXCEPTIONS: Final = "sansio_http.raise_exceptions"


class TransportValue(Generic[R, T]):
    """A constructor value of a request that an adapter reads on first access.

    An adapter's request class that does not read every value of the head
    in its constructor (PERF: routing needs the method and the path only)
    declares the others with this, each read from the transport by ``read``
    and stored on the instance. A non-data descriptor: the stored value wins
    from then on, and :meth:`Request.replace` keeps it, or the value that
    replaced it, as it keeps a value set by the constructor.

    Args:
        read: Returns the value for a request.
    """

    __slots__ = ("name", "read")

    def __init__(self, read: Callable[[R], T]) -> None:
        self.read = read
        self.name = ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> Self: ...

    @overload
    def __get__(self, instance: R, owner: type[Any] | None = None) -> T: ...

    def __get__(self, instance: R | None, owner: type[Any] | None = None) -> T | Self:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.read(instance)
        return value


class _Changes(TypedDict, total=False):
    """The constructor arguments :meth:`Request.replace` may change."""

    method: str
    path: str
    query_string: bytes
    headers: HeadersInput
    scheme: str
    remote_addr: str | None
    root_path: str
    server: tuple[str, int | None] | None
    trusted_hosts: Collection[str] | None


_SECURE_SCHEMES = frozenset({"https", "wss"})
# Max-Forwards is 1*DIGIT (RFC 9110 §7.6.2); no sender means more than
# 2**63 - 1 hops, and refusing longer strings keeps ``int()`` cheap.
# Content-Length has its own parser, shared with the adapters (_head.py).
_MAX_INT_DIGITS = 19
_MAX_INT = 2**63 - 1


def _ascii_int(value: str | None) -> int | None:
    """Return the 1*DIGIT value as an int, or None when absent or invalid."""
    if value is None:
        return None
    value = value.strip(" \t")
    if not (value.isascii() and value.isdigit()) or len(value.lstrip("0")) > _MAX_INT_DIGITS:
        return None
    number = int(value)
    return number if number <= _MAX_INT else None


def _normalize_path(path: str) -> str:
    return path if path[:1] == "/" else "/" + path


def _normalize_root_path(root_path: str) -> str:
    root_path = root_path.rstrip("/")
    return root_path if not root_path or root_path[0] == "/" else "/" + root_path


class Request:
    """An HTTP request's method, target, headers and connection facts.

    The constructor stores the values an adapter read from its transport;
    every other attribute is parsed from them on first access and cached.
    Parsed header attributes never raise on malformed values: they give
    None or an empty result instead. The only error a request raises on
    client input is :class:`~sansio_http.UntrustedHost`, from :attr:`host`
    and the URLs built from it, when :attr:`trusted_hosts` is set.

    Subclasses may add bodies and transport state; :meth:`replace` keeps
    their instance attributes and drops every cached value.

    Args:
        method: The request method; stored upper-cased.
        path: The percent-decoded path below ``root_path``; a missing
            leading ``/`` is added, so that no URL built from the request
            can change its host. The target is not checked here: a transport
            refuses one that is not a path first, with
            :func:`~sansio_http.check_head` (400), as the adapters do.
        query_string: The raw bytes after ``?``, without the ``?``.
        headers: A :class:`~sansio_http.Headers`, or anything it accepts
            (ASGI raw pairs are kept by reference, not copied).
        scheme: ``http``, ``https``, ``ws`` or ``wss``, as the adapter saw it.
        remote_addr: The peer's address, or None when unknown (Unix sockets).
        root_path: The path the application is mounted under; a trailing
            ``/`` is removed.
        server: The server's ``(host, port)``, or ``(path, None)`` for a
            Unix socket; used for :attr:`host` when there is no Host header.
        trusted_hosts: Overrides the class's :attr:`trusted_hosts` when
            given.
    """

    #: Host names :attr:`host` accepts, or None to accept any well-formed
    #: host. A name starting with ``.`` also matches every subdomain. Set it
    #: on a subclass, or per request through the constructor. An empty
    #: collection trusts no host at all.
    trusted_hosts: Collection[str] | None = None

    #: Whether an :class:`~sansio_http.App` raises an exception that no
    #: error handler takes, instead of answering it with a 500. The adapters'
    #: requests are True when a test client asks for it (their
    #: :data:`RAISE_EXCEPTIONS` environ key or scope extension).
    propagate_exceptions: bool = False

    method: str
    path: str
    query_string: bytes
    headers: Headers
    scheme: str
    remote_addr: str | None
    root_path: str
    server: tuple[str, int | None] | None

    def __init__(
        self,
        method: str,
        path: str,
        query_string: bytes,
        headers: HeadersInput,
        scheme: str,
        remote_addr: str | None,
        root_path: str,
        server: tuple[str, int | None] | None = None,
        *,
        trusted_hosts: Collection[str] | None = None,
    ) -> None:
        # PERF: only cheap normalisation here, inlined (one call costs as much
        # as the test); everything else waits for the first access. Headers
        # keeps ASGI raw pairs by reference.
        self.method = method.upper()
        self.path = path if path[:1] == "/" else "/" + path
        self.query_string = query_string
        self.headers = headers if isinstance(headers, Headers) else Headers(headers)
        self.scheme = scheme
        self.remote_addr = remote_addr
        self.root_path = _normalize_root_path(root_path) if root_path else ""
        self.server = server
        if trusted_hosts is not None:
            self.trusted_hosts = trusted_hosts

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.method} {self.full_path!r}>"

    @_cached
    def state(self) -> State:
        """This request's own scratch space, empty at first.

        Set values as attributes or items (``request.state.user = user``);
        hooks, the view and error handlers of one request share them, and
        :meth:`replace` keeps them. Inside an App, ``sansio_http.g`` is the
        same object.
        """
        return State()

    def replace(self, **changes: Unpack[_Changes]) -> Self:
        """Return a copy of this request with some constructor values changed.

        The copy keeps the instance attributes of subclasses (such as a body
        stream) and recomputes every cached attribute from the new values.

        Args:
            **changes: New values for any of the constructor's arguments,
                normalised as the constructor does; ``trusted_hosts=None``
                returns to the class's setting.

        Returns:
            A new request of the same class.

        Raises:
            TypeError: A name is not one of the constructor's arguments.
        """
        unknown = changes.keys() - _Changes.__annotations__.keys()
        if unknown:
            raise TypeError(f"replace() got unexpected arguments: {sorted(unknown)}")
        # copy.copy keeps a subclass's own state, __slots__ included, and
        # honours a __copy__ it may define.
        new = copy.copy(self)
        state = new.__dict__
        for klass in type(self).__mro__:
            for name, value in vars(klass).items():
                # The request's own state is not derived from the values:
                # the copy shares it.
                if isinstance(value, functools.cached_property) and name != "state":
                    state.pop(name, None)
        state.update(changes)
        if "method" in changes:
            new.method = changes["method"].upper()
        if "path" in changes:
            new.path = _normalize_path(changes["path"])
        if "root_path" in changes:
            new.root_path = _normalize_root_path(changes["root_path"])
        if "headers" in changes:
            headers = changes["headers"]
            new.headers = headers if isinstance(headers, Headers) else Headers(headers)
        if "trusted_hosts" in changes and changes["trusted_hosts"] is None:
            # As in the constructor, None means "the class's setting".
            del state["trusted_hosts"]
        return new

    # -- the URL ------------------------------------------------------------

    @_cached
    def host(self) -> str:
        """The lower-cased ``host[:port]`` the request was sent to.

        Taken from the Host header, else from :attr:`server`, without the
        scheme's default port; ``""`` when neither gives a well-formed host.
        A malformed Host header (RFC 3986 §3.2.2) is ignored, so the value
        never holds spaces, CR or LF.

        Raises:
            UntrustedHost: :attr:`trusted_hosts` is set and the host, or a
                malformed Host header, is not in it.
        """
        trusted = self.trusted_hosts
        if trusted is None:
            return find_host(self.headers, self.server, self.scheme)
        host = trusted_host(self.headers, self.server, self.scheme, trusted)
        if host is None:
            raise UntrustedHost()
        return host

    @_cached
    def full_path(self) -> str:
        """The percent-encoded path and, after ``?``, the query string."""
        path = quote_path(self.path)
        return f"{path}?{quote_query(self.query_string)}" if self.query_string else path

    @_cached
    def root_url(self) -> str:
        """The URL the application is mounted at, ending with ``/``."""
        return f"{self.scheme}://{self.host}{quote_path(self.root_path)}/"

    @_cached
    def base_url(self) -> str:
        """The request URL without its query string."""
        return f"{self.scheme}://{self.host}{quote_path(self.root_path + self.path)}"

    @_cached
    def url(self) -> str:
        """The full request URL, percent-encoded (an RFC 3986 URI)."""
        if self.query_string:
            return f"{self.base_url}?{quote_query(self.query_string)}"
        return self.base_url

    @_cached
    def is_secure(self) -> bool:
        """Whether the request came over TLS (``https`` or ``wss``)."""
        return self.scheme in _SECURE_SCHEMES

    @_cached
    def args(self) -> ImmutableMultiDict[str, str]:
        """The query string's parameters, in order, with repeated keys kept.

        ``args[key]`` raises :class:`~sansio_http.BadRequestKeyError` (a ``KeyError``
        and a 400) for a key the query string lacks; ``get()`` and ``in`` never raise.
        """
        return _RequestMultiDict(parse_urlencoded(self.query_string))

    # -- the connection -----------------------------------------------------

    @_cached
    def access_route(self) -> list[str]:
        """The client addresses the request claims to come through.

        The ``for`` nodes of the Forwarded header (RFC 7239), else the
        X-Forwarded-For list, client first, with brackets and ports removed
        from IP addresses; ``[remote_addr]`` when neither header is sent.
        Any client can write these headers: use
        :class:`~sansio_http.ProxyPolicy` to decide which entries to trust.
        """
        forwarded = self.headers.get_joined("forwarded")
        if forwarded:
            nodes = [element["for"] for element in parse_forwarded(forwarded) if "for" in element]
        else:
            x_for = self.headers.get_joined("x-forwarded-for")
            nodes = [node.strip() for node in x_for.split(",")] if x_for else []
        if nodes:
            return [node_address(node) or node for node in nodes if node]
        return [self.remote_addr] if self.remote_addr else []

    # -- the body's description ---------------------------------------------

    @_cached
    def content_type(self) -> str | None:
        """The Content-Type header as sent, or None."""
        return self.headers.get("content-type")

    @_cached
    def _parsed_content_type(self) -> tuple[str, dict[str, str]]:
        return parse_options_header(self.content_type)

    @_cached
    def mimetype(self) -> str:
        """The lower-cased media type of the body, ``""`` when not given."""
        return self._parsed_content_type[0]

    @_cached
    def mimetype_params(self) -> dict[str, str]:
        """The Content-Type parameters, such as ``charset``, by lower-case name."""
        return self._parsed_content_type[1]

    @_cached
    def is_json(self) -> bool:
        """Whether the body is JSON: ``application/json`` or ``*/*+json``."""
        mimetype = self.mimetype
        return mimetype == "application/json" or (
            mimetype.startswith("application/") and mimetype.endswith("+json")
        )

    @_cached
    def content_length(self) -> int | None:
        """The Content-Length as an int; None when absent or invalid.

        Repeated or comma-separated copies of one value count as that value
        (RFC 9110 §8.6); differing values, signs and non-digits are invalid.
        A value of 2**63 or more reads as 2**63, so that it exceeds every
        limit instead of looking like no length at all. The adapters refuse
        an invalid value (400) before the application runs.
        """
        try:
            return parse_content_length(self.headers.getlist("content-length"))
        except BadRequest:
            return None

    # -- content negotiation ------------------------------------------------

    @_cached
    def accept_mimetypes(self) -> MIMEAccept:
        """The Accept header's media types, with their qualities."""
        return parse_accept_header(self.headers.get_joined("accept"), MIMEAccept)

    @_cached
    def accept_languages(self) -> LanguageAccept:
        """The Accept-Language header's languages, with their qualities."""
        return parse_accept_header(self.headers.get_joined("accept-language"), LanguageAccept)

    @_cached
    def accept_encodings(self) -> EncodingAccept:
        """The Accept-Encoding header's codings, with their qualities."""
        # NOTE: None when absent, not "": an empty Accept-Encoding means identity only.
        return parse_accept_header(self.headers.get_joined("accept-encoding"), EncodingAccept)

    @_cached
    def accept_charsets(self) -> CharsetAccept:
        """The Accept-Charset header's charsets, with their qualities."""
        return parse_accept_header(self.headers.get_joined("accept-charset"), CharsetAccept)

    # -- conditional requests -----------------------------------------------

    @_cached
    def if_match(self) -> ETags:
        """The If-Match entity tags; empty when the header is absent."""
        return parse_etags(self.headers.get_joined("if-match"))

    @_cached
    def if_none_match(self) -> ETags:
        """The If-None-Match entity tags; empty when the header is absent."""
        return parse_etags(self.headers.get_joined("if-none-match"))

    @_cached
    def if_modified_since(self) -> datetime | None:
        """The If-Modified-Since date (aware, UTC), or None."""
        return parse_date(self.headers.get("if-modified-since"))

    @_cached
    def if_unmodified_since(self) -> datetime | None:
        """The If-Unmodified-Since date (aware, UTC), or None."""
        return parse_date(self.headers.get("if-unmodified-since"))

    @_cached
    def if_range(self) -> IfRange:
        """The If-Range entity tag or date; all None when absent."""
        return parse_if_range(self.headers.get("if-range"))

    @_cached
    def range(self) -> Range | None:
        """The requested byte ranges, or None when absent or malformed."""
        return parse_range(self.headers.get("range"))

    # -- other request headers ----------------------------------------------

    @_cached
    def authorization(self) -> Authorization | None:
        """The Authorization credentials, or None when absent or malformed."""
        return parse_authorization(self.headers.get("authorization"))

    @_cached
    def cache_control(self) -> RequestCacheControl:
        """The Cache-Control request directives."""
        return parse_cache_control(self.headers.get_joined("cache-control"))

    @_cached
    def pragma(self) -> tuple[str, ...]:
        """The Pragma directives, such as ``("no-cache",)``."""
        return tuple(parse_list_header(self.headers.get_joined("pragma")))

    @_cached
    def cookies(self) -> ImmutableMultiDict[str, str]:
        """The cookies the client sent, in order, with repeated names kept.

        ``cookies[name]`` raises :class:`~sansio_http.BadRequestKeyError` (a ``KeyError``
        and a 400) for a cookie the client did not send.
        """
        values = self.headers.getlist("cookie")
        # RFC 9113 §8.2.3: HTTP/2 may split the Cookie header; rejoin with "; ".
        value = values[0] if len(values) == 1 else "; ".join(values)
        return _RequestMultiDict(parse_cookie(value))

    @_cached
    def date(self) -> datetime | None:
        """The Date header (aware, UTC), or None when absent or malformed."""
        return parse_date(self.headers.get("date"))

    @_cached
    def max_forwards(self) -> int | None:
        """The Max-Forwards count, or None when absent or invalid."""
        return _ascii_int(self.headers.get("max-forwards"))

    @_cached
    def user_agent(self) -> str | None:
        """The User-Agent header as sent, or None."""
        return self.headers.get("user-agent")

    @_cached
    def origin(self) -> str | None:
        """The Origin header as sent, or None."""
        return self.headers.get("origin")

    @_cached
    def referrer(self) -> str | None:
        """The Referer header as sent, or None."""
        return self.headers.get("referer")

    @_cached
    def last_event_id(self) -> str | None:
        """The id an event stream client resumes after, from Last-Event-ID.

        A browser's ``EventSource`` sends the id of the last event it got
        when it reconnects (WHATWG HTML §9.2.4): a stream that resumes sends
        the events after it. None when there is no id to resume from: the
        header is absent, empty or repeated, longer than 1024 bytes, not
        UTF-8, or holds NUL, CR or LF, which no event id can hold (see
        :func:`~sansio_http.messages._events.parse_last_event_id`).
        """
        return parse_last_event_id(self.headers.getlist("last-event-id"))
