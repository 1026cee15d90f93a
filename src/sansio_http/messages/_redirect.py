"""Redirections: ``redirect()`` and the ``Location`` it builds from an IRI.

A location is user data as often as not, so it is encoded here with care:
the host as a browser maps it (UTS #46), everything else outside RFC 3986
percent-encoded, so that no character can move where the client goes, and
a location that names no host on purpose never reads as one that does.
"""

from __future__ import annotations

import re
from html import escape
from typing import Final
from urllib.parse import quote

from sansio_http.http._hosts import idna_name
from sansio_http.messages._response import Response

__all__ = ["redirect"]

# RFC 9110 §15.4: the redirections that carry a Location to follow.
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})

# RFC 3986 §2.2 reserved characters, plus "%" for escapes already in the IRI. Letters,
# digits and "-._~" are never quoted; everything else is: spaces, controls, quotes,
# "<>\^`{|}" and non-ASCII text as its UTF-8 bytes (RFC 3987 §3.1). "[" and "]" are
# kept in the authority only, where they enclose an IP literal (RFC 3986 §3.2.2); a
# path, query or fragment may not hold them raw (§3.3, §3.4, §3.5).
_AUTHORITY_SAFE: Final = "!#$%&'()*+,/:;=?@[]~"
_URI_SAFE: Final = "!#$%&'()*+,/:;=?@~"
_LONE_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# An authority named on purpose: "//" and a character that can start one. After a
# third "/" urlsplit sees no host, and "\", a tab or a newline cannot start one; yet
# browsers skip all of them and read the next word as the host (WHATWG URL, "special
# authority ignore slashes state").
_AUTHORITY: Final = re.compile(r"//([^/\\?#\t\n\r][^/?#]*)")
# The WHATWG "special" schemes whose URLs need a host (RFC 9110 §4.2.1, §4.2.2 for
# http and https). "file" may have none.
_NEEDS_HOST: Final = frozenset({"http:", "https:", "ws:", "wss:", "ftp:"})


def _ascii_authority(authority: str) -> str:
    userinfo, at, host_port = authority.rpartition("@")
    host, colon, port = host_port.rpartition(":")
    if not colon or not port.isdigit():
        host, colon, port = host_port, "", ""
    ascii_host = idna_name(host)
    if ascii_host is None:
        # Left for percent-encoding: a browser maps a percent-encoded host itself, by
        # the same rules it applies to the text (WHATWG URL, "host parser").
        return authority
    return f"{userinfo}{at}{ascii_host}{colon}{port}"


def _quoted(text: str, safe: str) -> str:
    return quote(_LONE_PERCENT.sub("%25", text), safe=safe)


def _location_uri(location: str) -> str:
    scheme = _SCHEME.match(location)
    start = 0 if scheme is None else scheme.end()
    named = _AUTHORITY.match(location, start)
    if named is not None:
        authority = named.group(1)
        if not authority.isascii():
            authority = _ascii_authority(authority)
        head, rest = location[:start] + "//" + authority, location[named.end() :]
    elif scheme is not None and scheme.group().lower() in _NEEDS_HOST:
        # SECURITY: "http:///evil.example" and "https:evil.example" have no host to
        # urlsplit, so they pass "is it local?" checks, and browsers go to
        # evil.example. RFC 9110 §4.2.1: such a URI must not be generated.
        raise ValueError(
            f"a location with the scheme {scheme.group()[:-1]!r} needs '//' and a host"
            " (RFC 9110 §4.2.1); for a path on this site, give the path alone"
        )
    else:
        head, rest = location[:start], location[start:]
    # SECURITY: tabs, newlines and backslashes are percent-encoded like every other
    # character outside RFC 3986. Browsers drop raw tabs and newlines from URLs and read
    # "\" as "/", so "/\t/evil.example/" or "/\evil.example/" would otherwise be followed
    # as the scheme-relative "//evil.example/".
    uri = _quoted(head, _AUTHORITY_SAFE) + _quoted(rest, _URI_SAFE)
    if named is None and uri.startswith("//"):
        # SECURITY: "///evil.example" (or "//\evil.example") names no host, yet a
        # browser reads one. "/." in front keeps the very same path: RFC 3986 §5.2.4
        # removes the dot segment, and the WHATWG URL serializer writes such a path so.
        uri = "/." + uri
    return uri


def redirect(location: str, status: int = 302) -> Response:
    r"""Build a redirection to ``location``, IRI or URI, relative or absolute.

    Args:
        location: Where to send the client. Non-ASCII text is encoded as an
            RFC 3987 IRI is mapped to a URI: the host as browsers map it
            (UTS #46), the rest as percent-encoded UTF-8; escapes already
            present are kept. A path that starts with ``//`` but names no
            host (``///x``, ``//\x``) gets ``/.`` in front, so that it stays
            a path on this site.
        status: 301, 302, 303, 307 or 308.

    Returns:
        A response with a Location header and a short HTML note linking to it
        (RFC 9110 §15.4 suggests one for clients that do not follow).

    Raises:
        ValueError: The status is not a redirection with a Location, the
            location holds a lone surrogate, or it is an ``http``, ``https``,
            ``ws``, ``wss`` or ``ftp`` URL without ``//`` and a host
            (``https:///x``, ``https:x``).
    """
    if status not in _REDIRECTS:
        raise ValueError(f"redirect status must be 301, 302, 303, 307 or 308, got {status}")
    uri = _location_uri(location)
    link = escape(uri)
    body = (
        "<!doctype html>\n"
        f'<html lang="en"><title>Redirecting</title><p>Redirecting to <a href="{link}">'
        f"{link}</a>.</p></html>\n"
    )
    return Response(body, status, [("location", uri)], "text/html; charset=utf-8")
