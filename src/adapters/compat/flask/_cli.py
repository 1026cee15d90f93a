"""Commands: ``app.cli``, ``with_appcontext`` and the ``flask`` command line.

``python -m sansio_http.compat.flask --app flaskr init-db`` loads the app
(a module's ``app`` or ``application``, or its ``create_app()`` factory)
and runs one of its commands in an application context; ``... run`` serves
it on the development server. Needs click (the ``flask`` extra).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
from click.testing import CliRunner, Result

from sansio_http import App
from sansio_http.compat.flask._globals import has_app_context

__all__ = [
    "AppGroup",
    "FlaskCliRunner",
    "FlaskGroup",
    "NoAppException",
    "ScriptInfo",
    "main",
    "with_appcontext",
]

F = TypeVar("F", bound=Callable[..., Any])


class NoAppException(click.UsageError):
    """The app could not be found or loaded."""


class ScriptInfo:
    """How the command line finds the app, kept on click's context as ``obj``.

    Args:
        app_import_path: ``module`` or ``module:name``; ``module:factory()`` works too.
        create_app: A function returning the app, instead.
    """

    def __init__(
        self,
        app_import_path: str | None = None,
        create_app: Callable[..., Any] | None = None,
    ) -> None:
        self.app_import_path = app_import_path
        self.create_app = create_app
        self._loaded: Any | None = None

    def load_app(self) -> Any:
        """Load the app once and return it.

        Raises:
            NoAppException: None is named, or the name finds none.
        """
        if self._loaded is not None:
            return self._loaded
        if self.create_app is not None:
            app = self.create_app()
        else:
            path = self.app_import_path or os.environ.get("FLASK_APP")
            if not path:
                raise NoAppException(
                    "Could not locate a Flask application. Use the '--app' option or the "
                    "'FLASK_APP' environment variable."
                )
            app = _locate_app(path)
        self._loaded = app
        return app


def _is_app(found: object) -> bool:
    # The Flask class is not imported here: it imports this module for app.cli.
    return isinstance(found, App) and hasattr(found, "cli")


def _locate_app(path: str) -> Any:
    module_name, _, name = path.partition(":")
    if module_name.endswith(".py"):
        module_name = module_name[:-3].replace(os.sep, ".")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if exc.name != module_name:
            raise
        raise NoAppException(f"Could not import {module_name!r}.") from None
    if name:
        factory = name.endswith("()")
        found = getattr(module, name.removesuffix("()"), None)
        if found is None:
            raise NoAppException(f"Failed to find attribute {name!r} in {module_name!r}.")
        app = found() if factory else found
    else:
        app = None
        for attribute in ("app", "application"):
            if _is_app(getattr(module, attribute, None)):
                app = getattr(module, attribute)
                break
        if app is None:
            for attribute in ("create_app", "make_app"):
                factory_function = getattr(module, attribute, None)
                if callable(factory_function):
                    app = factory_function()
                    break
    if not _is_app(app):
        raise NoAppException(
            f"Failed to find a Flask application in {module_name!r}: name it 'app' "
            "or write a 'create_app()' factory."
        )
    return app


def with_appcontext(func: F) -> F:
    """Run the decorated command in the app's application context."""

    @click.pass_context
    def decorated(ctx: click.Context, /, *args: Any, **kwargs: Any) -> Any:
        if not has_app_context():
            app = ctx.ensure_object(ScriptInfo).load_app()
            ctx.with_resource(app.app_context())
        return ctx.invoke(func, *args, **kwargs)

    return functools.update_wrapper(decorated, func)  # type: ignore[return-value]


class AppGroup(click.Group):
    """A click group whose commands run in the app's context (``app.cli``)."""

    def command(  # type: ignore[override]
        self, *args: Any, **kwargs: Any
    ) -> Callable[[Callable[..., Any]], click.Command]:
        """Add a command; ``with_appcontext=False`` leaves it out of the context."""
        wrap = kwargs.pop("with_appcontext", True)

        def decorator(func: Callable[..., Any]) -> click.Command:
            if wrap:
                func = with_appcontext(func)
            command: click.Command = click.Group.command(self, *args, **kwargs)(func)
            return command

        return decorator

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, in the app's context when the app is known."""
        info = ctx.find_object(ScriptInfo)
        if info is not None and not has_app_context():
            try:
                app = info.load_app()
            except NoAppException:
                pass
            else:
                with app.app_context():
                    return super().invoke(ctx)
        return super().invoke(ctx)


class FlaskGroup(AppGroup):
    """The ``flask`` command line: ``--app``, ``run``, and the app's commands."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_command(run_command)
        self.params.insert(
            0,
            click.Option(
                ["-A", "--app"],
                metavar="IMPORT",
                help="The app to load: 'module', 'module:name' or 'module:create_app()'.",
                is_eager=True,
                expose_value=False,
                callback=_set_app,
            ),
        )

    def _app_commands(self, ctx: click.Context) -> click.Group | None:
        info = ctx.ensure_object(ScriptInfo)
        try:
            group: click.Group = info.load_app().cli
            return group
        except NoAppException:
            return None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Find a built-in command, else one of the app's."""
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        # The app's command: an app that cannot be loaded says why.
        group: click.Group = ctx.ensure_object(ScriptInfo).load_app().cli
        return group.get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """List the built-in commands and the app's."""
        names = set(super().list_commands(ctx))
        group = self._app_commands(ctx)
        if group is not None:
            names.update(group.list_commands(ctx))
        return sorted(names)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """Make the context, with a :class:`ScriptInfo` as its object."""
        extra.setdefault("obj", ScriptInfo())
        return super().make_context(info_name, args, parent, **extra)


def _set_app(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.ensure_object(ScriptInfo).app_import_path = value


@click.command("run", short_help="Run the development server.")
@click.option("--host", "-h", default="127.0.0.1", help="The interface to bind to.")
@click.option("--port", "-p", default=5000, type=int, help="The port to bind to.")
@click.option(
    "--interface",
    type=click.Choice(["wsgi", "asgi"]),
    default="wsgi",
    help="Serve the app through its WSGI or its ASGI adapter.",
)
@click.option("--debug/--no-debug", default=None, help="Show tracebacks to local clients.")
@click.pass_context
def run_command(
    ctx: click.Context, host: str, port: int, interface: str, debug: bool | None
) -> None:
    """Serve the app on the project's development server."""
    app = ctx.ensure_object(ScriptInfo).load_app()
    app.run(host=host, port=port, debug=debug, interface=interface)


class FlaskCliRunner(CliRunner):
    """Invoke the app's commands in tests (``app.test_cli_runner()``).

    Args:
        app: The app.
        **kwargs: Options of click's ``CliRunner``.
    """

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.app = app

    def invoke(  # type: ignore[override]
        self,
        cli: click.Command | None = None,
        args: str | Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Result:
        """Invoke ``cli`` (the app's commands by default) with ``args``."""
        if cli is None:
            cli = self.app.cli
        if "obj" not in kwargs:
            kwargs["obj"] = ScriptInfo(create_app=lambda: self.app)
        return super().invoke(cli, args, **kwargs)


def main(args: Sequence[str] | None = None) -> None:
    """Run the ``flask`` command line."""
    FlaskGroup(name="flask").main(args=args, prog_name="python -m sansio_http.compat.flask")
