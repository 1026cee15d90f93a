"""The debug traceback page, shared by ``App(debug=True)`` and the dev server.

SECURITY: this page shows source lines and values from the server; only
debug modes that are off by default use it, and the development server
refuses its ``--debug`` unless it listens on loopback.
"""

from __future__ import annotations

import html
import traceback

__all__ = ["traceback_page"]


def traceback_page(exc: BaseException) -> bytes:
    """Return an HTML page showing the traceback of ``exc``, escaped."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(type(exc).__name__)}</title></head><body>"
        "<h1>500 Internal Server Error</h1>"
        "<p>Debug mode: the application raised an exception.</p>"
        f"<pre>{html.escape(text)}</pre></body></html>\n"
    ).encode()
