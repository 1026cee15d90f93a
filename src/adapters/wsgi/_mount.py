"""Mounted applications under WSGI: other Apps and WSGI applications.

``to_wsgi`` serves the Apps mounted in an App as it serves the App itself
(its coroutine runner, its file system, their startup and shutdown hooks),
and calls a mounted WSGI application itself, with the mount's prefix moved
from ``PATH_INFO`` to ``SCRIPT_NAME`` as PEP 3333 describes. The App's own
dispatch routes to mounted Apps; what is here decides only which requests
never reach it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable
from typing import Any

from sansio_http.app import App
from sansio_http.app._mounts import find_foreign, foreign_mounts, mounted_apps, shown
from sansio_http.app._static import prepare_static
from sansio_http.messages._proxy import ProxyPolicy

from ._environ import decode_path
from ._lifespan import hold
from ._request import WSGIRequest
from ._response import StartResponse
from ._runner import CoroutineRunner

__all__ = ["prepare_mounts", "stop_mounts", "with_mounts"]

WSGIApplication = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def prepare_mounts(app: App, runner: CoroutineRunner) -> list[App]:
    """Set up the Apps mounted in ``app``, at any depth, and start them.

    Each gets ``app``'s coroutine runner and, unless it has its own, its
    file system; their startup hooks run now, innermost first, once per
    process (see ``App.on_startup``).

    Returns:
        The mounted Apps, for :func:`stop_mounts`.

    Raises:
        TypeError: An ASGI application is mounted: a WSGI server has no
            event loop to run it on.
    """
    for prefix, mount in foreign_mounts(app):
        if mount.kind == "asgi":
            raise TypeError(
                f"to_wsgi() cannot serve the ASGI application mounted at {shown(prefix)!r}: a WSGI "
                "server has no event loop to run it; serve the App with "
                "sansio_http.asgi.to_asgi(app), which also runs mounted WSGI applications"
            )
    inner_apps = mounted_apps(app)
    for inner in inner_apps:
        inner.coroutine_runner = runner
        if inner.file_system is None:
            inner.file_system = app.file_system
        prepare_static(endpoint.view for endpoint in inner.endpoints.values())
    for inner in inner_apps:
        inner.lifecycle.start_sync(inner.ensure_sync, threading.Event(), hold)
    return inner_apps


def stop_mounts(inner_apps: list[App]) -> None:
    """Run the shutdown hooks of mounted Apps, outermost first; raise the first error."""
    error: BaseException | None = None
    for inner in reversed(inner_apps):
        try:
            inner.lifecycle.stop_sync(inner.ensure_sync)
        except Exception as exc:
            error = error or exc
    if error is not None:
        raise error


def with_mounts(
    app: App,
    served: WSGIApplication,
    trusted_hosts: Collection[str] | None = None,
    proxy_policy: ProxyPolicy | None = None,
) -> WSGIApplication:
    """Return ``served``, or a WSGI application that first diverts mounted paths.

    ``trusted_hosts`` are those each request gets, and ``proxy_policy`` what
    the App reads its host through: where an App has rules with a host, its
    root mount takes only what they do not, on a host it trusts.

    PERF: an App without foreign mounts is served as it is, without a call
    more per request.
    """
    if not foreign_mounts(app):
        return served

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = decode_path(environ.get("PATH_INFO", ""))
        method = environ.get("REQUEST_METHOD") or "GET"

        def request() -> WSGIRequest:
            # Only for its host, as the App reads it: the body is left to
            # whoever answers.
            made = WSGIRequest(environ, trusted_hosts=trusted_hosts)
            return made if proxy_policy is None else proxy_policy.apply(made)

        path = path if path[:1] == "/" else "/" + path
        found = find_foreign(app, path, method.upper(), request=request)
        if found is None:
            return served(environ, start_response)
        mount, prefix = found
        mounted: WSGIApplication = mount.application
        return mounted(mounted_environ(environ, prefix), start_response)

    return application


def mounted_environ(environ: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Return a copy of ``environ`` with ``prefix`` moved into ``SCRIPT_NAME``.

    PEP 3333 keeps both keys as "bytes as str": the prefix's UTF-8 bytes,
    each one character, are cut from the front of ``PATH_INFO`` as sent,
    so that bytes the adapter would decode as U+FFFD reach the mounted
    application unchanged.

    Args:
        environ: The request's environ; it is not changed.
        prefix: The decoded prefix at the front of the decoded path; for
            ``""`` (the root mount of the App the server serves), the
            environ itself is returned, as the server made it.
    """
    if not prefix:
        return environ
    child = dict(environ)
    raw_prefix = prefix.encode("utf-8").decode("latin-1")
    path_info: str = environ.get("PATH_INFO", "")
    if path_info.startswith(raw_prefix):
        rest = path_info[len(raw_prefix) :]
    else:
        # A server that hands over decoded text, or a path without its
        # leading slash: cut the decoded path and encode the rest again.
        path = decode_path(path_info)
        path = path if path[:1] == "/" else "/" + path
        rest = path[len(prefix) :].encode("utf-8").decode("latin-1")
    child["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "").rstrip("/") + raw_prefix
    child["PATH_INFO"] = rest
    return child
