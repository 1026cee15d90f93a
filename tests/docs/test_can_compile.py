"""``scripts/can_compile.py``: where ``make test`` cannot build the compiled build, it says why.

``make test`` skips the compiled build's tests there, printing the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.docs.scripts import loaded


@pytest.fixture
def script() -> Iterator[ModuleType]:
    with loaded("can_compile") as module:
        yield module


def headers_in(script: ModuleType, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make Python's include folder ``folder``, for the script's look at it."""
    real = script.sysconfig.get_paths

    def get_paths(*args: Any, **kwargs: Any) -> dict[str, str]:
        return {**real(*args, **kwargs), "include": str(folder)}

    monkeypatch.setattr(script.sysconfig, "get_paths", get_paths)


def test_a_compiler_and_headers_are_enough(
    script: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "Python.h").write_text("/* the headers */\n")
    monkeypatch.setattr(script.shutil, "which", lambda name: f"/usr/bin/{name}")
    headers_in(script, monkeypatch, tmp_path)
    assert script.missing() is None
    assert script.main() == 0


def test_a_missing_compiler_is_named(script: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(script.shutil, "which", lambda name: None)
    reason = script.missing()
    assert reason is not None
    assert reason.startswith("no C compiler")
    assert script.main() == 1


def test_missing_headers_are_named(
    script: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    headers_in(script, monkeypatch, tmp_path)
    assert script.missing() == f"no Python headers ({tmp_path / 'Python.h'})"
