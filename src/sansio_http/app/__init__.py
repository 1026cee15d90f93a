"""The optional application layer: views, hooks, blueprints and their dispatch.

An :class:`App` routes a :class:`~sansio_http.Request` to a view and turns
what the view returns into a :class:`~sansio_http.Response`, running hooks
and error handlers around it. Any view, hook or error handler may be a plain
function or a coroutine function; the adapters install the runners that
bridge the two (see :meth:`App.ensure_sync` and :meth:`App.ensure_async`).

This floor also holds the middleware model that the shipped middleware is
built on, and the debug page. It imports the floors below it (routing,
bodies, messages, header primitives) and nothing above.
"""

from __future__ import annotations

from sansio_http.app._app import App as App
from sansio_http.app._config import AppConfig as AppConfig
from sansio_http.app._context import current_request as current_request
from sansio_http.app._context import g as g
from sansio_http.app._scaffold import Blueprint as Blueprint

__all__ = [
    "App",
    "AppConfig",
    "Blueprint",
    "current_request",
    "g",
]
