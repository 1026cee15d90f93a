"""Request targets (RFC 9112 §3.2) and Host values (RFC 9110 §7.2).

h11 checks only that a request target is one or more visible characters, so
``GET url HTTP/1.1`` or ``GET * HTTP/1.1`` would reach the application. This
module decides which of the four forms a target has, whether the method may
use it, and what path, query and authority the application should see. It
also checks a Host value against ``uri-host [":" port]`` (RFC 3986 §3.2.2).

Everything here is a pure function of bytes. The development server parses
every target with it; the WSGI and ASGI adapters' head checks
(:func:`~sansio_http.check_head`) use it for the targets that are not a
plain path. :class:`InvalidTarget` is a 400.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from sansio_http.http._hosts import split_host
from sansio_http.messages._errors import BadRequest


class InvalidTarget(BadRequest):
    """The request target or the Host value breaks the grammar (400)."""


# RFC 3986 §2.2 and §2.3.
_UNRESERVED = rb"A-Za-z0-9\-._~"
_SUB_DELIMS = rb"!$&'()*+,;="
_PCT = rb"%[0-9A-Fa-f]{2}"
# NOTE: browsers send these unencoded in some parts of a URL (the WHATWG URL
# standard leaves them out of its path and query percent-encode sets), so a
# strict RFC 3986 reading would refuse real requests. `"`, `<`, `>` and `#`
# are always encoded by browsers and stay invalid, as does `\` in a path,
# which some clients and routers read as `/`.
_LENIENT = rb"\[\]{}|^`"
_PATH_CHARS = _UNRESERVED + _SUB_DELIMS + rb":@/" + _LENIENT
# RFC 3986 §3.4: query = *( pchar / "/" / "?" ). A lone "%" is accepted in
# the query: browsers send one as typed, and query parsers leave it alone.
_QUERY_CHARS = _PATH_CHARS + rb"?%\\"

# RFC 9112 §3.2.1: origin-form = absolute-path [ "?" query ].
_ORIGIN_FORM = re.compile(
    rb"(?P<path>/(?:[" + _PATH_CHARS + rb"]|" + _PCT + rb")*)"
    rb"(?:\?(?P<query>[" + _QUERY_CHARS + rb"]*))?"
)
# RFC 9112 §3.2.2: absolute-form = absolute-URI; for "http" and "https"
# (RFC 9110 §4.2) that is scheme "://" authority path-abempty [ "?" query ].
_ABSOLUTE_FORM = re.compile(
    rb"(?P<scheme>[A-Za-z][A-Za-z0-9+\-.]*)://(?P<authority>[^/?#]*)"
    rb"(?P<path>(?:/(?:[" + _PATH_CHARS + rb"]|" + _PCT + rb")*)?)"
    rb"(?:\?(?P<query>[" + _QUERY_CHARS + rb"]*))?"
)
# The largest TCP port; a longer run of digits names no port at all.
_MAX_PORT = 65535


class Target(NamedTuple):
    """What a request target asks for, as the application will see it.

    Attributes:
        path: The path, still percent-encoded (``*`` for ``OPTIONS *``,
            empty for CONNECT's authority-form).
        query: The query, without ``?``; empty when there is none.
        authority: The ``host[:port]`` taken from an absolute-form or
            authority-form target, which replaces the Host header
            (RFC 9112 §3.2.2); None for the other forms.
    """

    path: bytes
    query: bytes
    authority: bytes | None


def parse_host(value: bytes, *, port_required: bool = False) -> tuple[bytes, bytes | None]:
    """Split a Host value into host and port after checking its grammar.

    ``Host = uri-host [ ":" port ]`` (RFC 9110 §7.2). The host may be empty
    (RFC 9110 §7.2 asks a client without an authority to send an empty
    Host); a port, when present, is at most 65535.

    Args:
        value: The field value, without surrounding white space.
        port_required: Require ``":" port`` with at least one digit, as
            CONNECT's authority-form does (RFC 9112 §3.2.3).

    Returns:
        The host and the port digits (None without a ``:``).

    Raises:
        InvalidTarget: The value is not ``uri-host [":" port]``.
    """
    try:
        parts = split_host(value.decode("ascii"))
    except UnicodeDecodeError:
        parts = None
    if parts is None:
        raise InvalidTarget("invalid host")
    host, port = parts
    if port:
        if int(port) > _MAX_PORT:
            raise InvalidTarget("invalid port")
    elif port_required:
        raise InvalidTarget("a port is required")
    return host.encode("ascii"), None if port is None else port.encode("ascii")


def parse_target(method: bytes, target: bytes) -> Target:
    """Check a request target against its method and split it.

    The four forms of RFC 9112 §3.2: origin-form for every method but
    CONNECT; absolute-form (``http`` or ``https`` only, no userinfo) for
    every method but CONNECT; authority-form for CONNECT alone; ``*`` for
    OPTIONS alone.

    Args:
        method: The request method, as sent.
        target: The request target, as sent.

    Returns:
        The path, query and (for the absolute and authority forms) authority.

    Raises:
        InvalidTarget: The target has none of the forms, or one that the
            method may not use.
    """
    if method == b"CONNECT":
        # RFC 9112 §3.2.3: authority-form, and only for CONNECT.
        host, _ = parse_host(target, port_required=True)
        if not host:
            raise InvalidTarget("CONNECT needs host:port")
        return Target(b"", b"", target)
    if target == b"*":
        # RFC 9112 §3.2.4: asterisk-form, and only for OPTIONS.
        if method != b"OPTIONS":
            raise InvalidTarget("'*' is a target for OPTIONS only")
        return Target(b"*", b"", None)
    if target.startswith(b"/"):
        match = _ORIGIN_FORM.fullmatch(target)
        if match is None:
            raise InvalidTarget("invalid request target")
        return Target(match.group("path"), match.group("query") or b"", None)
    match = _ABSOLUTE_FORM.fullmatch(target)
    if match is None:
        raise InvalidTarget("a request target starts with '/' or 'http://'")
    if match.group("scheme").lower() not in (b"http", b"https"):
        raise InvalidTarget("only http and https URIs are served")
    authority = match.group("authority")
    if b"@" in authority:
        # RFC 9110 §4.2.4: userinfo in an http(s) URI is to be treated as an error.
        raise InvalidTarget("userinfo in the request target")
    host, _ = parse_host(authority)
    if not host:
        # RFC 9110 §4.2.1: an http URI with an empty host is invalid.
        raise InvalidTarget("the request target has no host")
    # RFC 9112 §3.2.1: an empty path is "/".
    return Target(match.group("path") or b"/", match.group("query") or b"", authority)
