"""Error pages of the development server, with an optional traceback page.

The traceback goes to the log always and to the client only in debug mode,
which the server refuses unless it listens on a loopback address, and only
for a request whose Host names this machine: a page of another site that a
DNS-rebinding attack points at 127.0.0.1 still sends its own Host.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from sansio_http.app._debug import is_loopback_host, traceback_page
from sansio_http.server._exchange import BodyError, BodyTimeout

log = logging.getLogger("sansio_http.server")


def error_response(exc: BaseException, debug: bool) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Return the status, headers and body that answer a crashed request.

    Args:
        exc: What the application raised.
        debug: Whether to show the traceback to the client.

    Returns:
        A 408 when the request body came too slowly, a 400 when it could not
        be read otherwise, and a 500 for anything else.
    """
    if isinstance(exc, BodyTimeout) or isinstance(exc.__cause__, BodyTimeout):
        # RFC 9110 §15.5.9: the request did not arrive in the time allowed.
        body = b"408 Request Timeout: the request body arrived too slowly\n"
        return 408, _plain(body), body
    if isinstance(exc, BodyError) or isinstance(exc.__cause__, BodyError):
        body = b"400 Bad Request: the request body was incomplete or malformed\n"
        return 400, _plain(body), body
    log.error("application error", exc_info=(type(exc), exc, exc.__traceback__))
    if not debug:
        body = b"500 Internal Server Error\n"
        return 500, _plain(body), body
    page = traceback_page(exc)
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(page)).encode()),
    ]
    return 500, headers, page


def shows_traceback(debug: bool, headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Return whether a crash of this request may show the traceback page.

    Args:
        debug: The server's debug setting.
        headers: The request's header fields (lower-case names), whose Host
            the server has already checked against the RFC 9110 grammar.

    Returns:
        True in debug mode for a loopback Host (``localhost``, 127/8, ``::1``).
    """
    if not debug:
        return False
    for name, value in headers:
        if name == b"host":
            return is_loopback_host(value.decode("latin-1").lower())
    return False


def _plain(body: bytes) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
