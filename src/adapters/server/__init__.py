"""The development server on h11 that runs any WSGI or ASGI application.

Run ``python -m sansio_http.server module:attr`` or call :func:`run`.
"""

from __future__ import annotations

from sansio_http.server._config import Config as Config
from sansio_http.server._serve import Server as Server
from sansio_http.server._serve import detect_interface as detect_interface
from sansio_http.server._serve import run as run

__all__ = ["Config", "Server", "detect_interface", "run"]
