"""Flask's API over the App: change ``from flask import ...`` to this module.

``Flask``, ``Blueprint``, the proxies ``request``, ``session``, ``g`` and
``current_app``, and the helpers (``render_template``, ``url_for``,
``redirect``, ``flash``, ``jsonify``, ``abort``...) behave as Flask's, under
the WSGI and the ASGI adapter, in ``def`` and ``async def`` views. See
:doc:`/flask` for what works where, and what does not exist.

Templates need Jinja2 and commands need click: ``pip install
'sansio-http[flask]'``. ``werkzeug.security``'s password hashes are in
:mod:`sansio_http.compat.flask.security`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sansio_http import HTTPError as HTTPException
from sansio_http import Response as Response
from sansio_http.compat.flask._app import Flask as Flask
from sansio_http.compat.flask._blueprints import Blueprint as Blueprint
from sansio_http.compat.flask._config import Config as Config
from sansio_http.compat.flask._globals import current_app as current_app
from sansio_http.compat.flask._globals import g as g
from sansio_http.compat.flask._globals import has_app_context as has_app_context
from sansio_http.compat.flask._globals import has_request_context as has_request_context
from sansio_http.compat.flask._globals import request as request
from sansio_http.compat.flask._globals import session as session
from sansio_http.compat.flask._helpers import abort as abort
from sansio_http.compat.flask._helpers import flash as flash
from sansio_http.compat.flask._helpers import get_flashed_messages as get_flashed_messages
from sansio_http.compat.flask._helpers import jsonify as jsonify
from sansio_http.compat.flask._helpers import make_response as make_response
from sansio_http.compat.flask._helpers import redirect as redirect
from sansio_http.compat.flask._helpers import send_file as send_file
from sansio_http.compat.flask._helpers import send_from_directory as send_from_directory
from sansio_http.compat.flask._helpers import stream_with_context as stream_with_context
from sansio_http.compat.flask._helpers import url_for as url_for
from sansio_http.compat.flask._request import Request as Request
from sansio_http.compat.flask._templating import render_template as render_template
from sansio_http.compat.flask._templating import (
    render_template_string as render_template_string,
)

if TYPE_CHECKING:
    # Imported on use at run time (see __getattr__): click is optional.
    from sansio_http.compat.flask._cli import AppGroup as AppGroup
    from sansio_http.compat.flask._cli import FlaskGroup as FlaskGroup
    from sansio_http.compat.flask._cli import ScriptInfo as ScriptInfo
    from sansio_http.compat.flask._cli import with_appcontext as with_appcontext

__all__ = [
    "Blueprint",
    "Config",
    "Flask",
    "HTTPException",
    "Request",
    "Response",
    "abort",
    "current_app",
    "flash",
    "g",
    "get_flashed_messages",
    "has_app_context",
    "has_request_context",
    "jsonify",
    "make_response",
    "redirect",
    "render_template",
    "render_template_string",
    "request",
    "send_file",
    "send_from_directory",
    "session",
    "stream_with_context",
    "url_for",
]


def __getattr__(name: str) -> Any:
    # The command line's names need click, an optional dependency: imported on use.
    if name in ("with_appcontext", "AppGroup", "FlaskGroup", "ScriptInfo"):
        from sansio_http.compat.flask import _cli

        return getattr(_cli, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
