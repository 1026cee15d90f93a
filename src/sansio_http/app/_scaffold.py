"""Registration: what an App and a Blueprint share.

Rules, ``before_request``/``after_request``/``teardown_request`` hooks and
error handlers are recorded here, on either; a Blueprint keeps them until it
is registered, and the App turns them into routes and endpoints at once
(:meth:`_Scaffold._rule_added` and :meth:`_Scaffold._blueprint_added` are its
hooks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from sansio_http.routing._rules import rule_methods

__all__ = ["Blueprint", "ErrorKey"]

F = TypeVar("F", bound=Callable[..., Any])

#: What an error handler is registered for: an exception class or a status code.
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
        """Register ``view`` for a URL rule (the undecorated ``route``).

        Raises:
            TypeError: ``methods`` is a string: write ``methods=["GET"]``.
        """
        listed = methods if methods is None or isinstance(methods, str) else list(methods)
        # A Blueprint makes its rules when it is registered: methods="GET" (which
        # would allow G, E and T) is refused here, where it is written.
        rule_methods(listed, rule)
        options = {
            "methods": listed,
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
