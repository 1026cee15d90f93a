"""The App: registration, middleware and lifecycle, over dispatch and URL building.

:class:`App` is the composition. It keeps what is registered on it (rules,
blueprints, middleware, startup and shutdown hooks) and inherits the rest
from one module each: registration shared with blueprints
(:mod:`~sansio_http.app._scaffold`), the sync/async bridges
(:mod:`~sansio_http.app._bridges`), response making
(:mod:`~sansio_http.app._responses`), error handling
(:mod:`~sansio_http.app._handling`), the dispatch pipeline and its drivers
(:mod:`~sansio_http.app._dispatch`) and URL building
(:mod:`~sansio_http.app._urls`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from sansio_http.app._bridges import CoroutineRunner, ThreadRunner
from sansio_http.app._config import AppConfig
from sansio_http.app._context import request_var
from sansio_http.app._dispatch import _Dispatching
from sansio_http.app._endpoints import Endpoint, join_rule
from sansio_http.app._hosts import check_trusted, routed_host
from sansio_http.app._lifecycle import (
    Lifecycle,
    LifespanFactory,
    check_lifespan,
    hook_arguments,
)
from sansio_http.app._middleware import Middleware
from sansio_http.app._mounts import (
    Kind,
    Mount,
    Mounts,
    application_kind,
    check_prefix,
    mounted_apps,
    reroot,
)
from sansio_http.app._scaffold import Blueprint, _Scaffold, check_call
from sansio_http.app._urls import _UrlBuilding
from sansio_http.messages._errors import NotFound
from sansio_http.messages._request import Request
from sansio_http.routing import Converter, Router, Rule

__all__ = ["App"]

F = TypeVar("F", bound=Callable[..., Any])


class App(_Scaffold, _Dispatching, _UrlBuilding):
    """A small application: routing, hooks, blueprints, sync and async views.

    Mount it with ``sansio_http.wsgi.to_wsgi(app)`` or
    ``sansio_http.asgi.to_asgi(app)``; both call :meth:`dispatch_sync` or
    :meth:`dispatch_async` with their own request class.

    Args:
        name: A name for logs.
        config: Settings; the defaults of :class:`AppConfig` otherwise.
        converters: Extra URL converters by name.
        lifespan: Starlette's lifespan: a function of the App returning a
            context manager, async (``@contextlib.asynccontextmanager``) or
            sync (``@contextlib.contextmanager``), entered once per process
            before the startup hooks and exited after the shutdown hooks.
            What it yields, a mapping or None, seeds the lifespan state.

    Raises:
        TypeError: ``lifespan`` is not callable, or is a generator or
            coroutine function not made a context manager.

    Attributes:
        coroutine_runner: Runs a coroutine to completion from sync code; the
            WSGI adapter installs one that keeps an event loop per thread.
        thread_runner: ``await thread_runner(func, *args)`` runs a plain
            call in the App's thread pool; the ASGI adapter installs it.
    """

    def __init__(
        self,
        name: str = "app",
        *,
        config: AppConfig | None = None,
        converters: Mapping[str, type[Converter]] | None = None,
        lifespan: LifespanFactory | None = None,
    ) -> None:
        if lifespan is not None:
            check_lifespan(lifespan)
        super().__init__(name)
        self.config = config or AppConfig()
        self.router = Router(converters=converters)
        self.endpoints: dict[str, Endpoint] = {}
        #: The lifespan, the startup and shutdown hooks and the lifespan state
        #: they fill, shared by every mount of the App so that they run once
        #: per process (see :mod:`~sansio_http.app._lifecycle`).
        self.lifecycle = Lifecycle(None if lifespan is None else functools.partial(lifespan, self))
        self.startup_funcs: list[Callable[..., Any]] = self.lifecycle.startup_funcs
        self.shutdown_funcs: list[Callable[..., Any]] = self.lifecycle.shutdown_funcs
        self.coroutine_runner: CoroutineRunner | None = None
        self.thread_runner: ThreadRunner | None = None
        # The answers of _match for static rules, by path and method, and the
        # router they come from.
        self._static: dict[tuple[str, str], tuple[Endpoint, dict[str, Any]]] = {}
        self._static_router: Router | None = None
        # The applications mounted under a prefix (see mount); empty, it is false.
        self._mounts = Mounts()
        # The scopes of what is not routed to a view: the App's alone.
        self._scopes: tuple[_Scaffold, ...] = (self,)
        # Whether make_response is this class's, which returns a Response as it is.
        self._plain_make_response = type(self).make_response is App.make_response
        self._sync_cache: dict[Callable[..., Any], Callable[..., Any]] = {}
        self._async_cache: dict[Callable[..., Any], Callable[..., Awaitable[Any]]] = {}
        # The plain middleware hooks that never block, which the async drivers
        # call directly (PERF: not through a coroutine of their own).
        self._inline_hooks: set[Callable[..., Any]] = set()
        #: The registered middleware, outermost first (see :meth:`add_middleware`).
        self.middleware: list[Any] = []
        # Per middleware, its (process_request, process_response) hooks, None
        # where it has none, converted once in add_middleware.
        #: Whether a middleware hook is not run inline (see add_middleware).
        self._hooked_middleware = False
        self._middleware_hooks: list[
            tuple[Callable[..., Any] | None, Callable[..., Any] | None]
        ] = []

    # -- registration ----------------------------------------------------

    def _rule_added(
        self, rule: str, endpoint: str, view: Callable[..., Any], options: dict[str, Any]
    ) -> None:
        self._add(rule, endpoint, view, options, (self,))

    def _blueprint_added(self, blueprint: Blueprint, url_prefix: str | None) -> None:
        self._register(blueprint, url_prefix, blueprint.name, (self,))

    def _register(
        self,
        blueprint: Blueprint,
        url_prefix: str | None,
        name: str,
        outer: tuple[_Scaffold, ...],
        parent_prefix: str = "",
        parent_host: str | None = None,
    ) -> None:
        prefix = join_rule(parent_prefix or None, url_prefix or blueprint.url_prefix or "")
        scopes = (*outer, blueprint)
        # A rule's own host, else its blueprint's, else the enclosing blueprint's.
        host = blueprint.host or parent_host
        for rule, endpoint, view, options in blueprint._rules:
            if host is not None and options["host"] is None:
                options = {**options, "host": host}
            self._add(join_rule(prefix, rule), f"{name}.{endpoint}", view, options, scopes)
        for child, child_prefix in blueprint.blueprints:
            self._register(child, child_prefix, f"{name}.{child.name}", scopes, prefix, host)

    def _add(
        self,
        rule: str,
        endpoint: str,
        view: Callable[..., Any],
        options: dict[str, Any],
        scopes: tuple[_Scaffold, ...],
    ) -> None:
        existing = self.endpoints.get(endpoint)
        if (
            self._mounts.names
            and "." in endpoint
            and endpoint.partition(".")[0] in self._mounts.names
        ):
            raise ValueError(
                f"the endpoint {endpoint!r} would hide the mount named "
                f"{endpoint.partition('.')[0]!r} from url_for: rename the blueprint or the mount"
            )
        if existing is not None and existing.view is not view:
            raise ValueError(f"endpoint {endpoint!r} is already taken by another view")
        if options.get("host") is not None:
            check_trusted(rule, endpoint, options["host"], self.config.trusted_hosts)
        self.router.add(Rule(rule, endpoint, **options))
        self._static.clear()  # an endpoint may be registered again, with other scopes
        # Blueprint functions get the App's conversion when registered.
        for scope in scopes:
            for func in (
                *scope.before_request_funcs,
                *scope.after_request_funcs,
                *scope.teardown_request_funcs,
                *scope.error_handlers.values(),
            ):
                self._prepare(func)
        self._prepare(view)
        self.endpoints[endpoint] = Endpoint(
            view, scopes, self._sync_cache[view], self._async_cache[view]
        )

    def mount(self, prefix: str, application: Any, *, name: str | None = None) -> None:
        """Serve another application under the URL prefix ``prefix``.

        ``application`` is another :class:`App`, a WSGI application (served
        by ``to_wsgi``, and by ``to_asgi`` through its thread pool) or an
        ASGI application (served by ``to_asgi`` only). The prefix takes
        whole path segments: ``/admin`` takes ``/admin/`` and every path
        below it, never ``/administrator``, and ``/admin`` itself is
        redirected to ``/admin/`` (308). A mount comes before the App's own
        rules; the longest prefix wins.

        ``mount("/", application)`` is the root mount, the fallback: it
        takes every path that no rule of this App and no other mount takes,
        after the rules. A path a rule takes stays this App's, whatever the
        method (405, or 204 to OPTIONS) and when only the path with a
        trailing slash matches (308). An App has one root mount.

        The mounted application sees the prefix in its root path
        (``SCRIPT_NAME``, ASGI ``root_path``, ``request.root_path``) and the
        rest in its path. A mounted App runs inside this App's middleware,
        not its hooks or error handlers; a foreign application is called
        before this App's middleware and sees the request as the server sent
        it. See :doc:`/static-and-mounting`.

        Args:
            prefix: The URL prefix, such as ``/admin``: decoded text, as
                :attr:`Request.path <sansio_http.Request.path>` is; ``/`` for
                the root mount.
            application: The App or the WSGI or ASGI application.
            name: The name ``url_for`` reaches a mounted App by
                (``url_for("admin.index")``); its own name by default. Not
                for a WSGI or ASGI application.

        Raises:
            TypeError: ``application`` is a blueprint or not callable.
            ValueError: The prefix is not a plain path, it or the name is
                taken (at the root: something is mounted there already), a
                foreign application is given a name, or the App would be
                mounted in itself.
            RuntimeError: The App is served already (``to_wsgi`` and
                ``to_asgi`` set up mounted applications when they mount it).
        """
        if self.coroutine_runner is not None or self.thread_runner is not None:
            raise RuntimeError(
                "mount() after to_wsgi(app) or to_asgi(app): the adapters set up mounted "
                "applications when they serve the App, so mount before serving it"
            )
        if isinstance(application, Blueprint):
            raise TypeError("a Blueprint is registered, not mounted: app.register_blueprint(bp)")
        prefix = check_prefix(prefix)
        kind: Kind
        if isinstance(application, App):
            if application is self or any(inner is self for inner in mounted_apps(application)):
                raise ValueError("an App cannot be mounted in itself, even through another App")
            kind = "app"
            name = application.name if name is None else name
        else:
            kind = application_kind(application)
            if name is not None:
                raise ValueError(
                    "name= is what url_for builds into a mounted App by; a WSGI or ASGI "
                    "application has no rules to build"
                )
        if name is not None:
            if not name or "." in name:
                raise ValueError(f"a mount name is a word without dots, not {name!r}")
            if any(endpoint.startswith(name + ".") for endpoint in self.endpoints):
                raise ValueError(
                    f"the mount name {name!r} is the name of a blueprint of this App: "
                    "pass mount(..., name='another')"
                )
        mount = Mount(prefix, application, kind, name)
        self._mounts.add(mount)
        if mount.endpoint is not None:
            # The driver calls each side's own dispatch, never a converted one.
            view = mount.endpoint.view
            self._sync_cache[view] = mount.endpoint.sync_view
            self._async_cache[view] = mount.endpoint.async_view
        self._static.clear()

    def add_middleware(self, middleware: Any) -> None:
        """Add a middleware inside those added before it.

        The first middleware added is the outermost: ``process_request``
        hooks run in the order of registration, before routing, and
        ``process_response`` hooks in the reverse order, after the
        ``after_request`` hooks, on every response. A ``process_request``
        that answers skips routing, the ``before_request`` hooks, the view
        and the inner middleware; the App's ``after_request`` hooks and the
        outer middleware still process its answer (its own
        ``process_response`` does not run). An exception raised by either
        hook is answered by the App's error handlers, and the outer
        middleware process that answer. See :doc:`/middleware`.

        Args:
            middleware: An object with a ``process_request`` and/or a
                ``process_response`` method, plain or ``async def``, such as a
                :class:`~sansio_http.Middleware` subclass.

        Raises:
            TypeError: The object is a class, not an instance of it; it has
                neither hook; or a hook cannot take the arguments it is
                called with.
        """
        if isinstance(middleware, type):
            # Starlette takes the class and its options; here the hooks are
            # the instance's methods, and the class's would be called without
            # their self on every request.
            raise TypeError(
                f"add_middleware takes an instance: add_middleware({middleware.__name__}()), "
                "with its options as the class's arguments"
            )
        hooks: list[Callable[..., Any] | None] = []
        for name, arguments in (
            ("process_request", "request"),
            ("process_response", "request, response"),
        ):
            hook = getattr(middleware, name, None)
            # A hook inherited from the Middleware base does nothing: skip it.
            if getattr(hook, "__func__", None) is getattr(Middleware, name):
                hook = None
            if hook is not None:
                check_call(hook, f"{type(middleware).__name__}'s hook", arguments)
            hooks.append(hook)
        if hooks == [None, None]:
            raise TypeError(
                f"{middleware!r} is not a middleware: it has neither process_request "
                "nor process_response"
            )
        blocking = getattr(middleware, "blocking", True)
        for hook in hooks:
            if hook is not None:
                self._prepare_hook(hook, blocking=blocking)
        self.middleware.append(middleware)
        self._middleware_hooks.append((hooks[0], hooks[1]))
        if any(
            hook is not None
            and hook not in self._inline_hooks
            and not inspect.iscoroutinefunction(hook)
            for hook in hooks
        ):
            # Under ASGI, a plain hook that may block goes through the
            # pipeline with the view, so that it shares the request's thread.
            self._hooked_middleware = True

    def _prepare_hook(self, hook: Callable[..., Any], *, blocking: bool) -> None:
        if blocking or inspect.iscoroutinefunction(hook):
            self._prepare(hook)
            return
        # A plain hook that never blocks runs inline under ASGI too: a thread
        # hop per request would cost more than the hook itself. The async
        # drivers call the hooks of _inline_hooks directly.
        self._sync_cache[hook] = hook
        self._inline_hooks.add(hook)

    def on_startup(self, func: F) -> F:
        """Run ``func`` once when the server starts, before it serves requests.

        The ASGI lifespan runs the startup hooks, and ``to_wsgi`` when it
        mounts the App; however many times the App is mounted, they run once
        per process. A hook with one parameter receives the lifespan state,
        a :class:`~sansio_http.State` whose values every request's
        ``request.state`` starts with, under either adapter. The App's
        ``lifespan`` is entered before the startup hooks run::

            @app.on_startup
            def connect(state: State) -> None:
                state["db"] = make_pool()

        Args:
            func: The hook, ``def`` or ``async def``, taking no argument or
                the state.

        Returns:
            ``func``, so that this works as a decorator.

        Raises:
            TypeError: ``func`` needs more than one argument.
        """
        hook_arguments(func, self.lifecycle.state)  # refuses a wrong signature now
        self.startup_funcs.append(func)
        return func

    def on_shutdown(self, func: F) -> F:
        """Run ``func`` once when the server stops, if the startup completed.

        Like a startup hook, it may take the lifespan state. Every shutdown
        hook runs, even after one fails.

        Args:
            func: The hook, ``def`` or ``async def``, taking no argument or
                the state.

        Returns:
            ``func``, so that this works as a decorator.

        Raises:
            TypeError: ``func`` needs more than one argument.
        """
        hook_arguments(func, self.lifecycle.state)
        self.shutdown_funcs.append(func)
        return func

    def websocket_view(
        self, request: Request
    ) -> tuple[Callable[..., Awaitable[Any]], dict[str, Any]]:
        """Return the websocket view for a handshake request, as a coroutine function.

        The adapter calls it with its websocket object and the values. While
        it runs, ``current_request`` is the handshake request, as in an HTTP
        view, so ``url_for`` honours the root path (and the prefix of a
        mounted App) and ``_external=True`` has a host.

        Raises:
            NotFound: No websocket rule matches the path.
        """
        view, values = self._websocket_view(request)

        async def in_context(websocket: Any, **values: Any) -> Any:
            token = request_var.set(request)
            try:
                return await view(websocket, **values)
            finally:
                request_var.reset(token)

        return in_context, values

    def _websocket_view(
        self, request: Request
    ) -> tuple[Callable[..., Awaitable[Any]], dict[str, Any]]:
        if self._mounts:
            found = self._mounts.find(request.path)
            if found is not None and found[0].kind == "app" and found[1]:
                # The session lasts as long as the view: the request keeps
                # the mounted App's root path, with nothing to restore.
                mount, rest = found
                inner: App = mount.application
                reroot(request, mount.prefix, rest, inner)
                return inner._websocket_view(request)
        router = self.router
        host = routed_host(request, self.config.trusted_hosts) if router.has_hosts else None
        try:
            rule, values = router.match(request.path, "GET", websocket=True, host=host)
        except NotFound:
            fallback = self._mounts.fallback
            if fallback is None or fallback.kind != "app":
                raise
            root: App = fallback.application
            reroot(request, "", request.path, root)
            return root._websocket_view(request)
        return self._async(self.endpoints[rule.endpoint].view), values
