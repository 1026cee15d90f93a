"""Registration written Flask's way, for ``Flask`` and ``Blueprint``.

Flask's views take no request (route values come as keyword arguments),
its ``before_request`` hooks take nothing, its ``after_request`` hooks the
response, its teardown hooks and error handlers the exception. Each is
adapted once, where it is registered, into the App's calling convention:
a ``def`` function stays a ``def`` function and an ``async def`` one an
``async def`` one, so the App still runs the first in a worker thread and
awaits the second on the loop.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["FlaskScaffold", "adapt"]

F = TypeVar("F", bound=Callable[..., Any])

_COPIED = ("__module__", "__name__", "__qualname__", "__doc__")


def _named(adapted: Callable[..., Any], func: Callable[..., Any]) -> Callable[..., Any]:
    for name in _COPIED:
        value = getattr(func, name, None)
        if value is not None:
            setattr(adapted, name, value)
    adapted.__dict__["flask_function"] = func
    return adapted


def adapt(func: Callable[..., Any]) -> Callable[..., Any]:
    """Return ``func`` as the App calls it: with the request first, dropped.

    ``before_request`` hooks, ``after_request`` hooks, teardown hooks and
    error handlers are adapted so; a coroutine function stays one.
    """
    if inspect.iscoroutinefunction(func):

        async def adapted_async(request: Any, /, *args: Any) -> Any:
            return await func(*args)

        return _named(adapted_async, func)

    def adapted(request: Any, /, *args: Any) -> Any:
        return func(*args)

    return _named(adapted, func)


def adapt_view(func: Callable[..., Any]) -> Callable[..., Any]:
    """Return a Flask view as the App calls it: the route values alone are passed on.

    ``request.endpoint`` and ``request.view_args`` are found again when asked
    for, so a view that does not ask pays nothing for them.
    """
    if inspect.iscoroutinefunction(func):

        async def view_async(request: Any, /, **values: Any) -> Any:
            return await func(**values)

        return _named(view_async, func)

    def view(request: Any, /, **values: Any) -> Any:
        return func(**values)

    return _named(view, func)


class FlaskScaffold:
    """The registration methods ``Flask`` and ``Blueprint`` share."""

    name: str
    # The App's own registration, which the methods here call.
    _adapted_views: dict[tuple[Callable[..., Any], str], Callable[..., Any]]
    _flask_view_functions: dict[str, Callable[..., Any]]
    _context_processors: list[Callable[..., Any]]

    def _init_scaffold(self) -> None:
        self._adapted_views = {}
        self._flask_view_functions = {}
        self._context_processors = []

    @property
    def view_functions(self) -> dict[str, Callable[..., Any]]:
        """The view functions by endpoint, as registered here."""
        return self._flask_view_functions

    def _view_for(self, func: Callable[..., Any], endpoint: str) -> Callable[..., Any]:
        key = (func, endpoint)
        found = self._adapted_views.get(key)
        if found is None:
            found = self._adapted_views[key] = adapt_view(func)
        return found

    def add_url_rule(
        self,
        rule: str,
        endpoint: str | None = None,
        view_func: Callable[..., Any] | None = None,
        provide_automatic_options: bool | None = None,
        *,
        methods: Iterable[str] | None = None,
        defaults: dict[str, Any] | None = None,
        strict_slashes: bool | None = None,
        **options: Any,
    ) -> None:
        """Register a Flask view for a URL rule.

        Args:
            rule: The URL rule, such as ``/<int:id>/update``.
            endpoint: Its name for ``url_for``; the view's name by default.
            view_func: The view, called with the route values; None adds a
                rule that only ``url_for`` uses (see the migration guide).
            provide_automatic_options: Ignored: OPTIONS is answered by the App.
            methods: The methods it answers; GET (and HEAD) by default.
            defaults: Values for the view that the URL does not carry.
            strict_slashes: Ignored: a missing trailing slash redirects.
            **options: ``websocket=True`` for a websocket view.

        Raises:
            TypeError: An option Flask has and the layer does not
                (``host``, ``subdomain``, ``redirect_to``...).
        """
        unknown = set(options) - {"websocket"}
        if unknown:
            raise TypeError(
                f"add_url_rule() does not take {sorted(unknown)}: the Flask layer has no "
                "host or subdomain matching; write the rule without them"
            )
        if endpoint is None:
            if view_func is None:
                raise TypeError("add_url_rule() needs an endpoint= or a view_func=")
            endpoint = view_func.__name__
        if view_func is None:
            self._add_alias(rule, endpoint, methods)
            return
        self._flask_view_functions[endpoint] = view_func
        self.add_route(  # type: ignore[attr-defined]
            rule,
            self._view_for(view_func, endpoint),
            methods=methods,
            endpoint=endpoint,
            defaults=defaults,
            websocket=bool(options.get("websocket", False)),
        )

    def _add_alias(self, rule: str, endpoint: str, methods: Iterable[str] | None) -> None:
        raise NotImplementedError

    def route(
        self, rule: str, methods: Iterable[str] | None = None, **options: Any
    ) -> Callable[[F], F]:
        """Register the decorated function as the view of a URL rule (Flask's way).

        Raises:
            TypeError: The rule is not a string, such as ``@app.route`` without it.
        """
        if not isinstance(rule, str):
            raise TypeError(
                f"route() takes the URL rule first, not {rule!r}: write @app.route('/path')"
            )

        def decorator(func: F) -> F:
            endpoint = options.pop("endpoint", None)
            self.add_url_rule(rule, endpoint, func, methods=methods, **options)
            return func

        return decorator

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

    def endpoint(self, endpoint: str) -> Callable[[F], F]:
        """Register the decorated function as the view of an endpoint's rules."""

        def decorator(func: F) -> F:
            self._set_endpoint_view(endpoint, func)
            return func

        return decorator

    def _set_endpoint_view(self, endpoint: str, func: Callable[..., Any]) -> None:
        raise TypeError(
            f"@endpoint({endpoint!r}) is not supported here: register the view with "
            "@route or add_url_rule(view_func=...)"
        )

    def before_request(self, func: F) -> F:
        """Run ``func()`` before each view; a value it returns answers the request."""
        super().before_request(adapt(func))  # type: ignore[misc]
        return func

    def after_request(self, func: F) -> F:
        """Run ``func(response)`` after each view; it returns the response."""
        super().after_request(adapt(func))  # type: ignore[misc]
        return func

    def teardown_request(self, func: F) -> F:
        """Run ``func(exc)`` at the end of every request, even failed ones."""
        super().teardown_request(adapt(func))  # type: ignore[misc]
        return func

    def errorhandler(self, code_or_exception: Any) -> Callable[[F], F]:
        """Handle a status code or an exception class with ``func(exc)``."""
        register = super().errorhandler(code_or_exception)  # type: ignore[misc]

        def decorator(func: F) -> F:
            register(adapt(func))
            return func

        return decorator

    def register_error_handler(self, code_or_exception: Any, func: Callable[..., Any]) -> None:
        """Register ``func`` as the error handler of a status code or an exception class."""
        self.errorhandler(code_or_exception)(func)

    def context_processor(self, func: F) -> F:
        """Add ``func()``'s mapping to the context of every template rendered."""
        self._context_processors.append(func)
        return func
