"""Restart the server when a Python file changes, by polling (no new dependency)."""

from __future__ import annotations

import os
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

    Args:
        argv: The server's arguments, without ``--reload``.
        roots: Folders whose ``.py`` files are watched.
        interval: Seconds between two polls.

    Returns:
        The exit status of the last child when the watcher is interrupted.
    """
    command = [sys.executable, "-m", "sansio_http.server", *argv]
    env = {**os.environ, RELOADED: "1"}
    before = snapshot(roots)
    child = subprocess.Popen(command, env=env)
    try:
        while True:
            time.sleep(interval)
            now = snapshot(roots)
            if now != before:
                before = now
                print("sansio_http.server: change detected, restarting", file=sys.stderr)
                child.terminate()
                child.wait()
                child = subprocess.Popen(command, env=env)
            elif child.poll() is not None and child.returncode not in (0, -15):
                # Crashed at import (a syntax error, say): wait for a fix.
                continue
    except KeyboardInterrupt:
        child.terminate()
        return child.wait()
