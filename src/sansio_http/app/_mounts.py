"""Mounting: other applications served under a URL prefix of the App.

An App keeps its mounts in a :class:`Mounts` table: each :class:`Mount` is a
prefix (decoded text, as ``Request.path``, without a trailing slash) and
the application under it, of one of three kinds: another App, a WSGI
application or an ASGI application. A prefix takes whole path segments
only: ``/admin`` takes ``/admin/`` and everything below it, never
``/administrator``; the longest prefix wins, and a mount comes before the
App's own rules.

The root mount, ``mount("/", application)``, is the one exception: its
prefix is ``""`` and it comes after the rules, as the fallback for every
path that no rule of the App and no other mount takes (:meth:`Mounts.fallback`).
A path some rule takes, whatever its method and even only with a trailing
slash, stays the App's: its 405, its OPTIONS answer and its 308.

A mounted App is dispatched here, from the outer App's routing step, so
that the outer App's middleware runs around it: :func:`mount_endpoint` makes
the endpoint that moves the prefix from the request's ``path`` to its
``root_path`` for the time of the inner dispatch (its own ``url_for`` then
builds URLs under the prefix). A foreign application is called by the
adapter, which alone holds the environ or the scope; :func:`find_foreign`
tells it which paths to divert, walking mounted Apps for nested mounts.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final, Literal, Protocol

from sansio_http.app._config import AppConfig
from sansio_http.app._endpoints import Endpoint
from sansio_http.app._hosts import routed_host
from sansio_http.messages._errors import HTTPException
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.routing import Router
from sansio_http.routing._answers import RequestRedirect

__all__ = [
    "Kind",
    "Mount",
    "Mountable",
    "Mounts",
    "application_kind",
    "check_prefix",
    "find_foreign",
    "foreign_mounts",
    "mount_endpoint",
    "mounted_apps",
    "reroot",
    "root_of",
    "route",
    "routes",
    "shown",
]

#: What is mounted: another App, a PEP 3333 application or an ASGI 3 one.
Kind = Literal["app", "wsgi", "asgi"]

# Where a request keeps the root path of each App it went through: the
# server's root path first (None for the App the adapter serves), then each
# mounted App's. Kept after the mounted App's dispatch, for its url_for from a
# streamed body or from work after the response.
_ROOTS: Final = "_sansio_http_roots"

# The cached request attributes that depend on ``path`` or ``root_path``
# alone; ``url`` and ``base_url`` join the two, so a move of the prefix
# from one to the other leaves them right.
_DERIVED: Final = ("full_path", "root_url")


class Mountable(Protocol):
    """What a mounted App offers to the App it is mounted on."""

    _mounts: Mounts
    router: Router
    config: AppConfig

    def dispatch_sync(self, request: Request) -> Response:
        """Answer a request from sync code."""

    async def dispatch_async(self, request: Request) -> Response:
        """Answer a request from async code."""


class Mount:
    """One application under a prefix.

    Attributes:
        prefix: The URL prefix, decoded, starting and not ending with ``/``;
            ``""`` for the root mount.
        application: What is mounted.
        kind: ``"app"``, ``"wsgi"`` or ``"asgi"``.
        name: The name ``url_for`` reaches a mounted App by, or None.
        endpoint: For a mounted App, what the outer App's dispatch calls.
    """

    __slots__ = ("application", "endpoint", "kind", "name", "prefix")

    def __init__(self, prefix: str, application: Any, kind: Kind, name: str | None) -> None:
        self.prefix = prefix
        self.application = application
        self.kind: Kind = kind
        self.name = name
        self.endpoint = mount_endpoint(prefix, application) if kind == "app" else None


def check_prefix(prefix: object) -> str:
    """Return a mount prefix without its trailing slash, or refuse it.

    Returns:
        The prefix, or ``""`` for ``"/"``, the root mount.

    Raises:
        TypeError: ``prefix`` is not text.
        ValueError: It does not start with ``/``, or holds an empty, ``.``
            or ``..`` segment, a placeholder, ``?`` or ``#``.
    """
    if not isinstance(prefix, str):
        raise TypeError(f"mount() takes the URL prefix first, such as '/admin', not {prefix!r}")
    if prefix == "/":
        return ""
    if not prefix.startswith("/"):
        raise ValueError(f"a mount prefix starts with '/': write '/{prefix}'")
    stripped = prefix.rstrip("/")
    if not stripped:
        raise ValueError(f"the root mount is written '/', not {prefix!r}")
    segments = stripped[1:].split("/")
    if any(segment in ("", ".", "..") for segment in segments) or any(
        mark in stripped for mark in "<>?#"
    ):
        raise ValueError(
            f"the mount prefix {prefix!r} must be a plain path such as '/admin/v2': no "
            "empty, '.' or '..' segments, no placeholders, '?' or '#'"
        )
    return stripped


def application_kind(application: object) -> Literal["wsgi", "asgi"]:
    """Tell a foreign application's protocol, as the test client does.

    An ASGI 3 application is a coroutine function, or an object whose
    ``__call__`` is one; anything else callable is taken for WSGI.

    Raises:
        TypeError: ``application`` is not callable.
    """
    if inspect.iscoroutinefunction(application) or inspect.iscoroutinefunction(
        getattr(application, "__call__", None)  # noqa: B004 (the method itself is inspected)
    ):
        return "asgi"
    if callable(application):
        return "wsgi"
    raise TypeError(
        f"mount() takes an App, a WSGI or an ASGI application, not {type(application).__name__}"
    )


def shown(prefix: str) -> str:
    """Return a mount prefix as messages show it: ``'/'`` for the root mount."""
    return prefix or "/"


class Mounts(list[Mount]):
    """The mounts of one App under a prefix, longest prefix first, and its root mount.

    PERF: a list of the prefix mounts alone, so that dispatch tests an App
    without them at the cost of a list's truth test; the root mount is
    :attr:`fallback`, which dispatch reads only for a path no rule takes.
    """

    __slots__ = ("fallback", "names")

    def __init__(self) -> None:
        super().__init__()
        #: The mounts ``url_for`` can build into, by name.
        self.names: dict[str, Mount] = {}
        #: The root mount, which takes the paths no rule and no prefix takes.
        self.fallback: Mount | None = None

    def every(self) -> list[Mount]:
        """Return every mount: the prefix mounts, then the root mount."""
        return [*self, self.fallback] if self.fallback is not None else list(self)

    def add(self, mount: Mount) -> None:
        """Add a mount.

        Raises:
            ValueError: Its prefix or its name is taken; for the root mount,
                another application is mounted at the root already.
        """
        if not mount.prefix and self.fallback is not None:
            raise ValueError(
                f"{self.fallback.application!r} is mounted at '/' already: an App has one "
                "root mount, the fallback for the paths it does not route; mount the "
                "other application under a prefix, or mount an App at '/' that "
                "mounts both"
            )
        for other in self:
            if other.prefix == mount.prefix:
                raise ValueError(f"{mount.prefix!r} is already mounted ({other.application!r})")
        if mount.name is not None:
            if mount.name in self.names:
                taken = self.names[mount.name].prefix
                raise ValueError(
                    f"the mount name {mount.name!r} is taken by the mount at {taken!r}: "
                    "pass mount(..., name='another')"
                )
            self.names[mount.name] = mount
        if not mount.prefix:
            self.fallback = mount
            return
        self.append(mount)
        self.sort(key=lambda each: len(each.prefix), reverse=True)

    def find(self, path: str) -> tuple[Mount, str] | None:
        """Return the prefix mount that takes ``path`` and the path below its prefix.

        The root mount is not among them: it takes a path only after the
        App's rules (see :func:`routes`).

        Args:
            path: A request's ``path``: decoded, starting with ``/``.

        Returns:
            The mount with the longest prefix that ends at a segment
            boundary of ``path``, and the rest of the path: ``""`` for the
            prefix itself, else starting with ``/``. None when no prefix does.
        """
        for mount in self:
            prefix = mount.prefix
            if path.startswith(prefix):
                end = len(prefix)
                if len(path) == end:
                    return mount, ""
                if path[end] == "/":
                    return mount, path[end:]
        return None


def mounted_apps(app: Mountable) -> list[Any]:
    """Return the Apps mounted in ``app``, at any depth, innermost first.

    Each App appears once, however many times it is mounted; the adapters
    install their runners on each and start their lifecycles in this order.
    """
    found: list[Any] = []

    def visit(outer: Mountable) -> None:
        for mount in outer._mounts.every():
            inner = mount.application
            if mount.kind == "app" and all(inner is not each for each in found):
                visit(inner)
                found.append(inner)

    visit(app)
    return found


def foreign_mounts(app: Mountable) -> list[tuple[str, Mount]]:
    """Return the foreign mounts of ``app`` at any depth, with their full prefixes."""
    found: list[tuple[str, Mount]] = []

    def visit(outer: Mountable, above: str) -> None:
        for mount in outer._mounts.every():
            if mount.kind == "app":
                visit(mount.application, above + mount.prefix)
            else:
                found.append((above + mount.prefix, mount))

    visit(app, "")
    return found


def find_foreign(
    app: Mountable,
    path: str,
    method: str,
    websocket: bool = False,
    request: Callable[[], Request] | None = None,
) -> tuple[Mount, str] | None:
    """Return the foreign application that takes ``path``, and its full prefix.

    The walk goes down through mounted Apps, as their dispatch would. The
    prefix itself, without the slash, is left to the App, which answers it
    with a redirect (see :func:`route`). A root mount takes the path when
    no prefix mount and no rule of its App does (see :func:`routes`).

    Args:
        app: The outermost App.
        path: The request's path below the App's root path.
        method: The request's method, upper-case.
        websocket: Whether the request is a websocket handshake.
        request: Makes the request, for its host, where an App on the way
            has rules with a host (see :func:`routes`).

    Returns:
        The mount and the prefixes consumed on the way (``/api/legacy`` for
        a WSGI application at ``/legacy`` in an App at ``/api``; the
        prefixes above it for a root mount), or None when an App answers.
    """
    consumed = ""
    while True:
        mounts = app._mounts
        found = mounts.find(path) if mounts else None
        if found is not None:
            mount, rest = found
            if not rest:
                return None
            consumed += mount.prefix
            if mount.kind != "app":
                return mount, consumed
            path = rest
            app = mount.application
            continue
        fallback = mounts.fallback
        if fallback is None or routes(app, path, method, websocket, request):
            return None
        if fallback.kind != "app":
            return fallback, consumed
        app = fallback.application


def routes(
    app: Mountable,
    path: str,
    method: str,
    websocket: bool = False,
    request: Callable[[], Request] | None = None,
) -> bool:
    """Tell whether a rule of ``app`` takes ``path``, so that its root mount does not.

    A rule takes the path whatever the method: the App answers a method
    its rules do not take (405, or 204 to OPTIONS), and a path its rules
    take only with a trailing slash (308), as it would without a root mount.
    Where the App has rules with a host, they are matched against the host
    of the request that ``request`` makes, as the App's dispatch matches
    them; a host the App does not trust is the App's to answer (its 400).
    """
    router = app.router
    try:
        host = None
        if router.has_hosts and request is not None:
            # SECURITY: as in the App's dispatch, the host only through the
            # trusted hosts, so that a root mount never hides a host rule
            # nor takes a request the App refuses.
            host = routed_host(request(), app.config.trusted_hosts)
        return router.find(path, method, websocket=websocket, host=host) is not None
    except (HTTPException, RuntimeError):
        # RuntimeError: no trusted hosts at all, which the App's dispatch names.
        return True


def route(mount: Mount, rest: str) -> tuple[Endpoint, dict[str, Any]]:
    """Return what the App's routing step gives a path under ``mount``.

    Raises:
        RequestRedirect: The path is the prefix itself: 308 to the prefix
            with a slash, so that relative links in the mounted application
            resolve under it (Werkzeug's dispatcher and Starlette's Mount do
            the same through their routers).
        RuntimeError: The mount is a foreign application, which only an
            adapter can call.
    """
    if not rest:
        raise RequestRedirect(mount.prefix + "/")
    if mount.endpoint is None:
        raise RuntimeError(
            f"the {mount.kind.upper()} application mounted at {shown(mount.prefix)!r} is called "
            "by the adapter: serve the App with sansio_http.wsgi.to_wsgi or "
            "sansio_http.asgi.to_asgi rather than calling dispatch_sync/dispatch_async"
        )
    return mount.endpoint, {}


def reroot(request: Request, prefix: str, rest: str, application: object) -> Callable[[], None]:
    """Move ``prefix`` from the request's path to its root path; return the undo.

    NOTE: the request is changed in place, not copied (``Request.replace``):
    its body, uploads and state stay one object, which the adapter reads
    and closes once, whichever App read them.

    The root path of ``application`` is recorded on the request for good,
    for :func:`root_of`: the undo leaves it, so that the mounted App's
    ``url_for`` from a streamed body or from work after the response still
    builds under its prefix.

    Args:
        request: The request being dispatched.
        prefix: The mount prefix at the front of ``request.path``.
        rest: ``request.path`` below the prefix, starting with ``/``.
        application: The mounted App the request goes to.

    Returns:
        A function that puts the path and root path back.
    """
    saved_path, saved_root = request.path, request.root_path
    cached = request.__dict__
    saved: dict[str, Any] = {name: cached.pop(name) for name in _DERIVED if name in cached}
    request.path = rest
    request.root_path = saved_root + prefix
    roots: list[tuple[object, str]] | None = cached.get(_ROOTS)
    if roots is None:
        roots = cached[_ROOTS] = [(None, saved_root)]
    roots.append((application, request.root_path))

    def restore() -> None:
        request.path = saved_path
        request.root_path = saved_root
        for name in _DERIVED:
            cached.pop(name, None)
        cached.update(saved)

    return restore


def root_of(request: Request, application: object) -> str:
    """Return the root path ``application`` answers ``request`` under.

    A mounted App's is its prefix under the server's root path; any other
    App's (the one the adapter serves, above all) is the server's root path,
    even while a mounted App dispatches the request (:func:`reroot`).
    """
    roots: list[tuple[object, str]] | None = request.__dict__.get(_ROOTS)
    if roots is None:
        return request.root_path
    for each, root in reversed(roots):
        if each is application:
            return root
    return roots[0][1]


def mount_endpoint(prefix: str, application: Any) -> Endpoint:
    """Return the endpoint that dispatches a request to a mounted App.

    It belongs to no scope: the outer App's middleware runs around it, its
    hooks and error handlers do not (the mounted App has its own). The
    request's ``state`` gains what the mounted App's startup hooks stored.
    """

    def enter(request: Request) -> Callable[[], None]:
        path = request.path
        restore = reroot(request, prefix, path[len(prefix) :], application)
        state = application.lifecycle.state
        if state:
            request.state.update(state)
        return restore

    def view(request: Request) -> Response:
        restore = enter(request)
        try:
            response: Response = application.dispatch_sync(request)
            return response
        finally:
            restore()

    async def async_view(request: Request) -> Response:
        restore = enter(request)
        try:
            response: Response = await application.dispatch_async(request)
            return response
        finally:
            restore()

    view.__qualname__ = async_view.__qualname__ = f"mount({shown(prefix)!r})"
    return Endpoint(view, (), view, async_view)
