"""Registration: what an App and a Blueprint share.

Rules, ``before_request``/``after_request``/``teardown_request`` hooks and
error handlers are recorded here, on either; a Blueprint keeps them until it
is registered, and the App turns them into routes and endpoints at once
(:meth:`_Scaffold._rule_added` and :meth:`_Scaffold._blueprint_added` are its
hooks).

What would only fail later is refused here, where it is written, naming the
fix: a view or hook that is not callable, one that cannot be called with the
arguments the App passes it, an error handler's key that is neither a status
nor an exception class, and a URL prefix that does not start with ``/``. A
blueprint checks when its decorators run, not when it is registered.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from sansio_http.app._static import StaticView
from sansio_http.messages._static import CacheControl, FileSystem, StaticDirectory
from sansio_http.routing._answers import RoutingAnswer
from sansio_http.routing._hosts import host_labels
from sansio_http.routing._rules import Rule, rule_methods

__all__ = ["Blueprint", "ErrorKey", "check_call"]

F = TypeVar("F", bound=Callable[..., Any])

#: What an error handler is registered for: an exception class or a status code.
ErrorKey = type[BaseException] | int


def check_call(func: object, role: str, arguments: str) -> None:
    """Refuse ``func`` unless it can be called with the named arguments.

    The check binds placeholders to the signature, so that defaults,
    ``*args``, keyword-only parameters with defaults, bound methods,
    callable objects and :func:`functools.partial` are judged as a call
    would judge them. A decorator's wrapper is judged by its own signature,
    not the wrapped function's: the wrapper is what the App calls.

    Args:
        func: The registered function.
        role: What it is, for the message, such as ``"error handler"``.
        arguments: The names of the positional arguments the App passes it,
            comma-separated, such as ``"request, exc"``.

    Raises:
        TypeError: ``func`` is not callable, or cannot take the arguments.
    """
    if not callable(func):
        raise TypeError(
            f"{role} is a function called as func({arguments}), not {func!r}: "
            "pass the function itself"
        )
    try:
        signature = inspect.signature(func, follow_wrapped=False)
    except (TypeError, ValueError):
        # Some builtins and extension callables have no signature to read;
        # the call will tell.
        return
    names = arguments.split(", ")
    try:
        signature.bind(*names)
    except TypeError:
        name = getattr(func, "__name__", None) or type(func).__name__
        # The parameters alone: annotations make the message hard to read.
        signature = signature.replace(
            parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
            return_annotation=signature.empty,
        )
        raise TypeError(
            f"{role} {name}{signature} is called as {name}({arguments}): make it take ({arguments})"
        ) from None


def _check_view(rule: str, view: object) -> None:
    if callable(view):
        return
    fix = "pass the function itself"
    if isinstance(view, str) and "." in view:
        module, _, name = view.rpartition(".")
        fix += f" (from {module} import {name}), not its name"
    raise TypeError(f"the view of rule {rule!r} is a function, not {view!r}: {fix}")


def _check_rule(rule: object, method: str) -> None:
    if isinstance(rule, str):
        return
    if callable(rule):
        # @app.get without parentheses would register nothing and put the
        # decorator in the view's place; add_route(view, "/path") swaps them.
        fix = (
            "write add_route('/path', view)"
            if method == "add_route"
            else f"write @app.{method}('/path'), with the rule in parentheses"
        )
        raise TypeError(f"{method} takes the URL rule first, not {rule!r}: {fix}")
    raise TypeError(f"a URL rule is a str such as '/items', not {rule!r}")


def _check_prefix(name: str, url_prefix: object, *, positional: bool = False) -> None:
    """Refuse a URL prefix that does not start with ``/`` (``None`` and ``""`` are none).

    ``positional`` says that it may be the second argument of ``Blueprint``,
    where Flask takes the ``import_name``.
    """
    if url_prefix is None or url_prefix == "":
        return
    if not isinstance(url_prefix, str):
        raise TypeError(f"the URL prefix of blueprint {name!r} is a str, not {url_prefix!r}")
    if url_prefix.startswith("/"):
        return
    if positional and all(part.isidentifier() for part in url_prefix.split(".")):
        # Blueprint("admin", __name__), Flask's spelling, would mount the
        # blueprint under the module's name.
        raise ValueError(
            f"Blueprint({name!r}, {url_prefix!r}): the second argument is the URL "
            f"prefix, not Flask's import_name: write Blueprint({name!r}) or "
            f"Blueprint({name!r}, url_prefix='/{name}')"
        )
    raise ValueError(
        f"the URL prefix of blueprint {name!r} must start with '/': "
        f"write url_prefix='/{url_prefix}'"
    )


def _check_host(host: object, rule: str, endpoint: str) -> None:
    """Refuse a host that no router would take, where it is written (None is none).

    Raises:
        TypeError: ``host`` is not a string.
        ValueError: ``host`` is not a host name without a port, or its
            placeholders are malformed.
    """
    if host is None:
        return
    if not isinstance(host, str):
        raise TypeError(
            f"the host of rule {rule!r} is a str such as 'api.example.com', not {host!r}"
        )
    # The path's own checks wait for the router, as they always did.
    host_labels(Rule("/", endpoint, host=host))


def _check_error_key(key: object) -> None:
    if isinstance(key, BaseException):
        raise TypeError(
            f"errorhandler takes the class {type(key).__name__}, not an instance: "
            f"write @app.errorhandler({type(key).__name__})"
        )
    if isinstance(key, type) and issubclass(key, RoutingAnswer):
        raise TypeError(
            f"{key.__name__} is a routing answer, not an error: no error handler "
            "receives it. To change redirects or OPTIONS answers, use an "
            "after_request hook, or set app.router.redirect_slashes = False"
        )
    if isinstance(key, type) and issubclass(key, BaseException):
        return
    # NOTE: bool is an int, and a number out of 100-599 is no status
    # (RFC 9110 §15): either would never match an error.
    if isinstance(key, int) and not isinstance(key, bool) and 100 <= key <= 599:
        return
    if callable(key) and not isinstance(key, type):
        # @app.errorhandler without its key: the handler came in as the key.
        raise TypeError(
            f"errorhandler takes a status code or an exception class, not {key!r}: "
            "write @app.errorhandler(404) or @app.errorhandler(SomeError) above the handler"
        )
    raise TypeError(
        f"errorhandler takes a status code or an exception class, not {key!r}: "
        "write @app.errorhandler(404) or @app.errorhandler(SomeError)"
    )


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
        #: What the static routes read files through; the adapters install an
        #: ``os``-based one on the App when they mount it. None on a
        #: blueprint: its static routes use the App's.
        self.file_system: FileSystem | None = None
        # Where this one is registered, for its static routes to find the App's file system.
        self._parents: list[_Scaffold] = []

    def route(
        self,
        rule: str,
        methods: Iterable[str] | None = None,
        *,
        endpoint: str | None = None,
        websocket: bool = False,
        defaults: Mapping[str, Any] | None = None,
        host: str | None = None,
    ) -> Callable[[F], F]:
        """Register the decorated function as the view of a URL rule.

        Args:
            rule: The URL rule, such as ``/users/<int:id>``.
            methods: The methods it answers; GET (and so HEAD) by default.
            endpoint: The name for ``url_for``; the function's name by default.
            websocket: Whether the view takes websocket connections.
            defaults: Values for the view that the URL does not carry.
            host: The only host it answers, such as ``api.example.com`` or
                ``<tenant>.example.com`` (its values are the view's
                arguments, as the path's); on a blueprint, the blueprint's
                host by default. The App needs ``AppConfig.trusted_hosts``
                for it (see :doc:`/app`).

        Raises:
            TypeError: ``rule`` is not a string (``@app.route`` written without
                its rule), or ``methods`` is a string.
            ValueError: ``host`` is not a host name without a port, or its
                placeholders are malformed.
        """
        _check_rule(rule, "route")
        _check_host(host, rule, endpoint or "")

        def decorator(func: F) -> F:
            self.add_route(
                rule,
                func,
                methods=methods,
                endpoint=endpoint,
                websocket=websocket,
                defaults=defaults,
                host=host,
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
        host: str | None = None,
    ) -> None:
        """Register ``view`` for a URL rule (the undecorated ``route``).

        Raises:
            TypeError: ``methods`` is a string: write ``methods=["GET"]``;
                ``view`` is not callable (such as its name in a string); or
                it has no ``__name__`` and no ``endpoint`` names it.
            ValueError: ``host`` is not a host name without a port, or its
                placeholders are malformed.
        """
        _check_rule(rule, "add_route")
        _check_view(rule, view)
        if endpoint is None:
            endpoint = getattr(view, "__name__", None)
            if not isinstance(endpoint, str):
                raise TypeError(
                    f"the view {view!r} of rule {rule!r} has no __name__: "
                    "name its endpoint with endpoint='...'"
                )
        listed = methods if methods is None or isinstance(methods, str) else list(methods)
        # A Blueprint makes its rules when it is registered: methods="GET" (which
        # would allow G, E and T) is refused here, where it is written.
        rule_methods(listed, rule)
        _check_host(host, rule, endpoint)
        options = {
            "methods": listed,
            "websocket": websocket,
            "defaults": dict(defaults or {}),
            "host": host,
        }
        self._rules.append((rule, endpoint, view, options))
        self._rule_added(rule, endpoint, view, options)

    def _rule_added(
        self, rule: str, endpoint: str, view: Callable[..., Any], options: dict[str, Any]
    ) -> None:
        """Hook for the App to add a rule at once; blueprints wait."""

    def get(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a GET view; see :meth:`route`."""
        _check_rule(rule, "get")
        return self.route(rule, ["GET"], **options)

    def post(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a POST view; see :meth:`route`."""
        _check_rule(rule, "post")
        return self.route(rule, ["POST"], **options)

    def put(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a PUT view; see :meth:`route`."""
        _check_rule(rule, "put")
        return self.route(rule, ["PUT"], **options)

    def patch(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a PATCH view; see :meth:`route`."""
        _check_rule(rule, "patch")
        return self.route(rule, ["PATCH"], **options)

    def delete(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a DELETE view; see :meth:`route`."""
        _check_rule(rule, "delete")
        return self.route(rule, ["DELETE"], **options)

    def websocket(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Register a websocket view, called with the adapter's WebSocket."""
        _check_rule(rule, "websocket")
        return self.route(rule, websocket=True, **options)

    def before_request(self, func: F) -> F:
        """Run ``func(request)`` before each view; a returned value answers.

        Raises:
            TypeError: ``func`` is not callable, or cannot take ``(request)``.
        """
        check_call(func, "a before_request hook", "request")
        self.before_request_funcs.append(func)
        return func

    def after_request(self, func: F) -> F:
        """Run ``func(request, response)`` after each view; it returns the response.

        Raises:
            TypeError: ``func`` is not callable, or cannot take ``(request, response)``.
        """
        check_call(func, "an after_request hook", "request, response")
        self.after_request_funcs.append(func)
        return func

    def teardown_request(self, func: F) -> F:
        """Run ``func(request, exc)`` at the end of every request, even failed ones.

        Raises:
            TypeError: ``func`` is not callable, or cannot take ``(request, exc)``.
        """
        check_call(func, "a teardown_request hook", "request, exc")
        self.teardown_request_funcs.append(func)
        return func

    def errorhandler(self, key: ErrorKey) -> Callable[[F], F]:
        """Handle a status code or an exception class with ``func(request, exc)``.

        Raises:
            TypeError: ``key`` is neither a status code (100 to 599) nor an
                exception class, or the decorated function is not callable
                or cannot take ``(request, exc)``.
        """
        _check_error_key(key)

        def decorator(func: F) -> F:
            check_call(func, "an error handler", "request, exc")
            self.error_handlers[key] = func
            return func

        return decorator

    def register_blueprint(self, blueprint: Blueprint, url_prefix: str | None = None) -> None:
        """Mount a blueprint, optionally under another URL prefix than its own.

        Raises:
            TypeError: ``blueprint`` is not a :class:`Blueprint`.
            ValueError: ``url_prefix`` does not start with ``/``.
        """
        if not isinstance(blueprint, Blueprint):
            raise TypeError(
                f"register_blueprint takes a Blueprint, not {blueprint!r}: "
                "make one with Blueprint(name, url_prefix=...)"
            )
        _check_prefix(blueprint.name, url_prefix)
        self.blueprints.append((blueprint, url_prefix))
        blueprint._parents.append(self)
        self._blueprint_added(blueprint, url_prefix)

    def _blueprint_added(self, blueprint: Blueprint, url_prefix: str | None) -> None:
        """Hook for the App to register at once; blueprints wait."""

    def static(
        self,
        prefix: str,
        directory: str | os.PathLike[str],
        *,
        endpoint: str = "static",
        cache_control: CacheControl = None,
        dotfiles: bool = False,
        follow_symlinks: bool = False,
        precompressed: bool = True,
        html: bool = False,
        not_found: str | None = None,
        package: str | None = None,
        file_system: FileSystem | None = None,
    ) -> None:
        """Serve the files of ``directory`` under the URL prefix ``prefix``.

        ``app.static("/static", "assets")`` answers ``GET /static/css/site.css``
        with ``assets/css/site.css``, by the rules of
        :func:`~sansio_http.static_response`: conditional and range requests,
        HEAD, precompressed ``.br`` and ``.gz`` siblings, and a 404 for every
        path that is not a regular file inside the folder (``..``, encoded
        slashes, dotfiles, symlinks leading out...). Build its URLs with
        ``url_for("static", path="css/site.css")``.

        A static site: with ``html=True``, ``GET <prefix>/`` and
        ``GET <prefix>/docs/`` serve the folders' ``index.html``, and
        ``<prefix>`` and ``<prefix>/docs`` redirect (308) to the URL with a
        slash; ``not_found="404.html"`` answers a 404 with that page. With
        ``package="myext"``, ``directory`` is a folder inside that package
        (``app.static("/admin/static", "static", package="myext")``). See
        :doc:`/static-and-mounting`.

        Args:
            prefix: The URL prefix, such as ``/static``; below a blueprint's
                own prefix on a blueprint.
            directory: The folder, trusted; a relative one is found from the
                server's working directory when the request comes.
            endpoint: The endpoint name, for ``url_for`` and for a second
                folder (``endpoint="media"``).
            cache_control: The Cache-Control value, or a function of the path
                below the prefix returning one (None: ``no-cache``).
            dotfiles: Whether to serve names that start with a dot.
            follow_symlinks: Whether a symlink may lead outside the folder.
            precompressed: Whether to send ``.br`` and ``.gz`` siblings to
                clients that accept them.
            html: Whether a folder's URL (with a slash) serves its
                ``index.html``, and one without a slash redirects there.
            not_found: The page below the folder, such as ``"404.html"``,
                that a 404 of the route carries.
            package: The dotted name of an importable package whose folder
                ``directory`` is inside. The adapter's file system finds it:
                here if the file system is known (``file_system``, or the
                App is served already), else when ``to_wsgi`` or ``to_asgi``
                serves the App.
            file_system: What stats the files; by default the one the adapter
                installs on the App (:attr:`file_system`).

        Raises:
            TypeError: ``prefix`` or ``directory`` is not text,
                ``cache_control`` is neither a string, a callable nor None,
                or ``not_found`` or ``package`` is not text.
            ValueError: ``prefix`` does not start with ``/``, ``directory``
                is empty (or, with ``package``, not a relative path inside
                it), ``not_found`` is not a page the route would serve, or
                the package cannot be served (not found, or not a folder on
                disk, such as a zipped one).
        """
        if not isinstance(prefix, str):
            raise TypeError(
                f"static() takes the URL prefix first, such as '/static', not {prefix!r}"
            )
        if not prefix.startswith("/"):
            raise ValueError(f"the static prefix must start with '/': write '/{prefix}'")
        rules = StaticDirectory(
            directory,
            cache_control=cache_control,
            dotfiles=dotfiles,
            follow_symlinks=follow_symlinks,
            precompressed=precompressed,
            html=html,
            not_found=not_found,
            package=package,
        )
        found = self._find_file_system if file_system is None else lambda: file_system
        view = StaticView(rules, found, endpoint)
        view.prepare()
        base = prefix.rstrip("/")
        if html:
            # The folder itself: url_for(endpoint, path="") builds it, and the
            # router redirects the prefix without its slash here (308).
            self.add_route(
                base + "/", view, methods=["GET"], endpoint=endpoint, defaults={"path": ""}
            )
        self.add_route(base + "/<path:path>", view, methods=["GET"], endpoint=endpoint)

    def _find_file_system(self) -> FileSystem | None:
        """Return this one's file system, else the first one above it."""
        waiting: list[_Scaffold] = [self]
        seen: set[int] = set()
        while waiting:
            scaffold = waiting.pop(0)
            if scaffold.file_system is not None:
                return scaffold.file_system
            if id(scaffold) not in seen:
                seen.add(id(scaffold))
                waiting.extend(scaffold._parents)
        return None


class Blueprint(_Scaffold):
    """A group of views, hooks and error handlers under a name and URL prefix.

    Endpoints become ``"<blueprint>.<view>"``; nested blueprints join names
    with dots and prefixes with slashes. Its hooks and error handlers apply
    to its own views (and those of blueprints nested in it).

    Args:
        name: The name, a prefix for endpoint names.
        url_prefix: The path prefix of its rules, such as ``/admin``.
        host: The host of its rules that name none themselves, such as
            ``<tenant>.example.com``; a nested blueprint without one takes
            it too. None: any host (or the host of the blueprint it is in).

    Raises:
        ValueError: ``name`` holds a dot, or ``url_prefix`` does not start
            with ``/``; Flask's ``Blueprint("admin", __name__)`` is refused
            so, since the second argument here is the URL prefix. ``host``
            is not a host name without a port.
    """

    def __init__(
        self, name: str, url_prefix: str | None = None, *, host: str | None = None
    ) -> None:
        if "." in name:
            raise ValueError("a blueprint name cannot contain a dot")
        _check_prefix(name, url_prefix, positional=True)
        _check_host(host, url_prefix or "/", name)
        super().__init__(name)
        self.url_prefix = url_prefix
        self.host = host
