"""The flaskr port is Flask's tutorial with only its imports changed.

``flaskr_original`` holds Flask's ``examples/tutorial`` as published
(pallets/flask, BSD-3-Clause, its LICENSE.txt kept). The app in
``examples/flaskr`` and its tests in ``tests/compat/flaskr`` must differ
from it only in import lines, and the tests' app fixture only in the choice
of interface: that is the promise of the migration guide.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ORIGINAL = HERE / "flaskr_original"
PORTED_APP = HERE.parents[1] / "examples" / "flaskr"
PORTED_TESTS = HERE / "flaskr"

# The app fixture runs each test under both adapters: these lines replace its
# first three (the decorator, the signature and the create_app call).
FIXTURE_LINES = {
    '@pytest.fixture(params=["wsgi", "asgi"])',
    "def app(request):",
    '    app = create_app({"TESTING": True, "DATABASE": db_path, '
    '"TESTING_INTERFACE": request.param})',
}


def _files(root: Path) -> dict[str, Path]:
    return {
        str(path.relative_to(root)): path
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def changed_lines(original: Path, ported: Path) -> list[str]:
    """Return the lines removed and added, each prefixed with ``-`` or ``+``."""
    diff = difflib.unified_diff(
        original.read_text().splitlines(), ported.read_text().splitlines(), n=0, lineterm=""
    )
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def is_import(line: str) -> bool:
    return line[1:].startswith(("from ", "import "))


@pytest.mark.parametrize(
    ("original", "ported", "extra"),
    [
        (ORIGINAL / "flaskr", PORTED_APP, {"LICENSE.txt"}),
        (ORIGINAL / "tests", PORTED_TESTS, {"LICENSE.txt", "__init__.py"}),
    ],
    ids=["app", "tests"],
)
def test_only_imports_differ(original: Path, ported: Path, extra: set[str]) -> None:
    originals, ports = _files(original), _files(ported)
    assert set(ports) - set(originals) == extra
    assert set(originals) <= set(ports)
    for name, path in originals.items():
        changes = changed_lines(path, ports[name])
        if name == "conftest.py":
            changes = [line for line in changes if line[1:] not in FIXTURE_LINES]
            changes = [
                line
                for line in changes
                if not line.startswith("-")
                or not (
                    line[1:].startswith(("@pytest.fixture", "def app(", "    app = create_app("))
                )
            ]
        assert [line for line in changes if not is_import(line)] == [], name
    assert (ported / "LICENSE.txt").read_text() == (ORIGINAL / "LICENSE.txt").read_text()


def test_imports_point_at_the_layer() -> None:
    # No line of the port imports Flask or Werkzeug any more.
    for path in [*PORTED_APP.rglob("*.py"), *PORTED_TESTS.rglob("*.py")]:
        for line in path.read_text().splitlines():
            words = line.split()[:2]
            assert words not in (["from", "flask"], ["import", "flask"]), path
            assert not line.startswith(("from werkzeug", "import werkzeug")), path


def test_the_check_sees_a_changed_line(tmp_path: Path) -> None:
    original, ported = tmp_path / "a.py", tmp_path / "b.py"
    original.write_text("from flask import g\nx = 1\n")
    ported.write_text("from sansio_http.compat.flask import g\nx = 2\n")
    changes = changed_lines(original, ported)
    assert [line for line in changes if not is_import(line)] == ["-x = 1", "+x = 2"]
