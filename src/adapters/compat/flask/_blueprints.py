"""``Blueprint``: Flask's blueprint, over the App's."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from sansio_http.app import Blueprint as AppBlueprint
from sansio_http.compat.flask._paths import root_path_of
from sansio_http.compat.flask._scaffold import FlaskScaffold

__all__ = ["Blueprint"]

F = TypeVar("F", bound=Callable[..., Any])


class Blueprint(FlaskScaffold, AppBlueprint):
    """A group of Flask views, hooks and error handlers under a name.

    Args:
        name: The name, a prefix of its endpoints (``"auth.login"``).
        import_name: The module it is defined in (``__name__``): its folder
            is where ``static_folder`` and ``template_folder`` are found.
        static_folder: A folder of files to serve under ``static_url_path``.
        static_url_path: The URL prefix of its files; ``/<static_folder>``
            (below ``url_prefix``) by default.
        template_folder: A folder of templates, searched after the app's.
        url_prefix: The path prefix of its rules, such as ``/auth``.
        root_path: Its folder, instead of the one of ``import_name``.

    Raises:
        ValueError: ``name`` holds a dot, or ``url_prefix`` does not start with ``/``.
    """

    def __init__(
        self,
        name: str,
        import_name: str,
        static_folder: str | os.PathLike[str] | None = None,
        static_url_path: str | None = None,
        template_folder: str | os.PathLike[str] | None = None,
        url_prefix: str | None = None,
        subdomain: str | None = None,
        url_defaults: dict[str, Any] | None = None,
        root_path: str | None = None,
        cli_group: str | None = None,
    ) -> None:
        if subdomain is not None or url_defaults is not None:
            raise TypeError(
                f"Blueprint {name!r}: subdomain= and url_defaults= are not supported by "
                "the Flask layer; leave them out"
            )
        if url_prefix == "/":
            url_prefix = None
        AppBlueprint.__init__(self, name, url_prefix.rstrip("/") if url_prefix else None)
        self._init_scaffold()
        self.import_name = import_name
        self.root_path = root_path or root_path_of(import_name)
        self.template_folder = None if template_folder is None else os.fspath(template_folder)
        #: What the app does when the blueprint is registered (Flask's deferred functions).
        self.deferred_functions: list[Callable[[Any], None]] = []
        self.static_folder: str | None = None
        if static_folder is not None:
            self.static_folder = os.path.join(self.root_path, static_folder)
            prefix = static_url_path or "/" + os.path.basename(os.fspath(static_folder))
            self.static(prefix, self.static_folder)

    def _add_alias(self, rule: str, endpoint: str, methods: Iterable[str] | None) -> None:
        prefix = self.url_prefix or ""
        self.deferred_functions.append(
            lambda app: app._add_alias(prefix + rule, f"{self.name}.{endpoint}", methods)
        )

    def record(self, func: Callable[[Any], None]) -> None:
        """Call ``func(state)`` when the blueprint is registered; ``state.app`` is the app."""
        self.deferred_functions.append(lambda app: func(_SetupState(app, self)))

    def before_app_request(self, func: F) -> F:
        """Run ``func()`` before every request of the app, not only this blueprint's."""
        self.deferred_functions.append(lambda app: app.before_request(func))
        return func

    def after_app_request(self, func: F) -> F:
        """Run ``func(response)`` after every request of the app."""
        self.deferred_functions.append(lambda app: app.after_request(func))
        return func

    def teardown_app_request(self, func: F) -> F:
        """Run ``func(exc)`` at the end of every request of the app."""
        self.deferred_functions.append(lambda app: app.teardown_request(func))
        return func

    def app_errorhandler(self, code_or_exception: Any) -> Callable[[F], F]:
        """Handle an error of any request of the app with ``func(exc)``."""

        def decorator(func: F) -> F:
            self.deferred_functions.append(lambda app: app.errorhandler(code_or_exception)(func))
            return func

        return decorator

    def app_context_processor(self, func: F) -> F:
        """Add ``func()``'s mapping to the context of every template of the app."""
        self.deferred_functions.append(lambda app: app.context_processor(func))
        return func

    def app_template_filter(self, name: str | None = None) -> Callable[[F], F]:
        """Add the decorated function as a Jinja filter of the app."""

        def decorator(func: F) -> F:
            self.deferred_functions.append(lambda app: app.add_template_filter(func, name))
            return func

        return decorator

    def app_template_global(self, name: str | None = None) -> Callable[[F], F]:
        """Add the decorated function as a Jinja global of the app."""

        def decorator(func: F) -> F:
            self.deferred_functions.append(lambda app: app.add_template_global(func, name))
            return func

        return decorator


class _SetupState:
    """What ``Blueprint.record`` functions receive."""

    def __init__(self, app: Any, blueprint: Blueprint) -> None:
        self.app = app
        self.blueprint = blueprint
        self.url_prefix = blueprint.url_prefix
