"""The layering of the package: floors, no import circles, contracts that bite.

``make test`` runs ``lint-imports`` with the contracts of ``pyproject.toml``.
These tests check what the contracts leave out (a circle that runs through a
package's ``__init__``, or across folders) on the whole import graph, and that
the contracts do fail, naming the import, when a module breaks them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

import sansio_http

ROOT = Path(__file__).resolve().parent.parent.parent
FLOORS = ["http", "messages", "bodies", "routing", "app", "middleware"]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("sansio_http")


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_the_graph_holds_every_floor(graph: grimp.ImportGraph) -> None:
    children = graph.find_children("sansio_http")
    assert {f"sansio_http.{floor}" for floor in FLOORS} <= children
    assert len(graph.modules) > 80


def test_no_module_imports_another_in_a_circle(graph: grimp.ImportGraph) -> None:
    # Imports inside functions and under TYPE_CHECKING count: grimp reads them all.
    assert cycles(graph) == []


def test_a_circle_is_found() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    assert cycles(graph) == []
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_no_floor_imports_the_public_package(graph: grimp.ImportGraph) -> None:
    # The top-level __init__ imports every floor; a floor importing it back would
    # load the whole package from the bottom up.
    importers = graph.find_modules_that_directly_import("sansio_http")
    assert {m for m in importers if m.split(".")[1] in FLOORS} == set()


def test_a_broken_floor_contract_names_the_import(tmp_path: Path) -> None:
    # A copy of the core (adapters left out) in which a header primitive imports
    # the App: lint-imports, with the project's own contracts, must refuse it.
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint is not None
    package = tmp_path / "sansio_http"
    shutil.copytree(Path(sansio_http.__file__).resolve().parent, package, symlinks=False)
    for adapter in ("wsgi", "asgi", "server", "testing", "compat"):
        shutil.rmtree(package / adapter, ignore_errors=True)
    urls = package / "http" / "_urls.py"
    urls.write_text(urls.read_text() + "\nfrom sansio_http.app._context import g  # noqa\n")
    config = tmp_path / ".importlinter"
    config.write_text(
        textwrap.dedent(
            """\
            [importlinter]
            root_package = sansio_http

            [importlinter:contract:floors]
            name = floors
            type = layers
            containers = sansio_http
            layers =
                middleware
                app
                routing | bodies
                messages
                http
            """
        )
    )
    result = subprocess.run(
        [lint, "--config", str(config), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(Path(sys.executable).parent)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "sansio_http.http._urls -> sansio_http.app._context" in result.stdout


def test_the_projects_contracts_keep_the_floors_of_this_test() -> None:
    # The test above restates the floors; they must be those of pyproject.toml.
    text = (ROOT / "pyproject.toml").read_text()
    layers = text.split('id = "floors"', 1)[1].split("layers = [", 1)[1].split("]", 1)[0]
    assert [line.strip().strip('",') for line in layers.strip().splitlines()] == [
        "middleware",
        "app",
        "routing | bodies",
        "messages",
        "http",
    ]
