"""The command line of the development server."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Any

from sansio_http.server._config import Config
from sansio_http.server._log import setup_logging
from sansio_http.server._reload import run_with_reloader
from sansio_http.server._serve import run


def load_app(spec: str) -> Any:
    """Import ``module:attr`` (``attr`` defaults to ``app``) and return it."""
    module_name, _, attr = spec.partition(":")
    if not module_name:
        raise SystemExit(f"error: expected module:attr, got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module = importlib.import_module(module_name)
    obj: Any = module
    for part in (attr or "app").split("."):
        obj = getattr(obj, part)
    return obj


def parser() -> argparse.ArgumentParser:
    """Return the argument parser."""
    p = argparse.ArgumentParser(
        prog="python -m sansio_http.server",
        description="Serve a WSGI or ASGI application on the h11 development server.",
    )
    p.add_argument("app", help="the application, as module:attr")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    p.add_argument("--interface", choices=["auto", "wsgi", "asgi"], default="auto")
    p.add_argument("--reload", action="store_true", help="restart when a .py file changes")
    p.add_argument("--debug", action="store_true", help="show tracebacks (loopback only)")
    p.add_argument("--workers-threads", type=int, default=8, help="WSGI thread pool size")
    p.add_argument("--no-access-log", action="store_true", help="do not log each request")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(args_list)
    setup_logging()
    if args.reload:
        child_args = [a for a in args_list if a != "--reload"]
        return run_with_reloader(child_args, [Path.cwd()])
    app = load_app(args.app)
    config = Config(
        host=args.host,
        port=args.port,
        interface=args.interface,
        debug=args.debug,
        threads=args.workers_threads,
        access_log=not args.no_access_log,
    )
    try:
        run(app, config)
    except ValueError as exc:
        logging.getLogger("sansio_http.server").error("%s", exc)
        return 2
    return 0
