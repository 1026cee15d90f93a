"""Jinja2 templates, as Flask sets them up (needs the ``flask`` extra).

Templates are found in the app's ``template_folder``, then in those of its
blueprints in the order they were registered. They see ``request``,
``session``, ``g``, ``config``, ``url_for`` and ``get_flashed_messages``,
and what the context processors return.

In a ``def`` view, ``render_template`` returns the text. On an event loop's
thread (an ``async def`` view) it returns an awaitable, as in Quart: write
``await render_template(...)``; the template is loaded and rendered in the
App's thread pool, since loading reads files.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from sansio_http.compat.flask._globals import (
    _request_var,
    app_context,
    g,
    request,
    session,
)
from sansio_http.compat.flask._helpers import get_flashed_messages, url_for

__all__ = ["create_environment", "render_template", "render_template_string"]


def _missing_jinja() -> ImportError:
    return ImportError(
        "render_template needs Jinja2: install the flask extra, pip install 'sansio-http[flask]'"
    )


def create_environment(app: Any) -> Any:
    """Return the Jinja2 environment of ``app``.

    Raises:
        ImportError: Jinja2 is not installed.
    """
    try:
        import jinja2
    except ImportError:
        raise _missing_jinja() from None

    class _Loader(jinja2.BaseLoader):
        """The app's folder first, then each blueprint's (Flask's order)."""

        def _loaders(self) -> list[jinja2.BaseLoader]:
            found: list[jinja2.BaseLoader] = []
            for owner in (app, *app.iter_blueprints()):
                folder = owner.template_folder
                if folder is not None:
                    found.append(jinja2.FileSystemLoader(os.path.join(owner.root_path, folder)))
            return found

        def get_source(self, environment: jinja2.Environment, template: str) -> Any:
            for loader in self._loaders():
                try:
                    return loader.get_source(environment, template)
                except jinja2.TemplateNotFound:
                    continue
            raise jinja2.TemplateNotFound(template)

        def list_templates(self) -> list[str]:
            names: set[str] = set()
            for loader in self._loaders():
                names.update(loader.list_templates())
            return sorted(names)

    auto_reload = app.config.get("TEMPLATES_AUTO_RELOAD")
    environment = jinja2.Environment(
        loader=_Loader(),
        autoescape=jinja2.select_autoescape(["html", "htm", "xml", "xhtml", "svg"]),
        auto_reload=app.debug if auto_reload is None else bool(auto_reload),
    )
    environment.globals.update(
        url_for=url_for,
        get_flashed_messages=get_flashed_messages,
        config=app.config,
        request=request,
        session=session,
        g=g,
    )
    environment.globals.update(app.template_globals)
    environment.filters.update(app.template_filters)
    return environment


def _context(app: Any, values: dict[str, Any]) -> dict[str, Any]:
    context: dict[str, Any] = {}
    processors = list(app._context_processors)
    found = _request_var.get(None)
    if found is not None:
        blueprint = found.request.blueprint
        owner = app.blueprints_by_name.get(blueprint) if blueprint else None
        if owner is not None:
            processors.extend(owner._context_processors)
    for processor in processors:
        context.update(app.ensure_sync(processor)())
    context.update(values)
    return context


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _off_loop(app: Any, render: Callable[[], str]) -> str:
    """Render off the event loop: in the App's pool under ASGI.

    Under WSGI the loop is the worker thread's own (see ``coroutine_runner``),
    which serves this one request: the render runs on it.
    """
    if app.thread_runner is None:
        return render()
    text: str = await app.ensure_async(render)()
    return text


def _render(template_name: Any, values: dict[str, Any], source: str | None) -> Any:
    app = app_context().app
    environment = app.jinja_env
    if source is not None:
        template = environment.from_string(source)
    else:
        template = environment.get_or_select_template(template_name)
    if not _on_loop():
        return template.render(_context(app, values))

    return _off_loop(app, lambda: template.render(_context(app, values)))


def render_template(template_name_or_list: str | list[str], **context: Any) -> Any:
    """Render a template of the app's (or a blueprint's) folder with ``context``.

    Returns:
        The text; an awaitable of it in an ``async def`` view.
    """
    app = app_context().app
    if _on_loop():

        def render() -> str:
            template = app.jinja_env.get_or_select_template(template_name_or_list)
            text: str = template.render(_context(app, context))
            return text

        return _off_loop(app, render)
    return _render(template_name_or_list, context, None)


def render_template_string(source: str, **context: Any) -> Any:
    """Render a template given as text with ``context``.

    Returns:
        The text; an awaitable of it in an ``async def`` view.
    """
    return _render(None, context, source)
