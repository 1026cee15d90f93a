"""The optional application layer: views, hooks, blueprints and their dispatch.

An :class:`App` routes a :class:`~sansio_http.Request` to a view and turns
what the view returns into a :class:`~sansio_http.Response`, running hooks
and error handlers around it. Any view, hook or error handler may be a plain
function or a coroutine function.

The order of work is written once, as a generator (:meth:`App._pipeline`)
that yields each function to call; two small drivers run it. The sync driver
(for WSGI) calls each function through :meth:`App.ensure_sync`, the async
driver (for ASGI) awaits each through :meth:`App.ensure_async`. The core has
no event loop and no thread: the adapters install the runners that those two
methods use (``App.coroutine_runner`` and ``App.thread_runner``).
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterable, Mapping
from typing import Any, TypeVar, cast

from typing_extensions import ParamSpec

from sansio_http.app._debug import is_local, traceback_page
from sansio_http.app._middleware import Middleware
from sansio_http.bodies._formdata import FormLimits
from sansio_http.messages._errors import HTTPError, InternalServerError, MethodNotAllowed
from sansio_http.messages._request import Request
from sansio_http.messages._response import JSONResponse, Response
from sansio_http.routing import Converter, Router, Rule

__all__ = [
    "App",
    "AppConfig",
    "Blueprint",
    "current_request",
    "g",
]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger("sansio_http.app")

#: Runs a coroutine to completion from sync code (installed by the WSGI adapter).
CoroutineRunner = Callable[[Coroutine[Any, Any, Any]], Any]
#: Runs a plain call off the event loop, context copied (installed by the ASGI adapter).
ThreadRunner = Callable[..., Awaitable[Any]]

_request_var: contextvars.ContextVar[Request] = contextvars.ContextVar("sansio_http.request")


class _CurrentRequest:
    """A stand-in for the request being handled in the current context.

    Attribute access goes to the :class:`~sansio_http.Request` of the view
    running now, in sync and async views alike. Outside a request it raises
    ``RuntimeError``.
    """

    __slots__ = ()

    def _get(self) -> Request:
        try:
            return _request_var.get()
        except LookupError:
            raise RuntimeError(
                "current_request is used outside of a request: it only works while an "
                "App dispatches a request (in a view, a hook or an error handler)"
            ) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)

    def __repr__(self) -> str:
        try:
            return f"<current_request {self._get()!r}>"
        except RuntimeError:
            return "<current_request (no request)>"

    def __bool__(self) -> bool:
        return _request_var.get(None) is not None


#: The request being handled, for code that is not handed it.
current_request: Any = _CurrentRequest()


class _RequestState:
    """A stand-in for the state of the request being handled (Flask's ``g``).

    Reading or setting an attribute goes to ``current_request.state``: one
    scratch space per request, shared by its hooks, view and error handlers,
    under either adapter. Outside a request it raises ``RuntimeError``.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(_CurrentRequest._get(current_request).state, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(_CurrentRequest._get(current_request).state, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(_CurrentRequest._get(current_request).state, name)

    def __contains__(self, name: str) -> bool:
        return name in _CurrentRequest._get(current_request).state

    def get(self, name: str, default: Any = None) -> Any:
        """Return a value of the request's state, or ``default``."""
        return _CurrentRequest._get(current_request).state.get(name, default)

    def __repr__(self) -> str:
        request = _request_var.get(None)
        return f"<g {request.state!r}>" if request is not None else "<g (no request)>"


#: The current request's :class:`~sansio_http.State`, like Flask's ``g``.
g: Any = _RequestState()


@dataclasses.dataclass
class AppConfig:
    """Settings of an :class:`App`.

    Attributes:
        debug: Answer unhandled exceptions with a traceback page instead of
            a bare 500. Never enable it where strangers can reach the app.
        max_content_length: The largest request body the adapters read, in
            bytes (413 past it); ``None`` for no limit.
        form_limits: The limits of form decoding (see
            :class:`~sansio_http.FormLimits` for each and its default).
        threads: Size of the thread pool that runs plain functions under
            ASGI (each App owns its pool).
        extra: Anything else the application wants to keep here.
    """

    debug: bool = False
    # 16 MiB: enough for forms with photos; set it per app for big uploads.
    max_content_length: int | None = 16 * 1024 * 1024
    form_limits: FormLimits = dataclasses.field(default_factory=FormLimits)
    # The default of concurrent.futures for 2-core machines, kept small
    # because blocking views should be rare under ASGI.
    threads: int = 16
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


ErrorKey = type[BaseException] | int


class _Scaffold:
    """What an App and a Blueprint share: rules, hooks and error handlers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: list[tuple[str, str, Callable[..., Any], dict[str, Any]]] = []
        self.before_request_funcs: list[Callable[..., Any]] = []
        self.after_request_funcs: list[Callable[..., Any]] = []
        self.teardown_request_funcs: list[Callable[..., Any]] = []
        self.error_handlers: dict[ErrorKey, Callable[..., Any]] = {}
        self.blueprints: list[tuple[Blueprint, str | None]] = []

    def route(
        self,
        rule: str,
        methods: Iterable[str] | None = None,
        *,
        endpoint: str | None = None,
        websocket: bool = False,
        defaults: Mapping[str, Any] | None = None,
    ) -> Callable[[F], F]:
        """Register the decorated function as the view of a URL rule.

        Args:
            rule: The URL rule, such as ``/users/<int:id>``.
            methods: The methods it answers; GET (and so HEAD) by default.
            endpoint: The name for ``url_for``; the function's name by default.
            websocket: Whether the view takes websocket connections.
            defaults: Values for the view that the URL does not carry.
        """

        def decorator(func: F) -> F:
            self.add_route(
                rule,
                func,
                methods=methods,
                endpoint=endpoint,
                websocket=websocket,
                defaults=defaults,
            )
            return func

        return decorator

    def add_route(
        self,
        rule: str,
        view: Callable[..., Any],
        *,
        methods: Iterable[str] | None = None,
        endpoint: str | None = None,
        websocket: bool = False,
        defaults: Mapping[str, Any] | None = None,
    ) -> None:
        """Register ``view`` for a URL rule (the undecorated ``route``)."""
        options = {
            "methods": list(methods) if methods is not None else None,
            "websocket": websocket,
            "defaults": dict(defaults or {}),
        }
        self._rules.append((rule, endpoint or view.__name__, view, options))
        self._rule_added(rule, endpoint or view.__name__, view, options)

    def _rule_added(
        self, rule: str, endpoint: str, view: Callable[..., Any], options: dict[str, Any]
    ) -> None:
        """Hook for the App to add a rule at once; blueprints wait."""

    def get(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a GET view; see :meth:`route`."""
        return self.route(rule, ["GET"], **options)

    def post(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a POST view; see :meth:`route`."""
        return self.route(rule, ["POST"], **options)

    def put(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a PUT view; see :meth:`route`."""
        return self.route(rule, ["PUT"], **options)

    def patch(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a PATCH view; see :meth:`route`."""
        return self.route(rule, ["PATCH"], **options)

    def delete(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a DELETE view; see :meth:`route`."""
        return self.route(rule, ["DELETE"], **options)

    def websocket(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a websocket view, called with the adapter's WebSocket."""
        return self.route(rule, websocket=True, **options)

    def before_request(self, func: F) -> F:
        """Run ``func(request)`` before each view; a returned value answers."""
        self.before_request_funcs.append(func)
        return func

    def after_request(self, func: F) -> F:
        """Run ``func(request, response)`` after each view; it returns the response."""
        self.after_request_funcs.append(func)
        return func

    def teardown_request(self, func: F) -> F:
        """Run ``func(request, exc)`` at the end of every request, even failed ones."""
        self.teardown_request_funcs.append(func)
        return func

    def errorhandler(self, key: ErrorKey) -> Callable[[F], F]:
        """Handle a status code or an exception class with ``func(request, exc)``."""
        if not isinstance(key, int) and not (
            isinstance(key, type) and issubclass(key, BaseException)
        ):
            raise TypeError(f"errorhandler takes a status code or an exception class: {key!r}")

        def decorator(func: F) -> F:
            self.error_handlers[key] = func
            return func

        return decorator

    def register_blueprint(self, blueprint: Blueprint, url_prefix: str | None = None) -> None:
        """Mount a blueprint, optionally under another URL prefix than its own."""
        self.blueprints.append((blueprint, url_prefix))
        self._blueprint_added(blueprint, url_prefix)

    def _blueprint_added(self, blueprint: Blueprint, url_prefix: str | None) -> None:
        """Hook for the App to register at once; blueprints wait."""


class Blueprint(_Scaffold):
    """A group of views, hooks and error handlers under a name and URL prefix.

    Endpoints become ``"<blueprint>.<view>"``; nested blueprints join names
    with dots and prefixes with slashes. Its hooks and error handlers apply
    to its own views (and those of blueprints nested in it).

    Args:
        name: The name, a prefix for endpoint names.
        url_prefix: The path prefix of its rules, such as ``/admin``.
    """

    def __init__(self, name: str, url_prefix: str | None = None) -> None:
        if "." in name:
            raise ValueError("a blueprint name cannot contain a dot")
        super().__init__(name)
        self.url_prefix = url_prefix


class _Endpoint:
    """What dispatch needs of a rule: its view and the scopes around it.

    Attributes:
        view: The view as registered.
        scopes: The App, then each blueprint around the view, outermost first.
        blueprints: The scopes after the App.
        sync_view: The view as :meth:`App.ensure_sync` converted it.
        async_view: The view as :meth:`App.ensure_async` converted it.
    """

    # PERF: slots, and the converted views kept here, so that dispatch reads
    # each in one step.
    __slots__ = ("async_view", "blueprints", "scopes", "sync_view", "view")

    def __init__(
        self,
        view: Callable[..., Any],
        scopes: tuple[_Scaffold, ...],
        sync_view: Callable[..., Any],
        async_view: Callable[..., Awaitable[Any]],
    ) -> None:
        self.view = view
        self.scopes = scopes
        self.blueprints = scopes[1:]
        self.sync_view = sync_view
        self.async_view = async_view


def _hooked(scopes: tuple[_Scaffold, ...]) -> bool:
    """Whether any of the scopes has a before, after or teardown hook."""
    for scope in scopes:
        if scope.before_request_funcs or scope.after_request_funcs or scope.teardown_request_funcs:
            return True
    return False


def _join(prefix: str | None, rule: str) -> str:
    if not prefix:
        return rule
    return prefix.rstrip("/") + "/" + rule.lstrip("/") if rule != "/" else prefix.rstrip("/") + "/"


_Call = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]
_Pipeline = Generator[_Call, Any, Response]


class App(_Scaffold):
    """A small application: routing, hooks, blueprints, sync and async views.

    Mount it with ``sansio_http.wsgi.to_wsgi(app)`` or
    ``sansio_http.asgi.to_asgi(app)``; both call :meth:`dispatch_sync` or
    :meth:`dispatch_async` with their own request class.

    Args:
        name: A name for logs.
        config: Settings; the defaults of :class:`AppConfig` otherwise.
        converters: Extra URL converters by name.

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
    ) -> None:
        super().__init__(name)
        self.config = config or AppConfig()
        self.router = Router(converters=converters)
        self.endpoints: dict[str, _Endpoint] = {}
        self.startup_funcs: list[Callable[..., Any]] = []
        self.shutdown_funcs: list[Callable[..., Any]] = []
        self.coroutine_runner: CoroutineRunner | None = None
        self.thread_runner: ThreadRunner | None = None
        # The answers of _match for static rules, by path and method, and the
        # router they come from.
        self._static: dict[tuple[str, str], tuple[_Endpoint, dict[str, Any]]] = {}
        self._static_router: Router | None = None
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
    ) -> None:
        prefix = _join(parent_prefix or None, url_prefix or blueprint.url_prefix or "")
        scopes = (*outer, blueprint)
        for rule, endpoint, view, options in blueprint._rules:
            self._add(_join(prefix, rule), f"{name}.{endpoint}", view, options, scopes)
        for child, child_prefix in blueprint.blueprints:
            self._register(child, child_prefix, f"{name}.{child.name}", scopes, prefix)

    def _add(
        self,
        rule: str,
        endpoint: str,
        view: Callable[..., Any],
        options: dict[str, Any],
        scopes: tuple[_Scaffold, ...],
    ) -> None:
        existing = self.endpoints.get(endpoint)
        if existing is not None and existing.view is not view:
            raise ValueError(f"endpoint {endpoint!r} is already taken by another view")
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
        self.endpoints[endpoint] = _Endpoint(
            view, scopes, self._sync_cache[view], self._async_cache[view]
        )

    def _prepare(self, func: Callable[..., Any]) -> None:
        # Convert once, at registration, through the App's (maybe overridden)
        # methods; the runners themselves are looked up at call time, since
        # the adapters install them when they mount the App.
        if func not in self._sync_cache:
            self._sync_cache[func] = self.ensure_sync(func)
        if func not in self._async_cache:
            self._async_cache[func] = self.ensure_async(func)

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
            TypeError: The object has neither hook.
        """
        hooks: list[Callable[..., Any] | None] = []
        for name in ("process_request", "process_response"):
            hook = getattr(middleware, name, None)
            # A hook inherited from the Middleware base does nothing: skip it.
            if getattr(hook, "__func__", None) is getattr(Middleware, name):
                hook = None
            if hook is not None:
                self._prepare_hook(hook, blocking=getattr(middleware, "blocking", True))
            hooks.append(hook)
        if hooks == [None, None]:
            raise TypeError(
                f"{middleware!r} is not a middleware: it has neither process_request "
                "nor process_response"
            )
        self.middleware.append(middleware)
        self._middleware_hooks.append((hooks[0], hooks[1]))

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
        """Run ``func()`` when the server starts (ASGI lifespan, or WSGI mount)."""
        self.startup_funcs.append(func)
        return func

    def on_shutdown(self, func: F) -> F:
        """Run ``func()`` when the server stops."""
        self.shutdown_funcs.append(func)
        return func

    def url_for(
        self,
        endpoint: str,
        *,
        _external: bool = False,
        _anchor: str | None = None,
        _method: str | None = None,
        _request: Request | None = None,
        **values: Any,
    ) -> str:
        """Return the URL of an endpoint; extra values become the query string.

        Inside a request, the URL honours the request's ``root_path``, and
        ``_external=True`` adds its scheme and host.

        Args:
            endpoint: ``"view"`` or ``"blueprint.view"``; a leading dot means
                the blueprint of the current request's endpoint.
            _external: Return an absolute URL.
            _anchor: A fragment to append.
            _method: Pick the rule that accepts this method.
            _request: The request to take the root path and host from;
                the current request by default.
            **values: Placeholder values and query arguments.
        """
        request = _request if _request is not None else _request_var.get(None)
        root_path = request.root_path if request is not None else ""
        base_url = None
        if _external:
            if request is None:
                raise RuntimeError("an external URL needs a request for its host")
            base_url = f"{request.scheme}://{request.host}"
        if endpoint.startswith("."):
            current = self._endpoint_of(request) if request is not None else ""
            blueprint = current.rpartition(".")[0]
            # Outside a blueprint, ".view" names the App's own view (as in Flask).
            endpoint = blueprint + endpoint if blueprint else endpoint[1:]
        return self.router.build(
            endpoint,
            values,
            method=_method,
            root_path=root_path,
            anchor=_anchor,
            base_url=base_url,
        )

    # -- conversion ------------------------------------------------------

    def ensure_sync(self, func: Callable[P, Any]) -> Callable[P, Any]:
        """Return a plain function that runs ``func`` to completion.

        A coroutine function is run through :attr:`coroutine_runner`, which
        the WSGI adapter installs. Override this to use another event loop
        library; blueprints use the App's method too.
        """
        if not inspect.iscoroutinefunction(func):
            return func

        @functools.wraps(func)
        def run(*args: P.args, **kwargs: P.kwargs) -> Any:
            runner = self.coroutine_runner
            if runner is None:
                raise RuntimeError(
                    f"{func.__qualname__} is a coroutine function, and no coroutine runner "
                    "is installed: mount the App with sansio_http.wsgi.to_wsgi or set "
                    "App.coroutine_runner"
                )
            return runner(func(*args, **kwargs))

        return run

    def ensure_async(self, func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
        """Return a coroutine function that calls ``func``.

        A plain function runs through :attr:`thread_runner` (the App's thread
        pool, installed by the ASGI adapter) with the context copied, so it
        cannot block the event loop. Override this to run some functions
        inline; blueprints use the App's method too.
        """
        if inspect.iscoroutinefunction(func):
            return cast(Callable[P, Awaitable[R]], func)

        @functools.wraps(func)
        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            runner = self.thread_runner
            if runner is None:
                raise RuntimeError(
                    f"{func.__qualname__} is a plain function, and no thread runner is "
                    "installed: mount the App with sansio_http.asgi.to_asgi or set "
                    "App.thread_runner"
                )
            return cast(R, await runner(func, *args, **kwargs))

        return run

    def _sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync_cache[func]
        except KeyError:
            converted = self._sync_cache[func] = self.ensure_sync(func)
            return converted

    def _async(self, func: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        try:
            return self._async_cache[func]
        except KeyError:
            converted = self._async_cache[func] = self.ensure_async(func)
            return converted

    # -- dispatch --------------------------------------------------------

    def dispatch_sync(self, request: Request, *, propagate: bool | None = None) -> Response:
        """Answer a request from sync code (the WSGI adapter's side).

        Args:
            request: The request.
            propagate: Raise an exception that no error handler takes,
                after the teardown hooks ran, instead of answering it with
                a 500 (what a test client asks for); None to do as the
                request's :attr:`~sansio_http.Request.propagate_exceptions`
                says.

        Raises:
            Exception: With ``propagate``, the unhandled exception.
        """
        token = _request_var.set(request)
        try:
            if self.before_request_funcs or self.after_request_funcs or self.teardown_request_funcs:
                return self._run_sync(self._pipeline(request, propagate))
            # PERF: without hooks on the App, the pipeline comes down to the
            # process_request hooks, routing, the view and make_response: they
            # are called here, and the parts of the pipeline run only for what
            # needs them (an error, process_response hooks, blueprint hooks).
            # The order of work and its outcome stay those of _pipeline.
            scopes = self._scopes
            entered: list[Callable[..., Any]] | None = None
            failed: Exception | None = None
            try:
                early: Response | None = None
                if self._middleware_hooks:
                    entered = []
                    early = self._enter_middleware_sync(request, entered)
                answer = self._match(request) if early is None else early
                if isinstance(answer, tuple):
                    endpoint, values = answer
                    scopes = endpoint.scopes
                    # With hooks on a blueprint around the view, the pipeline runs.
                    if not endpoint.blueprints or not _hooked(endpoint.blueprints):
                        # PERF: a call without ** when there are no values.
                        result = (
                            endpoint.sync_view(request, **values)
                            if values
                            else endpoint.sync_view(request)
                        )
                        # PERF: a Response as it is, unless a subclass makes its own.
                        answer = (
                            result
                            if result.__class__ is Response and self._plain_make_response
                            else self.make_response(result, endpoint.view)
                        )
                        if entered is None:
                            return answer
            except Exception as exc:
                failed = exc
            if failed is not None:
                answer, _ = self._run_sync(
                    self._handle_exception(request, failed, scopes, propagate)
                )
            if isinstance(answer, tuple):
                return self._run_sync(self._pipeline(request, propagate, answer, entered))
            response = answer
            if entered:
                response, _ = self._run_sync(
                    self._exit_middleware(request, response, entered, propagate)
                )
            return response
        finally:
            _request_var.reset(token)

    async def dispatch_async(self, request: Request, *, propagate: bool | None = None) -> Response:
        """Answer a request from async code (the ASGI adapter's side).

        Args:
            request: The request.
            propagate: Raise an exception that no error handler takes,
                after the teardown hooks ran, instead of answering it with
                a 500 (what a test client asks for); None to do as the
                request's :attr:`~sansio_http.Request.propagate_exceptions`
                says.

        Raises:
            Exception: With ``propagate``, the unhandled exception.
        """
        token = _request_var.set(request)
        try:
            if self.before_request_funcs or self.after_request_funcs or self.teardown_request_funcs:
                return await self._run_async(self._pipeline(request, propagate))
            # PERF: as in dispatch_sync.
            scopes = self._scopes
            entered: list[Callable[..., Any]] | None = None
            failed: Exception | None = None
            try:
                early: Response | None = None
                if self._middleware_hooks:
                    # PERF: the process_request hooks inline (a coroutine of
                    # their own costs as much as a small hook), and a plain
                    # hook that does not block called without a coroutine.
                    entered = []
                    for process_request, process_response in self._middleware_hooks:
                        if process_request is not None:
                            if process_request in self._inline_hooks:
                                result = process_request(request)
                            else:
                                result = await self._async(process_request)(request)
                            if result is not None:
                                early = self.make_response(result, process_request)
                                break
                        if process_response is not None:
                            entered.append(process_response)
                answer = self._match(request) if early is None else early
                if isinstance(answer, tuple):
                    endpoint, values = answer
                    scopes = endpoint.scopes
                    # With hooks on a blueprint around the view, the pipeline runs.
                    if not endpoint.blueprints or not _hooked(endpoint.blueprints):
                        # PERF: a call without ** when there are no values.
                        result = await (
                            endpoint.async_view(request, **values)
                            if values
                            else endpoint.async_view(request)
                        )
                        # PERF: a Response as it is, unless a subclass makes its own.
                        answer = (
                            result
                            if result.__class__ is Response and self._plain_make_response
                            else self.make_response(result, endpoint.view)
                        )
                        if entered is None:
                            return answer
            except Exception as exc:
                # A cancellation is no Exception: it propagates, as it would
                # from the pipeline when there are no teardown hooks to run.
                failed = exc
            if failed is not None:
                answer, _ = await self._run_async(
                    self._handle_exception(request, failed, scopes, propagate)
                )
            if isinstance(answer, tuple):
                return await self._run_async(self._pipeline(request, propagate, answer, entered))
            response = answer
            if entered:
                response, _ = await self._run_async(
                    self._exit_middleware(request, response, entered, propagate)
                )
            return response
        finally:
            _request_var.reset(token)

    def _enter_middleware_sync(
        self, request: Request, entered: list[Callable[..., Any]]
    ) -> Response | None:
        """Run the process_request hooks from sync code, as _enter_middleware does."""
        for process_request, process_response in self._middleware_hooks:
            if process_request is not None:
                result = self._sync(process_request)(request)
                if result is not None:
                    return self.make_response(result, process_request)
            if process_response is not None:
                entered.append(process_response)
        return None

    def _run_sync(self, steps: Generator[_Call, Any, T]) -> T:
        """Drive a pipeline from sync code: call each function it yields."""
        sent: Any = None
        error: BaseException | None = None
        while True:
            try:
                if error is not None:
                    func, args, kwargs = steps.throw(error)
                else:
                    func, args, kwargs = steps.send(sent)
            except StopIteration as done:
                return cast(T, done.value)
            error = None
            try:
                sent = self._sync(func)(*args, **kwargs)
            except BaseException as exc:
                error = exc

    async def _run_async(self, steps: Generator[_Call, Any, T]) -> T:
        """Drive a pipeline from async code: await each function it yields."""
        sent: Any = None
        error: BaseException | None = None
        while True:
            try:
                if error is not None:
                    func, args, kwargs = steps.throw(error)
                else:
                    func, args, kwargs = steps.send(sent)
            except StopIteration as done:
                return cast(T, done.value)
            error = None
            try:
                if func in self._inline_hooks:
                    sent = func(*args, **kwargs)
                else:
                    sent = await self._async(func)(*args, **kwargs)
            except BaseException as exc:
                # Cancellation too: teardown hooks still run.
                error = exc

    def _pipeline(
        self,
        request: Request,
        propagate: bool | None = None,
        routed: tuple[_Endpoint, dict[str, Any]] | None = None,
        entered: list[Callable[..., Any]] | None = None,
    ) -> _Pipeline:
        """Yield each call that answering ``request`` takes; return the response.

        ``routed`` is the endpoint and values of a request that the caller
        routed already, after the process_request hooks, and ``entered`` the
        process_response hooks of the middleware it went through. The teardown
        hooks get ``failure``: the last exception that no error handler took
        and that is not an :class:`HTTPError`, whether it was answered with a
        500 or propagated, or a ``BaseException`` such as a cancellation;
        None otherwise (Flask's rule).
        """
        scopes: tuple[_Scaffold, ...] = (self,)
        failure: BaseException | None = None
        try:
            try:
                # The process_response hooks of the middleware entered so far
                # go into ``entered``.
                if routed is not None:
                    found: tuple[_Endpoint, dict[str, Any]] | Response = routed
                elif self._middleware_hooks:
                    entered = []
                    early = yield from self._enter_middleware(request, entered)
                    found = self._match(request) if early is None else early
                else:
                    found = self._match(request)
                if isinstance(found, Response):
                    response = found
                else:
                    endpoint, values = found
                    scopes = endpoint.scopes
                    response = yield from self._respond(request, endpoint, values)
            except Exception as exc:
                response, failure = yield from self._handle_exception(
                    request, exc, scopes, propagate
                )
            try:
                for scope in reversed(scopes):
                    for hook in reversed(scope.after_request_funcs):
                        response = yield hook, (request, response), {}
            except Exception as exc:
                # A failing after_request hook is handled like a failing view,
                # without running the after_request hooks again.
                response, unhandled = yield from self._handle_exception(
                    request, exc, scopes, propagate
                )
                if unhandled is not None:
                    failure = unhandled
            if entered:
                response, unhandled = yield from self._exit_middleware(
                    request, response, entered, propagate
                )
                if unhandled is not None:
                    failure = unhandled
            return response
        except BaseException as exc:
            failure = exc
            raise
        finally:
            # After GeneratorExit the driver has abandoned the pipeline, and
            # nothing more may be yielded.
            if not isinstance(failure, GeneratorExit):
                for scope in reversed(scopes):
                    for hook in reversed(scope.teardown_request_funcs):
                        try:
                            yield hook, (request, failure), {}
                        except Exception:
                            log.exception("teardown_request hook %r failed", hook)

    def websocket_view(
        self, request: Request
    ) -> tuple[Callable[..., Awaitable[Any]], dict[str, Any]]:
        """Return the websocket view for a handshake request, as a coroutine function.

        The adapter calls it with its websocket object and the values.

        Raises:
            NotFound: No websocket rule matches the path.
        """
        rule, values = self.router.match(request.path, "GET", websocket=True)
        return self._async(self.endpoints[rule.endpoint].view), values

    def _match(self, request: Request) -> tuple[_Endpoint, dict[str, Any]] | Response:
        """Return the endpoint and values for a request, or the OPTIONS answer."""
        path, method = request.path, request.method
        websocket = request.scheme in _WEBSOCKET_SCHEMES
        if not websocket and self._static_router is self.router:
            found = self._static.get((path, method))
            if found is not None:
                return found
        try:
            rule, values = self.router.match(path, method, websocket=websocket)
        except MethodNotAllowed as exc:
            if method != "OPTIONS":
                raise
            # RFC 9110 §9.3.7: answer OPTIONS with what the resource allows.
            return Response(b"", status=204, headers={"Allow": ", ".join(exc.allowed)})
        found = self.endpoints[rule.endpoint], values
        if not (websocket or rule.converters) and len(self._static) < _MAX_STATIC:
            # PERF: the router answers a path that a rule without placeholders
            # takes with that rule whatever rules come after (the first static
            # rule of a path and method wins), so the answer is kept.
            if self._static_router is not self.router:
                self._static = {}
                self._static_router = self.router
            self._static[path, method] = found
        return found

    def _endpoint_of(self, request: Request) -> str:
        """Return the endpoint a request is routed to, or "" when none is.

        PERF: routing again here, for the rare relative ``url_for``, spares
        every request a context variable for its endpoint.
        """
        try:
            found = self.router.find(
                request.path, request.method, websocket=request.scheme in _WEBSOCKET_SCHEMES
            )
        except HTTPError:
            return ""
        return "" if found is None else found[0].endpoint

    def _respond(
        self, request: Request, endpoint: _Endpoint, values: dict[str, Any]
    ) -> Generator[_Call, Any, Response]:
        """Run the before_request hooks and the view."""
        for scope in endpoint.scopes:
            for hook in scope.before_request_funcs:
                result = yield hook, (request,), {}
                if result is not None:
                    return self.make_response(result, hook)
        result = yield endpoint.view, (request,), values
        return self.make_response(result, endpoint.view)

    def _enter_middleware(
        self, request: Request, entered: list[Callable[..., Any]]
    ) -> Generator[_Call, Any, Response | None]:
        """Run the process_request hooks; return an early answer or None."""
        for process_request, process_response in self._middleware_hooks:
            if process_request is not None:
                result = yield process_request, (request,), {}
                if result is not None:
                    return self.make_response(result, process_request)
            if process_response is not None:
                entered.append(process_response)
        return None

    def _exit_middleware(
        self,
        request: Request,
        response: Response,
        entered: list[Callable[..., Any]],
        propagate: bool | None,
    ) -> Generator[_Call, Any, tuple[Response, Exception | None]]:
        """Run the process_response hooks, innermost first.

        Returns the response and the last exception no handler took, as
        :meth:`_handle_exception` does.
        """
        failure: Exception | None = None
        for process_response in reversed(entered):
            try:
                result = yield process_response, (request, response), {}
                if not isinstance(result, Response):
                    name = getattr(process_response, "__qualname__", repr(process_response))
                    raise TypeError(
                        f"{name} returned {type(result).__name__}; process_response "
                        "returns a Response"
                    )
                response = result
            except Exception as exc:
                response, unhandled = yield from self._handle_exception(
                    request, exc, (self,), propagate
                )
                if unhandled is not None:
                    failure = unhandled
        return response, failure

    def _find_handler(
        self, exc: BaseException, scopes: tuple[_Scaffold, ...]
    ) -> Callable[..., Any] | None:
        keys: list[ErrorKey] = []
        if isinstance(exc, HTTPError):
            keys.append(exc.status)
        keys.extend(type(exc).__mro__)
        # Innermost blueprint first; within a scope, the status code, then
        # the most specific class.
        for scope in reversed(scopes):
            for key in keys:
                handler = scope.error_handlers.get(key)
                if handler is not None:
                    return handler
        return None

    def _call_handler(
        self, request: Request, exc: Exception, scopes: tuple[_Scaffold, ...]
    ) -> Generator[_Call, Any, Response | Exception]:
        """Answer ``exc`` with its error handler; return the error left if none did.

        The error left is ``exc`` when no handler takes it or the handler
        raised it again, else what the handler raised (logged).
        """
        handler = self._find_handler(exc, scopes)
        if handler is None:
            return exc
        try:
            result = yield handler, (request, exc), {}
            return self.make_response(result, handler)
        except Exception as second:
            if second is not exc:
                if second.__context__ is None:
                    # The driver called the handler outside any except
                    # block; chain as Python would have, for the traceback.
                    second.__context__ = exc
                log.error("error handler %r failed", handler, exc_info=(type(second), second, None))
            return second

    def _handle_exception(
        self,
        request: Request,
        exc: Exception,
        scopes: tuple[_Scaffold, ...],
        propagate: bool | None,
    ) -> Generator[_Call, Any, tuple[Response, Exception | None]]:
        """Answer an exception; return the response and the unhandled exception.

        As in Flask, the handler of the exception's class (or status) comes
        first; an :class:`HTTPError` left unhandled is its own response. Any
        other exception left is unhandled: it propagates if asked, else the
        handler of 500 gets it as an :class:`InternalServerError` whose
        ``original_exception`` it is; without one, the answer is a bare 500
        (or the debug page).
        """
        answer = yield from self._call_handler(request, exc, scopes)
        if isinstance(answer, Response):
            return answer, None
        if isinstance(answer, HTTPError):
            return answer.to_response(request), None
        unhandled = answer
        if propagate or (propagate is None and request.propagate_exceptions):
            raise unhandled
        log.error(
            "unhandled exception in %s %s",
            request.method,
            request.path,
            exc_info=(type(unhandled), unhandled, unhandled.__traceback__),
        )
        server_error = InternalServerError(original_exception=unhandled)
        answer = yield from self._call_handler(request, server_error, scopes)
        if isinstance(answer, Response):
            return answer, unhandled
        if isinstance(answer, HTTPError) and answer is not server_error:
            return answer.to_response(request), unhandled
        # SECURITY: the traceback only to a client on this machine that
        # names this machine (see is_local), never to the network.
        if self.config.debug and is_local(request):
            page = traceback_page(unhandled)
            return Response(page, status=500, content_type="text/html; charset=utf-8"), unhandled
        return server_error.to_response(request), unhandled

    def make_response(self, result: Any, view: Callable[..., Any] | None = None) -> Response:
        """Turn what a view returned into a Response.

        Accepted: a Response; ``str`` or ``bytes``; a ``dict`` or ``list``
        (JSON); or a ``(body, status)`` or ``(body, status, headers)`` tuple.

        Raises:
            TypeError: Anything else, naming the view.
        """
        if isinstance(result, Response):
            return result
        # PERF: the two most common other answers, without the checks below.
        if type(result) is dict:
            return JSONResponse(result)
        if type(result) is str:
            return Response(result)
        status: int | None = None
        headers: Any = None
        if isinstance(result, tuple):
            if len(result) == 2:
                result, status = result
            elif len(result) == 3:
                result, status, headers = result
            else:
                raise TypeError(_bad_return(view, "a tuple of length " + str(len(result))))
        if isinstance(result, Response):
            if status is not None:
                result.status = status
            if headers:
                result.headers.update(headers)
            return result
        if isinstance(result, str):
            response = Response(result, status=status or 200)
        elif isinstance(result, bytes):
            # Every response needs a type (wsgiref.validate refuses one
            # without); bytes say nothing more than octet-stream.
            response = Response(result, status=status or 200, content_type=_OCTET_STREAM)
        elif isinstance(result, (dict, list)):
            response = JSONResponse(result, status=status or 200)
        else:
            raise TypeError(_bad_return(view, type(result).__name__))
        if headers:
            response.headers.update(headers)
        return response


_OCTET_STREAM = "application/octet-stream"
_WEBSOCKET_SCHEMES = ("ws", "wss")
# The most (path, method) answers of static rules an App keeps: more than
# the static rules of most applications times their methods.
_MAX_STATIC = 1024


def _bad_return(view: Callable[..., Any] | None, what: str) -> str:
    name = getattr(view, "__qualname__", repr(view))
    return (
        f"the view {name} returned {what}; a view returns a Response, str, bytes, "
        "dict, list, or a (body, status[, headers]) tuple"
    )
