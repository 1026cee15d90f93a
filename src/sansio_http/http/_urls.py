"""Percent-encoding a request's decoded path and raw query back into a URI.

A :class:`~sansio_http.Request` holds its path decoded, so every URL the
project builds from it (``full_path``, ``url``, a redirect's ``Location``)
encodes it again here, to RFC 3986 form, in one way.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote

__all__ = ["path_location", "quote_path", "quote_query"]

# RFC 3986 §3.3 and §3.4: pchar is unreserved / pct-encoded / sub-delims / ":" / "@"; a path
# adds "/" and a query "/" and "?". A decoded path holds no escapes, so its "%" is encoded;
# a raw query keeps its valid escapes.
_PATH_SAFE: Final = "/!$&'()*+,;=:@"
_QUERY_SAFE: Final = "/?!$&'()*+,;=:@%"
_LONE_PERCENT: Final = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def quote_path(path: str) -> str:
    """Percent-encode decoded path text for use in a URI.

    SECURITY: a result that would start with ``//``, which a browser reads
    as another host (RFC 3986 §4.2), has its second slash sent as ``%2F``,
    which decodes back to the same path.
    """
    try:
        data = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # A lone surrogate that no byte decoding produced: keep it visible.
        data = path.encode("utf-8", "surrogatepass")
    quoted = quote(data, safe=_PATH_SAFE)
    return "/%2F" + quoted[2:] if quoted[:2] == "//" else quoted


def quote_query(query: bytes) -> str:
    """Percent-encode a raw query string, keeping its valid escapes."""
    if b"%" in query:
        query = _LONE_PERCENT.sub(b"%25", query)
    return quote(query, safe=_QUERY_SAFE)


def path_location(path: str, root_path: str = "", query_string: bytes = b"") -> str:
    r"""Build a same-origin Location from a request's decoded path.

    SECURITY: the path is request data. Every character outside RFC 3986
    ``pchar`` is percent-encoded, among them ``\``, ``?``, ``#``, ``%``,
    controls and non-ASCII text, so browsers cannot read a backslash as a
    slash, cut the path into a query or fragment, or see a header break; and
    the result never starts with ``//`` (see :func:`quote_path`).

    Args:
        path: The percent-decoded path, as ``Request.path`` holds it.
        root_path: The decoded path the application is mounted under.
        query_string: The raw query string to keep, without ``?``; a ``%``
            that starts no valid escape is encoded, valid escapes are kept.

    Returns:
        An absolute-path reference, such as ``/app/docs/?page=2``.
    """
    location = root_path + path
    if location[:1] != "/":
        location = "/" + location
    location = quote_path(location)
    if query_string:
        location += "?" + quote_query(query_string)
    return location
