"""The command line of the development server.

Mistakes a user makes at the command line (a bad flag, an application that
cannot be found or imported, a port in use) end the process with one line
on standard error and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from sansio_http.app import App
from sansio_http.server._config import Config
from sansio_http.server._log import setup_logging
from sansio_http.server._reload import run_with_reloader
from sansio_http.server._serve import ListenError, run

PROG = "python -m sansio_http.server"


class AppNotFound(Exception):
    """The ``module:attr`` argument names nothing that can be served."""


def load_app(spec: str) -> Any:
    """Import ``module:attr`` (``attr`` defaults to ``app``) and return it.

    Args:
        spec: The application, such as ``mypackage.web:app``.

    Returns:
        The object named by ``spec``.

    Raises:
        AppNotFound: ``spec`` is malformed, its module cannot be imported
            (an ``ImportError`` or ``SyntaxError``, whose message is kept),
            or the attribute is missing or not callable. Other exceptions
            raised by the module's own code pass through with their
            traceback.
    """
    module_name, _, attr = spec.partition(":")
    attr = attr or "app"
    names = attr.split(".")
    if not module_name or not all(name.isidentifier() for name in names):
        raise AppNotFound(f"expected module:attr, such as mypackage.web:app, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except (ImportError, SyntaxError) as exc:
        raise AppNotFound(f"cannot import {module_name}: {exc}") from exc
    obj: Any = module
    for name in names:
        try:
            obj = getattr(obj, name)
        except AttributeError:
            raise AppNotFound(f"{module_name}:{attr}: {name!r} not found") from None
    # An App is not callable itself; the server wraps it for its interface.
    if not callable(obj) and not isinstance(obj, App):
        kind = type(obj).__name__
        raise AppNotFound(
            f"{module_name}:{attr} is not an application: {kind} objects are not callable"
        )
    return obj


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """Exit with one line, not the usage block, and status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _number(text: str, kind: type[float] | type[int]) -> float:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None


def _count(text: str) -> int:
    value = int(_number(text, int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, not {text}")
    return value


def _port(text: str) -> int:
    value = int(_number(text, int))
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 0 and 65535, not {text}")
    return value


def _non_negative(text: str) -> float:
    value = _number(text, float)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number of 0 or more, not {text}")
    return value


def parser() -> argparse.ArgumentParser:
    """Return the argument parser; every option's help shows its default."""
    defaults = Config()
    p = _Parser(
        prog=PROG,
        description="Serve a WSGI or ASGI application on the h11 development server.",
    )
    p.add_argument("app", help="the application, as module:attr (attr defaults to app)")
    p.add_argument("--host", default=defaults.host, help="address to bind (default %(default)s)")
    p.add_argument(
        "--port", type=_port, default=defaults.port, help="port to bind (default %(default)s)"
    )
    p.add_argument(
        "--interface",
        choices=["auto", "wsgi", "asgi"],
        default=defaults.interface,
        help="how to call the application (default %(default)s: an App or a coroutine "
        "function is ASGI, anything else WSGI)",
    )
    p.add_argument(
        "--reload", action="store_true", help="restart when a .py file changes (default off)"
    )
    p.add_argument(
        "--debug", action="store_true", help="show tracebacks, on loopback only (default off)"
    )
    p.add_argument(
        "--workers-threads",
        type=_count,
        metavar="N",
        default=defaults.threads,
        help="WSGI thread pool size (default %(default)s)",
    )
    p.add_argument(
        "--backlog",
        type=_count,
        metavar="N",
        default=defaults.backlog,
        help="connections queued before they are accepted (default %(default)s)",
    )
    p.add_argument(
        "--body-timeout",
        type=_non_negative,
        metavar="SECONDS",
        default=defaults.body_timeout,
        help="seconds to wait for each piece of a request body (default %(default)s)",
    )
    p.add_argument(
        "--min-body-rate",
        type=_non_negative,
        default=defaults.min_body_rate,
        metavar="BYTES",
        help="each BYTES of request body received allow one more second of waiting "
        "beyond --body-timeout; 0 turns the check off (default %(default)s)",
    )
    p.add_argument(
        "--no-access-log", action="store_true", help="do not log each request (default: log)"
    )
    return p


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Args:
        argv: The arguments; ``sys.argv[1:]`` by default.

    Returns:
        0 after a clean shutdown, 2 for a usage error.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(args_list)
    setup_logging()
    if args.reload:
        child_args = [a for a in args_list if a != "--reload"]
        return run_with_reloader(child_args, [Path.cwd()])
    try:
        app = load_app(args.app)
    except AppNotFound as exc:
        return _fail(str(exc))
    module_name, _, attr = args.app.partition(":")
    config = Config(
        host=args.host,
        port=args.port,
        interface=args.interface,
        debug=args.debug,
        threads=args.workers_threads,
        backlog=args.backlog,
        body_timeout=args.body_timeout,
        min_body_rate=args.min_body_rate,
        access_log=not args.no_access_log,
    )
    try:
        run(app, config, name=f"{module_name}:{attr or 'app'}")
    except (ListenError, ValueError) as exc:
        return _fail(str(exc))
    return 0
