"""Redirections: ``redirect()`` and the ``Location`` it builds from an IRI.

A location is user data as often as not, so it is encoded here with care:
the host by IDNA, everything else outside RFC 3986 percent-encoded, so that
no character can move where the client goes.
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
# "<>\^`{|}" and non-ASCII text as its UTF-8 bytes (RFC 3987 §3.1).
_URI_SAFE: Final = "!#$%&'()*+,/:;=?@[]~"
_LONE_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_AUTHORITY: Final = re.compile(r"((?:[A-Za-z][A-Za-z0-9+.\-]*:)?//)([^/?#]*)")
_ASCII_HOST: Final = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?")


def _ascii_authority(authority: str) -> str:
    userinfo, at, host_port = authority.rpartition("@")
    host, colon, port = host_port.rpartition(":")
    if not colon or not port.isdigit():
        host, colon, port = host_port, "", ""
    ascii_host = idna_name(host)
    if ascii_host is None:
        return authority  # left for percent-encoding, which browsers also accept
    # SECURITY: IDNA mapping can turn a character into "/" or "#"; keep only a plain
    # host name, so the mapping can never move where the URL points.
    if not _ASCII_HOST.fullmatch(ascii_host):
        return authority
    return f"{userinfo}{at}{ascii_host}{colon}{port}"


def _location_uri(location: str) -> str:
    match = _AUTHORITY.match(location)
    if match is not None and not match.group(2).isascii():
        location = match.group(1) + _ascii_authority(match.group(2)) + location[match.end() :]
    # SECURITY: tabs, newlines and backslashes are percent-encoded like every other
    # character outside RFC 3986. Browsers drop raw tabs and newlines from URLs and read
    # "\" as "/", so "/\t/evil.example/" or "/\evil.example/" would otherwise be followed
    # as the scheme-relative "//evil.example/".
    return quote(_LONE_PERCENT.sub("%25", location), safe=_URI_SAFE)


def redirect(location: str, status: int = 302) -> Response:
    """Build a redirection to ``location``, IRI or URI, relative or absolute.

    Args:
        location: Where to send the client. Non-ASCII text is encoded as an
            RFC 3987 IRI is mapped to a URI: the host by IDNA, the rest as
            percent-encoded UTF-8; escapes already present are kept.
        status: 301, 302, 303, 307 or 308.

    Returns:
        A response with a Location header and a short HTML note linking to it
        (RFC 9110 §15.4 suggests one for clients that do not follow).

    Raises:
        ValueError: The status is not a redirection with a Location, or the
            location holds a lone surrogate.
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
