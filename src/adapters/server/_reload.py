"""Restart the server when a Python file changes, by polling (no new dependency)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

#: Set to ``"1"`` in the environment of the server the reloader runs.
RELOADED = "SANSIO_HTTP_RELOADED"


def _python_files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        for path in root.rglob("*.py"):
            if not any(part.startswith(".") or part == "__pycache__" for part in path.parts):
                yield path


def snapshot(roots: list[Path]) -> dict[Path, float]:
    """Return the modification time of every ``.py`` file under ``roots``."""
    times = {}
    for path in _python_files(roots):
        try:
            times[path] = path.stat().st_mtime
        except OSError:  # removed while we looked
            continue
    return times


def run_with_reloader(argv: list[str], roots: list[Path], interval: float = 0.5) -> int:
    """Run ``python -m sansio_http.server argv`` and restart it on changes.

    SIGINT and SIGTERM stop the watcher: it stops the server it runs (which
    lets in-flight requests finish and runs the shutdown hooks) and exits,
    so no server is left listening on the port.

    Args:
        argv: The server's arguments, without ``--reload``.
        roots: Folders whose ``.py`` files are watched.
        interval: Seconds between two polls.

    Returns:
        0 once the server stopped cleanly, else its exit status (a server
        that crashed, or had to be killed after :data:`STOP_TIMEOUT`).
    """
    command = [sys.executable, "-m", "sansio_http.server", *argv]
    env = {**os.environ, RELOADED: "1"}
    # NOTE: the handlers only note the signal; the loop below stops the
    # child. Raising from a handler could land between starting a child and
    # keeping hold of it, and leave that child serving after we exit.
    signals: list[int] = []
    previous = {
        sig: signal.signal(sig, lambda number, frame: signals.append(number))
        for sig in STOP_SIGNALS
    }
    child: subprocess.Popen[bytes] | None = None
    try:
        before = snapshot(roots)
        child = subprocess.Popen(command, env=env)
        while not signals:
            _sleep(interval, signals)
            if signals:
                break
            now = snapshot(roots)
            if now != before:
                before = now
                print("sansio_http.server: change detected, restarting", file=sys.stderr)
                _stop(child)
                if signals:
                    break
                # A child that crashed at import (a syntax error, say) is
                # started again here too, once a change may have fixed it.
                child = subprocess.Popen(command, env=env)
        return _stop(child)
    finally:
        if child is not None and child.poll() is None:
            _stop(child)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


#: The signals that stop the watcher and its server.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: Seconds the server gets to stop (its own shutdown takes up to 10) before it is killed.
STOP_TIMEOUT = 15.0


def _sleep(interval: float, signals: list[int]) -> None:
    """Sleep ``interval`` seconds, in short naps so that a signal is seen soon."""
    # NOTE: time.sleep resumes after a signal handler (PEP 475), so a stop
    # is noticed at the end of a nap, not of the whole interval.
    deadline = time.monotonic() + interval
    while not signals and (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.05))


def _stop(child: subprocess.Popen[bytes]) -> int:
    """Stop ``child`` with SIGTERM, killing it after :data:`STOP_TIMEOUT`.

    Returns:
        0 for a clean stop, else the child's exit status.
    """
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            return child.returncode
    status = child.returncode
    # Ended by our SIGTERM before it could set up its handlers: a clean stop too.
    return 0 if status in (0, -signal.SIGTERM) else status
