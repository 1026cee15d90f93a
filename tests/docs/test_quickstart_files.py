"""The quickstart's commands name files and attributes the page has the reader save.

The page says "Save this as ``name.py``" before a sample; every server command
of the page (``python -m sansio_http.server``, ``gunicorn``, ``uvicorn``, in a
literal block or inline) must
then name a saved module and an attribute that module defines, so a reader
who follows the page top to bottom can run each command as printed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.docs.test_docs import extract_samples

PAGE = Path(__file__).resolve().parents[2] / "docs" / "quickstart.rst"

_SAVE = re.compile(r"Save this as ``(?P<name>\w+)\.py``:")
_COMMAND = re.compile(
    r"(?:python -m sansio_http\.server|gunicorn|uvicorn)\b[^\n`]*?\s(?P<target>\w+:\w+)"
)


def saved_files(text: str) -> dict[str, str]:
    """Map each module name the page asks to save to the sample that follows it."""
    files: dict[str, str] = {}
    for match in _SAVE.finditer(text):
        line = text.count("\n", 0, match.end()) + 1
        following = [s for s in extract_samples(text) if s.kind == "code" and s.line > line]
        assert following, f"nothing to save after line {line}"
        files[match["name"]] = following[0].source
    return files


def broken_targets(text: str, directory: Path) -> list[str]:
    """Return the commands' targets that a reader of ``text`` could not run."""
    files = saved_files(text)
    for name, source in files.items():
        (directory / f"{name}.py").write_text(source)
    broken = []
    for target in sorted(set(_COMMAND.findall(text))):
        module, attr = target.split(":")
        check = f"import {module}; getattr({module}, {attr!r})"
        result = subprocess.run([sys.executable, "-c", check], cwd=directory, capture_output=True)
        if module not in files or result.returncode != 0:
            broken.append(target)
    return broken


def test_the_page_saves_files_and_names_targets() -> None:
    text = PAGE.read_text()
    assert saved_files(text)
    assert _COMMAND.findall(text)


def test_every_command_names_a_saved_module_and_its_attribute(tmp_path: Path) -> None:
    assert broken_targets(PAGE.read_text(), tmp_path) == []


def test_a_command_naming_a_missing_attribute_or_module_is_caught(tmp_path: Path) -> None:
    text = (
        "Save this as ``hello.py``:\n\n.. code-block:: python\n\n    wsgi = 1\n\n"
        "Serve it::\n\n    python -m sansio_http.server hello:wsgi\n"
        "    python -m sansio_http.server hello:app\n"
        "    uvicorn --workers 4 other:app\n"
    )
    assert broken_targets(text, tmp_path) == ["hello:app", "other:app"]


def test_changes_lists_each_entry_once() -> None:
    changes = (PAGE.parents[1] / "CHANGES.md").read_text()
    entries = [e.strip() for e in re.split(r"^- ", changes, flags=re.MULTILINE)[1:]]
    repeated = {e.splitlines()[0] for e in entries if entries.count(e) > 1}
    assert repeated == set()
