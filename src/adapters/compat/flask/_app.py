"""``Flask``: the App, with Flask's registration, contexts and settings."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from typing import IO, TYPE_CHECKING, Any, TypeVar

from sansio_http import App, HTTPException, JSONResponse, Request, Response, SessionMiddleware
from sansio_http.app import Blueprint as AppBlueprint
from sansio_http.bodies._body import BodyRequest
from sansio_http.compat.flask._config import DEFAULT_CONFIG, Config
from sansio_http.compat.flask._globals import AppContext, RequestContext, _request_var
from sansio_http.compat.flask._paths import instance_path_of, root_path_of
from sansio_http.compat.flask._responses import HTML, flask_response
from sansio_http.compat.flask._scaffold import FlaskScaffold
from sansio_http.routing import Router, Rule

if TYPE_CHECKING:
    from sansio_http.compat.flask._blueprints import Blueprint
    from sansio_http.compat.flask._cli import AppGroup, FlaskCliRunner
    from sansio_http.compat.flask._testing import FlaskClient

__all__ = ["Flask"]

# PERF: the bound methods taken once (see sansio_http.app._dispatch).
_set_context = _request_var.set
_reset_context = _request_var.reset
_dispatch_sync = App.dispatch_sync
_dispatch_async = App.dispatch_async

F = TypeVar("F", bound=Callable[..., Any])

_NO_SECRET = (
    "The session is unavailable because no secret key was set. Set the secret_key "
    "on the application to something unique and secret."
)
# Domain separation for the key the session cookie is signed with: Flask accepts
# any SECRET_KEY (the tutorial's is "dev"), the App's sessions want 32 bytes.
_SESSION_KEY_SALT = b"sansio_http.compat.flask session\x00"


class NullSession(dict[str, Any]):
    """The session of an app without a secret key: reads work, writes raise."""

    modified = False
    accessed = False

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(_NO_SECRET)

    __setitem__ = __delitem__ = clear = pop = popitem = update = setdefault = _refuse


class Flask(FlaskScaffold, App):
    """A Flask application, served by the App under WSGI and ASGI.

    Write it as for Flask: views take their route values only and read
    ``request``, ``session`` and ``g``; hooks and error handlers take what
    Flask passes them. The object is both a WSGI and an ASGI application:
    gunicorn calls it with ``(environ, start_response)``, uvicorn (with
    ``--interface asgi3``) with ``(scope, receive, send)``.

    Args:
        import_name: The app's module or package (``__name__``): its folder
            holds ``static``, ``templates`` and resources.
        static_url_path: The URL prefix of the static files; ``/static`` by default.
        static_folder: The folder of static files, relative to the root
            path; None for none.
        template_folder: The folder of Jinja templates.
        instance_path: The instance folder; ``instance`` beside the package by default.
        instance_relative_config: Find config files in the instance folder.
        root_path: The app's folder, instead of the one of ``import_name``.
    """

    def __init__(
        self,
        import_name: str,
        static_url_path: str | None = None,
        static_folder: str | os.PathLike[str] | None = "static",
        static_host: str | None = None,
        host_matching: bool = False,
        subdomain_matching: bool = False,
        template_folder: str | os.PathLike[str] | None = "templates",
        instance_path: str | None = None,
        instance_relative_config: bool = False,
        root_path: str | None = None,
    ) -> None:
        if static_host or host_matching or subdomain_matching:
            raise TypeError(
                "Flask(static_host=, host_matching=, subdomain_matching=) are not "
                "supported: the layer routes by path alone; leave them out"
            )
        App.__init__(self, import_name)
        self._init_scaffold()
        self.import_name = import_name
        self.root_path = root_path or root_path_of(import_name)
        if instance_path is None:
            instance_path = instance_path_of(import_name)
        elif not os.path.isabs(instance_path):
            raise ValueError("If an instance path is provided it must be absolute.")
        self.instance_path = instance_path
        #: The settings: a dict with Flask's loaders, which also answers the
        #: App's settings (``debug``, ``max_content_length``...).
        self.config: Config = Config(  # type: ignore[assignment]
            instance_path if instance_relative_config else self.root_path, DEFAULT_CONFIG
        )
        self.template_folder = None if template_folder is None else os.fspath(template_folder)
        self.static_folder: str | None = None
        self.static_url_path: str | None = None
        self._static_endpoints: set[str] = set()
        if static_folder is not None:
            self.static_folder = os.path.join(self.root_path, static_folder)
            self.static_url_path = static_url_path or "/" + os.path.basename(
                os.fspath(static_folder)
            )
            self.static(self.static_url_path, self.static_folder)
        self.teardown_appcontext_funcs: list[Callable[..., Any]] = []
        self._alias_router = Router()
        self._flask_blueprints: dict[str, Blueprint] = {}
        self._session_signer: tuple[tuple[Any, ...], SessionMiddleware] | None = None
        self._jinja_env: Any = None
        self._cli: AppGroup | None = None
        self.template_filters: dict[str, Callable[..., Any]] = {}
        self.template_globals: dict[str, Callable[..., Any]] = {}
        # Where the test client keeps the contexts of its requests (`with client:`).
        self._kept_contexts: list[RequestContext] | None = None
        self._wsgi: Any = None
        self._asgi: Any = None
        self._made_lock = threading.Lock()

    # -- settings ----------------------------------------------------------------

    @property
    def logger(self) -> logging.Logger:
        """The logger named after the app's ``import_name``, as Flask's ``app.logger``."""
        return logging.getLogger(self.import_name)

    @property
    def testing(self) -> bool:
        """``config["TESTING"]``."""
        return bool(self.config["TESTING"])

    @testing.setter
    def testing(self, value: bool) -> None:
        self.config["TESTING"] = value

    @property
    def debug(self) -> bool:
        """``config["DEBUG"]``."""
        return bool(self.config["DEBUG"])

    @debug.setter
    def debug(self, value: bool) -> None:
        self.config["DEBUG"] = value

    @property
    def secret_key(self) -> str | bytes | None:
        """``config["SECRET_KEY"]``, which signs the session cookie."""
        value: str | bytes | None = self.config["SECRET_KEY"]
        return value

    @secret_key.setter
    def secret_key(self, value: str | bytes | None) -> None:
        self.config["SECRET_KEY"] = value

    @property
    def permanent_session_lifetime(self) -> timedelta:
        """``config["PERMANENT_SESSION_LIFETIME"]``."""
        value = self.config["PERMANENT_SESSION_LIFETIME"]
        return value if isinstance(value, timedelta) else timedelta(seconds=value)

    def open_resource(self, resource: str, mode: str = "rb") -> IO[Any]:
        """Open a file of the app's folder (read-only), such as ``schema.sql``.

        Raises:
            ValueError: ``mode`` is not a reading mode.
        """
        if mode not in ("r", "rt", "rb"):
            raise ValueError("Resources can only be opened for reading.")
        return open(os.path.join(self.root_path, resource), mode)

    def open_instance_resource(self, resource: str, mode: str = "rb") -> IO[Any]:
        """Open a file of the instance folder."""
        return open(os.path.join(self.instance_path, resource), mode)

    # -- registration ------------------------------------------------------------

    def _add_alias(self, rule: str, endpoint: str, methods: Iterable[str] | None) -> None:
        listed = None if methods is None else list(methods)
        self._alias_router.add(Rule(rule, endpoint, methods=listed))

    def _add(
        self,
        rule: str,
        endpoint: str,
        view: Callable[..., Any],
        options: dict[str, Any],
        scopes: tuple[Any, ...],
    ) -> None:
        super()._add(rule, endpoint, view, options, scopes)
        # As Werkzeug builds: of an endpoint's rules, those that take more
        # values first, so url_for("page", name="x") picks "/page/<name>"
        # over "/" with a query string.
        built = self.router._by_endpoint[endpoint]
        built.sort(key=lambda entry: -len(entry[0].arguments))

    def _build(
        self,
        endpoint: str,
        values: dict[str, Any],
        method: str | None,
        root_path: str,
        anchor: str | None,
        base_url: str | None,
        built: tuple[Request | None, str | None],
    ) -> str:
        if endpoint in self._static_endpoints and "filename" in values:
            values = dict(values)
            values["path"] = values.pop("filename")
        try:
            return super()._build(endpoint, values, method, root_path, anchor, base_url, built)
        except LookupError:
            if not self._alias_router._by_endpoint.get(endpoint):
                raise
        return self._alias_router.build(
            endpoint,
            values,
            method=method,
            root_path=root_path,
            anchor=anchor,
            base_url=base_url,
        )

    def static(self, prefix: str, directory: str | os.PathLike[str], **options: Any) -> None:
        """Serve a folder's files; ``url_for(endpoint, filename=...)`` builds their URLs."""
        super().static(prefix, directory, **options)
        self._static_endpoints.add(options.get("endpoint", "static"))

    def register_blueprint(
        self, blueprint: AppBlueprint, url_prefix: str | None = None, **options: Any
    ) -> None:
        """Register a blueprint; its ``before_app_request`` (...) functions apply to the app.

        Raises:
            ValueError: A blueprint of that name is registered already.
        """
        from sansio_http.compat.flask._blueprints import Blueprint

        if options.get("name"):
            raise TypeError("register_blueprint(name=...) is not supported: make another Blueprint")
        if isinstance(blueprint, Blueprint):
            if blueprint.name in self._flask_blueprints:
                raise ValueError(f"The name {blueprint.name!r} is already registered.")
            self._flask_blueprints[blueprint.name] = blueprint
        App.register_blueprint(self, blueprint, url_prefix)
        if isinstance(blueprint, Blueprint):
            for endpoint in [e for e in self.endpoints if e.startswith(blueprint.name + ".")]:
                if endpoint.endswith(".static"):
                    self._static_endpoints.add(endpoint)
            for deferred in blueprint.deferred_functions:
                deferred(self)

    @property
    def blueprints_by_name(self) -> dict[str, Blueprint]:
        """The Flask blueprints registered, by name."""
        return self._flask_blueprints

    def teardown_appcontext(self, func: F) -> F:
        """Run ``func(exc)`` when an application context ends (each request's too)."""
        if not self.teardown_appcontext_funcs:
            # A request's application context ends with its teardown hooks, on
            # the thread that ran its def hooks and view (the App's request
            # lane), after the teardown_request hooks: first in the list, the
            # App runs it last. PERF: only apps that have such functions pay.
            App.teardown_request(self, self._teardown_app_context)
            hooks = self.teardown_request_funcs
            hooks.insert(0, hooks.pop())
        self.teardown_appcontext_funcs.append(func)
        return func

    def shell_context_processor(self, func: F) -> F:
        """Accepted for compatibility; the layer has no ``shell`` command."""
        return func

    def template_filter(self, name: str | None = None) -> Callable[[F], F]:
        """Register the decorated function as a Jinja filter."""

        def decorator(func: F) -> F:
            self.add_template_filter(func, name)
            return func

        return decorator

    def add_template_filter(self, func: Callable[..., Any], name: str | None = None) -> None:
        """Register a Jinja filter."""
        self.template_filters[name or func.__name__] = func
        if self._jinja_env is not None:
            self._jinja_env.filters[name or func.__name__] = func

    def template_global(self, name: str | None = None) -> Callable[[F], F]:
        """Register the decorated function as a Jinja global."""

        def decorator(func: F) -> F:
            self.add_template_global(func, name)
            return func

        return decorator

    def add_template_global(self, func: Callable[..., Any], name: str | None = None) -> None:
        """Register a Jinja global."""
        self.template_globals[name or func.__name__] = func
        if self._jinja_env is not None:
            self._jinja_env.globals[name or func.__name__] = func

    @property
    def jinja_env(self) -> Any:
        """The Jinja2 environment, made on first use (needs the ``flask`` extra)."""
        if self._jinja_env is None:
            from sansio_http.compat.flask._templating import create_environment

            self._jinja_env = create_environment(self)
        return self._jinja_env

    # -- responses ---------------------------------------------------------------

    def make_response(self, result: Any, view: Callable[..., Any] | None = None) -> Response:
        """Turn what a view returned into a Response, as Flask does.

        A str is ``text/html``; a dict or list is JSON; a generator streams;
        tuples are ``(body, status)``, ``(body, headers)`` or
        ``(body, status, headers)``.
        """
        # PERF: the usual answers first, as the App's own make_response does.
        kind = type(result)
        if kind is str:
            return Response(result, content_type=HTML)
        if kind is dict:
            return JSONResponse(result)
        return flask_response(result, view, self._app_make_response)

    def _app_make_response(self, result: Any, view: Callable[..., Any] | None = None) -> Response:
        return App.make_response(self, result, view)

    # -- contexts ----------------------------------------------------------------

    def app_context(self) -> AppContext:
        """Return an application context, for ``with app.app_context():``."""
        return AppContext(self)

    def do_teardown_appcontext(self, exc: BaseException | None = None) -> None:
        """Call the ``teardown_appcontext`` functions, last registered first."""
        for func in reversed(self.teardown_appcontext_funcs):
            self.ensure_sync(func)(exc)

    def _teardown_app_context(self, request: Any, exc: BaseException | None) -> None:
        self.do_teardown_appcontext(exc)

    def _route_of(self, request: BodyRequest) -> tuple[str | None, dict[str, Any] | None]:
        """Return the endpoint and the route values of a request, or Nones.

        Nones too where routing answered without a rule: the 308 to the
        slashed path and the 204 to OPTIONS are no errors, but no view either.
        """
        try:
            found = self.router.find(
                request.path, request.method, websocket=request.scheme in ("ws", "wss")
            )
        except HTTPException:
            return None, None
        if found is None:
            return None, None
        return found[0].endpoint, found[1]

    def open_session(self, request: BodyRequest) -> Any:
        """Load the session from the request's cookie (Flask's ``session_interface``)."""
        signer = self._signer()
        if signer is None:
            return NullSession()
        signer.process_request(request)
        return request.state.session

    def _signer(self) -> SessionMiddleware | None:
        config = self.config
        secret = config["SECRET_KEY"]
        if not secret:
            return None
        settings = (
            secret,
            config["SESSION_COOKIE_NAME"],
            config["SESSION_COOKIE_PATH"] or config["APPLICATION_ROOT"] or "/",
            config["SESSION_COOKIE_DOMAIN"],
            config["SESSION_COOKIE_SECURE"],
            config["SESSION_COOKIE_HTTPONLY"],
            config["SESSION_COOKIE_SAMESITE"],
            self.permanent_session_lifetime,
        )
        if self._session_signer is not None and self._session_signer[0] == settings:
            return self._session_signer[1]
        raw = secret.encode() if isinstance(secret, str) else bytes(secret)
        signer = SessionMiddleware(
            hashlib.sha256(_SESSION_KEY_SALT + raw).digest(),
            cookie_name=settings[1],
            path=settings[2],
            domain=settings[3],
            secure=settings[4] or None,
            httponly=settings[5],
            samesite=settings[6],
            max_age=settings[7],
        )
        self._session_signer = (settings, signer)
        return signer

    def _save_session(self, context: RequestContext, response: Response) -> None:
        if isinstance(context._session, NullSession):
            return
        signer = self._signer()
        if signer is not None:
            signer.process_response(context.raw_request, response)

    def dispatch_sync(self, request: BodyRequest, *, propagate: bool | None = None) -> Response:  # type: ignore[override]
        """Answer a request from sync code, with Flask's contexts around it."""
        context = RequestContext(self, request)
        token = _set_context(context)
        try:
            config = self.config
            setting = config["PROPAGATE_EXCEPTIONS"]
            if setting is None:
                setting = True if config["TESTING"] else propagate
            response = _dispatch_sync(self, request, propagate=setting)
            if context._session is not None:
                self._save_session(context, response)
            return response
        finally:
            _reset_context(token)
            if self._kept_contexts is not None:
                self._kept_contexts.append(context)

    async def dispatch_async(  # type: ignore[override]
        self, request: BodyRequest, *, propagate: bool | None = None
    ) -> Response:
        """Answer a request from async code, with Flask's contexts around it."""
        context = RequestContext(self, request)
        token = _set_context(context)
        try:
            config = self.config
            setting = config["PROPAGATE_EXCEPTIONS"]
            if setting is None:
                setting = True if config["TESTING"] else propagate
            response = await _dispatch_async(self, request, propagate=setting)
            if context._session is not None:
                self._save_session(context, response)
            return response
        finally:
            _reset_context(token)
            if self._kept_contexts is not None:
                self._kept_contexts.append(context)

    # -- serving -----------------------------------------------------------------

    def wsgi_app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """The WSGI application (``to_wsgi(app)``, made once)."""
        application = self._wsgi
        if application is None:
            from sansio_http.wsgi import to_wsgi

            # Threaded servers may send two first requests at once: one
            # to_wsgi (one runner, one exit hook) whichever comes first.
            with self._made_lock:
                if self._wsgi is None:
                    self._wsgi = to_wsgi(self)
                application = self._wsgi
        return application(environ, start_response)

    async def asgi_app(self, scope: Any, receive: Any, send: Any) -> None:
        """The ASGI application (``to_asgi(app)``, made once).

        Servers that are told the interface may be given the app itself
        (``uvicorn --interface asgi3``): see :meth:`__call__`.
        """
        if self._asgi is None:
            from sansio_http.asgi import to_asgi

            self._asgi = to_asgi(self)
        await self._asgi(scope, receive, send)

    def __call__(self, *args: Any) -> Any:
        """Serve WSGI's ``(environ, start_response)`` or ASGI's ``(scope, receive, send)``.

        Called with three arguments, it returns the coroutine of :meth:`asgi_app`.
        """
        if len(args) == 3:
            return self.asgi_app(*args)
        return self.wsgi_app(*args)

    def run(
        self,
        host: str | None = None,
        port: int | None = None,
        debug: bool | None = None,
        **options: Any,
    ) -> None:
        """Serve the app on the development server (WSGI by default)."""
        from sansio_http.server import run

        if debug is not None:
            self.debug = debug
        run(
            self,
            host=host or "127.0.0.1",
            port=port or 5000,
            interface=options.pop("interface", "wsgi"),
            debug=self.debug,
            name=self.import_name,
        )

    # -- testing and commands ----------------------------------------------------

    def test_client(self, use_cookies: bool = True, **kwargs: Any) -> FlaskClient:
        """Return a test client; ``config["TESTING_INTERFACE"]`` picks WSGI or ASGI."""
        from sansio_http.compat.flask._testing import FlaskClient

        kwargs.setdefault("interface", self.config.get("TESTING_INTERFACE") or "wsgi")
        return FlaskClient(self, **kwargs)

    def test_cli_runner(self, **kwargs: Any) -> FlaskCliRunner:
        """Return a click runner that invokes the app's commands."""
        from sansio_http.compat.flask._cli import FlaskCliRunner

        return FlaskCliRunner(self, **kwargs)

    @property
    def cli(self) -> AppGroup:
        """The app's click command group (needs the ``flask`` extra)."""
        if self._cli is None:
            from sansio_http.compat.flask._cli import AppGroup

            self._cli = AppGroup(self.name)
        return self._cli

    def iter_blueprints(self) -> Iterator[Blueprint]:
        """Iterate over the Flask blueprints registered."""
        return iter(self._flask_blueprints.values())
