"""Reading a PEP 3333 environ: decoded paths, the query string, the server.

Everything here is a pure function of the environ dict and never raises on
what a server or a client put in it: a WSGI server hands the application
whatever bytes arrived, so the adapter must turn any of them into values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar, overload

from sansio_http.http._headers import DeferredHeaders
from sansio_http.messages._errors import RequestHeaderFieldsTooLarge
from sansio_http.messages._head import HeadLimits, check_framing, check_host, check_target
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

__all__ = [
    "EnvironHeaders",
    "check_environ",
    "decode_path",
    "environ_key",
    "header_name",
    "query_bytes",
    "server_address",
]

# PERF: the environ key of each header name asked for, cached: a handful of
# names (host, cookie, content-type...) is asked for on every request. The
# cache is bounded so that a client cannot grow it by sending new names:
# only names the application asks for enter it.
_KEYS: dict[str, str] = {
    "content-type": "CONTENT_TYPE",
    "content-length": "CONTENT_LENGTH",
}
_MAX_CACHED_KEYS = 512
# The (SERVER_NAME, SERVER_PORT) pairs seen, and their address tuples.
_SERVERS: dict[tuple[str, Any], tuple[str, int | None]] = {}

_T = TypeVar("_T")


def decode_path(value: str) -> str:
    """Return PATH_INFO or SCRIPT_NAME as the text the client meant.

    PEP 3333 passes each byte of the request target as one latin-1 character
    ("bytes as str"); browsers and RFC 3986 §2.5 use UTF-8, so the bytes are
    decoded again as UTF-8, with U+FFFD for invalid sequences.

    Args:
        value: The native string from the environ.

    Returns:
        The decoded text; ``value`` itself when it is plain ASCII.
    """
    if value.isascii():
        # PERF: the common case allocates nothing.
        return value
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        # A server that already decoded the path (not PEP 3333 but seen in
        # the wild) hands over code points above U+00FF: keep its text.
        return value
    return raw.decode("utf-8", "replace")


def check_environ(
    environ: Mapping[str, Any], limits: HeadLimits, request: Request | None = None
) -> Response | None:
    """Refuse a request head the application must not see (see ``_head.py``).

    The rules are the core's; this reads what they need from the environ.
    The header fields are not measured: that would walk the whole environ on
    every request, and WSGI servers bound the head themselves (gunicorn:
    100 fields of 8190 bytes; see docs/security.rst).

    Args:
        environ: The WSGI environ.
        limits: The limits to apply.
        request: The request built from the environ, whose ``content_length``
            the check sets from the CONTENT_LENGTH it checked, as
            :func:`~sansio_http.check_head` does under ASGI.

    Returns:
        None to let the application answer, or the response to send instead
        (204 for ``OPTIONS *``).

    Raises:
        HTTPError: 400, 413, 414, 431 or 501, as the core's checks say.
    """
    get = environ.get
    path = get("PATH_INFO", "")
    # gunicorn keeps the target as sent in RAW_URI; uWSGI, mod_wsgi and
    # others in REQUEST_URI.
    target = get("RAW_URI") or get("REQUEST_URI")
    length = get("CONTENT_LENGTH")
    # PERF: one look at each fact of the common case, a request with Host, an
    # origin-form target and no body or a plain Content-Length (digits only,
    # far below 2**63); the core's rules run only when one of them differs.
    # len(environ) bounds the number of header fields from above.
    if (
        path[:1] == "/"
        and "HTTP_HOST" in environ
        and "HTTP_TRANSFER_ENCODING" not in environ
        and (not length or (len(length) < 19 and length.isdigit() and length.isascii()))
        and len(environ) <= limits.max_header_count
        and (target[:1] == "/" if target else True)
        and len(target or path) + len(get("QUERY_STRING", "")) < limits.max_target_size
    ):
        if request is not None:
            request.content_length = int(length) if length else None
        return None
    return _check_environ(environ, path, target, limits, request)


def _check_environ(
    environ: Mapping[str, Any],
    path: str,
    target: str | None,
    limits: HeadLimits,
    request: Request | None,
) -> Response | None:
    get = environ.get
    if not isinstance(target, str):
        # Without the target as sent, rebuild it from its parts: the path is
        # decoded, so its length is a lower bound of the target's.
        target = (get("SCRIPT_NAME", "") + path) or "/"
        query = get("QUERY_STRING")
        if query:
            target += "?" + query
    count = sum(1 for key, value in environ.items() if _field(key, value) is not None)
    if count > limits.max_header_count:
        raise RequestHeaderFieldsTooLarge(f"More than {limits.max_header_count} header fields")
    host = get("HTTP_HOST")
    version = get("SERVER_PROTOCOL", "")
    check_host(0 if host is None else 1, version[5:] if version[:5] == "HTTP/" else version)
    length = get("CONTENT_LENGTH")
    lengths = [length] if isinstance(length, str) and length else []
    checked = check_framing(lengths, "HTTP_TRANSFER_ENCODING" in environ)
    if request is not None:
        request.content_length = checked
    return check_target(
        get("REQUEST_METHOD", "GET"),
        query_bytes(target),
        path,
        None if host is None else query_bytes(host),
        limits,
    )


def query_bytes(value: str) -> bytes:
    """Return QUERY_STRING as the bytes the client sent.

    Args:
        value: The native string from the environ.

    Returns:
        The latin-1 encoding of ``value`` (PEP 3333), or its UTF-8 encoding
        when a server put code points above U+00FF there.
    """
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape")


def server_address(environ: Mapping[str, Any]) -> tuple[str, int | None] | None:
    """Return ``(SERVER_NAME, SERVER_PORT)``, the port None when not a number.

    Args:
        environ: The WSGI environ.

    Returns:
        The address the request arrived at, or None without a SERVER_NAME.
    """
    name = environ.get("SERVER_NAME")
    if not name:
        return None
    port = environ.get("SERVER_PORT")
    key = (name, port)
    # PERF: a server answers under one or two names and ports.
    address = _SERVERS.get(key)
    if address is not None:
        return address
    if isinstance(port, str) and port.isdigit() and port.isascii():
        address = (name, int(port))
    else:
        address = (name, None)
    if len(_SERVERS) < _MAX_CACHED_KEYS:
        _SERVERS[key] = address
    return address


def environ_key(name: str) -> str:
    """Return the environ key that holds the request header ``name``.

    Args:
        name: A header name, in any case.

    Returns:
        ``CONTENT_TYPE`` and ``CONTENT_LENGTH`` for those two headers (PEP
        3333 keeps them unprefixed), ``HTTP_`` plus the upper-cased name
        with ``-`` as ``_`` for the others.
    """
    key = _KEYS.get(name)
    if key is not None:
        return key
    lower = name.lower()
    key = _KEYS.get(lower)
    if key is None:
        key = "HTTP_" + lower.upper().replace("-", "_")
    if len(_KEYS) < _MAX_CACHED_KEYS:
        _KEYS[name] = key
    return key


def header_name(key: str) -> str | None:
    """Return the lower-case header name an environ key holds, or None.

    Args:
        key: An environ key.

    Returns:
        ``"user-agent"`` for ``HTTP_USER_AGENT``, ``"content-type"`` and
        ``"content-length"`` for the two unprefixed keys, None for keys that
        are not request headers. ``HTTP_CONTENT_TYPE`` and
        ``HTTP_CONTENT_LENGTH`` are None: PEP 3333 puts those headers in the
        unprefixed keys, and some servers copy them into both.
    """
    if key.startswith("HTTP_"):
        if key in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"):
            return None
        return key[5:].replace("_", "-").lower()
    if key == "CONTENT_TYPE":
        return "content-type"
    if key == "CONTENT_LENGTH":
        return "content-length"
    return None


# CGI servers set these two to "" when the request has no body; PEP 3333
# inherits the keys, so an empty one means "absent".
_UNPREFIXED = frozenset({"CONTENT_TYPE", "CONTENT_LENGTH"})


def _field(key: str, value: Any) -> tuple[bytes, bytes] | None:
    name = header_name(key)
    if name is None or not isinstance(value, str) or (not value and key in _UNPREFIXED):
        return None
    return (query_bytes(name), query_bytes(value))


class EnvironHeaders(DeferredHeaders):
    """The request headers of a WSGI environ, read from it on demand.

    A read-only :class:`~sansio_http.Headers` over the ``HTTP_*``,
    ``CONTENT_TYPE`` and ``CONTENT_LENGTH`` keys: ``get``, ``[]``, ``in`` and
    ``getlist`` look one key up, and nothing is copied until the fields are
    listed (``items()``, ``raw()``, ``len()``...). A server joins repeated
    fields into one key, so ``getlist`` gives at most one value.

    Args:
        environ: The WSGI environ; it is kept by reference, not copied.
    """

    __slots__ = ("_environ",)

    _names_lowered = True  # header_name() lower-cases every name

    def __init__(self, environ: Mapping[str, Any]) -> None:
        # NOTE: the fields are listed from the environ only when a caller lists
        # them or copies these headers; the lookups below stay one dict lookup.
        # PERF: the base named directly: super() costs as much again per request.
        DeferredHeaders.__init__(self)
        self._environ = environ

    def _load_fields(self) -> list[tuple[bytes, bytes]]:
        pairs = (_field(key, value) for key, value in self._environ.items())
        return [pair for pair in pairs if pair is not None]

    def _lookup(self, name: str) -> str | None:
        key = environ_key(name)
        value = self._environ.get(key)
        if not isinstance(value, str) or (not value and key in _UNPREFIXED):
            return None
        return value

    @overload
    def get(self, name: str) -> str | None: ...
    @overload
    def get(self, name: str, default: _T) -> str | _T: ...
    def get(self, name: str, default: object = None) -> object:
        """Return the value of the field ``name``, or ``default``.

        Args:
            name: The field name, in any case.
            default: What to return when the field is absent.

        Returns:
            The value as the server passed it (latin-1 text), or ``default``.
        """
        value = self._lookup(name)
        return default if value is None else value

    def getlist(self, name: str) -> list[str]:
        """Return the value of the field ``name`` in a list, or ``[]``.

        Args:
            name: The field name, in any case.

        Returns:
            One value (the server joined repeated fields), or none.
        """
        value = self._lookup(name)
        return [] if value is None else [value]

    def __getitem__(self, name: str) -> str:
        value = self._lookup(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._lookup(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())
