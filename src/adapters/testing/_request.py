"""``ClientRequest``: what the client sends, and the URL arithmetic behind it.

A request is a method, an absolute URL, header fields and a body (bytes, or
an iterable of chunks sent with chunked transfer coding), plus the two facts
a server knows and HTTP does not carry: where the application is mounted
(``root_path``) and the peer's address. The WSGI and ASGI drivers read the
environ or scope values from here, so both interfaces see the same request.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import quote, unquote, unquote_to_bytes, urlencode, urljoin, urlsplit, urlunsplit

from sansio_http.http._headers import Headers

from ._multipart import FormData, form_pairs

__all__ = ["ClientRequest", "declared_length", "resolve_url"]

DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# RFC 3986 §3.3 pchar and "/" stay as they are, and so do existing escapes;
# anything else (spaces, non-ASCII text) is percent-encoded as UTF-8.
_PATH_SAFE: Final = "/%!$&'()*+,;=:@~-._"
_QUERY_SAFE: Final = _PATH_SAFE + "?"


def declared_length(headers: Headers) -> int | None:
    """Return the body length a request's Content-Length declares, if it declares one.

    Returns:
        The length, or None without a single field of ASCII digits (the
        application answers such a field itself, 400 or 413).
    """
    values = headers.getlist("content-length")
    if len(values) != 1 or not (values[0].isascii() and values[0].isdigit()):
        return None
    return int(values[0]) if len(values[0]) <= 20 else 10**20


def resolve_url(
    base_url: str, url: str, params: FormData | None = None, *, scheme: str | None = None
) -> str:
    """Resolve ``url`` against ``base_url`` and add query parameters.

    Args:
        base_url: The absolute URL relative ones are resolved against.
        url: An absolute URL, a path, or a relative reference.
        params: Query parameters appended to those ``url`` already has.
        scheme: Replace the scheme (``"https"`` for a secure request).

    Returns:
        The absolute URL, percent-encoded, without its fragment.

    Example:
        >>> resolve_url("http://testserver", "/a b?x=1", {"y": "é"})
        'http://testserver/a%20b?x=1&y=%C3%A9'
    """
    parts = urlsplit(urljoin(base_url, url))
    query = quote(parts.query, safe=_QUERY_SAFE)
    if params:
        query = "&".join(piece for piece in (query, urlencode(form_pairs(params))) if piece)
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    return urlunsplit((scheme or parts.scheme, parts.netloc, path, query, ""))


@dataclass(frozen=True)
class ClientRequest:
    """A request as the client sends it to the application.

    Attributes:
        method: The method, upper case.
        url: The absolute URL, percent-encoded.
        headers: The header fields, Host and Cookie included.
        body: The body: bytes, or an iterable of chunks sent chunked.
        root_path: Where the application is mounted, without a trailing ``/``.
        remote_addr: The client's address, or None for none.
    """

    method: str
    url: str
    headers: Headers
    body: bytes | Iterable[bytes] = b""
    root_path: str = ""
    remote_addr: str | None = "127.0.0.1"
    _parts: tuple[str, str, int, str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        scheme = parts.scheme.lower()
        port = parts.port or DEFAULT_PORTS.get(scheme, 80)
        host = parts.hostname or "testserver"
        object.__setattr__(self, "_parts", (scheme, host, port, parts.path or "/", parts.query))
        path = self.path
        root = self.root_path
        if root and not (path == root or path.startswith(root + "/")):
            raise ValueError(
                f"the URL path {path!r} is outside the application's root_path {root!r}"
            )

    @property
    def scheme(self) -> str:
        """The URL scheme, lower case."""
        return self._parts[0]

    @property
    def host(self) -> str:
        """The host name of the URL, lower case."""
        return self._parts[1]

    @property
    def port(self) -> int:
        """The port of the URL, or the scheme's default port."""
        return self._parts[2]

    @property
    def raw_path(self) -> str:
        """The path as it appears in the URL, percent-encoded."""
        return self._parts[3]

    @property
    def path(self) -> str:
        """The decoded path, root path included."""
        return unquote(self._parts[3], errors="replace")

    @property
    def path_bytes(self) -> bytes:
        """The decoded path as bytes, root path included."""
        return unquote_to_bytes(self._parts[3])

    @property
    def query_string(self) -> bytes:
        """The query string without the ``?``."""
        return self._parts[4].encode("ascii")

    @property
    def content(self) -> bytes | None:
        """The body, or None when it was sent as a stream of chunks."""
        return self.body if isinstance(self.body, bytes) else None
