"""Reading an ASGI scope: the path below the mount point and the addresses.

These are pure functions of the scope's values. They exist because ASGI
servers disagree: some put ``root_path`` in front of ``path`` (as the ASGI
specification asks since 2023) and some do not, and a request must mean the
same thing on all of them and under WSGI.
"""

from __future__ import annotations

from typing import Any

from sansio_http.messages._head import HeadLimits, check_head
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

__all__ = ["check_scope", "client_address", "origin_path", "server_address", "split_path"]


def check_scope(scope: Any, limits: HeadLimits, request: Request | None = None) -> Response | None:
    """Refuse a request head the application must not see (see ``_head.py``).

    The rules are the core's :func:`~sansio_http.check_head`; this reads
    what they need from an ``http`` scope.

    Args:
        scope: The ``http`` scope.
        limits: The limits to apply.
        request: The request built from the scope, whose ``content_length``
            the check sets (see :func:`~sansio_http.check_head`).

    Returns:
        None to let the application answer, or the response to send instead
        (204 for ``OPTIONS *``).

    Raises:
        HTTPError: 400, 413, 414, 431 or 501, as the core's checks say.
    """
    path: str = scope["path"]
    if path[:1] != "/":
        path = origin_path(path)
    # raw_path is optional in the ASGI specification; the decoded path is
    # the best guess at the target without it.
    target: bytes = scope.get("raw_path") or path.encode("utf-8", "surrogatepass")
    return check_head(
        scope.get("method", "GET"),
        target,
        path,
        scope.get("http_version", "1.1"),
        scope["headers"],
        limits,
        scope.get("query_string", b""),
        request,
    )


def origin_path(path: str) -> str:
    """Return the path of an absolute-form target a server left as the path.

    uvicorn's h11 mode puts ``http://host/a`` in the scope's ``path``
    (httptools gives ``/a``); RFC 9112 §3.2.2 asks a server to accept that
    form, so the path is the part after the authority. Any other path
    without a leading ``/`` is returned as it is, for the head checks to
    refuse.
    """
    for scheme in ("http://", "https://"):
        if path[: len(scheme)].lower() == scheme:
            rest = path[len(scheme) :]
            slash = rest.find("/")
            # An empty path-abempty is "/" (RFC 9110 §4.2.3).
            return rest[slash:] if slash >= 0 else "/"
    return path


def split_path(path: str, root_path: str) -> tuple[str, str]:
    """Return ``(path below the mount point, root_path)`` for a scope.

    ``root_path`` is removed from the front of ``path`` only at a segment
    boundary: under ``/app``, ``/app/users`` is ``/users`` and ``/app`` is
    ``/``, while ``/application`` is a path that did not include the mount
    point (a server that leaves ``root_path`` out) and stays whole.

    Args:
        path: The scope's ``path``: decoded text.
        root_path: The scope's ``root_path``; a trailing ``/`` is ignored.

    Returns:
        The path, always starting with ``/``, and the root path without a
        trailing ``/`` (empty when the application is not mounted).
    """
    if path[:1] != "/":
        path = origin_path(path)
    if root_path:
        root_path = root_path.rstrip("/")
        if root_path and path.startswith(root_path):
            end = len(root_path)
            if len(path) == end:
                return "/", root_path
            if path[end] == "/":
                return path[end:], root_path
    return path if path[:1] == "/" else "/" + path, root_path


def client_address(client: Any) -> str | None:
    """Return the host of a scope's ``client``, or None when absent.

    Args:
        client: The scope's ``client``: ``[host, port]``, or None.

    Returns:
        The client's address as text.
    """
    if not client:
        return None
    return str(client[0])


def server_address(server: Any) -> tuple[str, int | None] | None:
    """Return a scope's ``server`` as a tuple, or None when absent.

    Args:
        server: The scope's ``server``: ``[host, port]``, ``[path, None]``
            for a Unix socket, or None.

    Returns:
        ``(host, port)`` with the port None when it is not an int.
    """
    if not server:
        return None
    host, port = server[0], server[1]
    return str(host), port if isinstance(port, int) else None
