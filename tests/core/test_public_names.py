"""The public names stay where users import them from, whatever the layout.

The core's modules are private and move between floors; these names, the
``__all__`` of each public module kept in ``public_names.txt``, are the
contract (a name added there comes with a CHANGES.md entry; a name removed
is a breaking change).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import pytest

#: Each public module and its ``__all__``, one module a line: ``module name name ...``.
SNAPSHOT = Path(__file__).with_name("public_names.txt")
PUBLIC: dict[str, list[str]] = {
    module: sorted(names)
    for module, *names in (line.split() for line in SNAPSHOT.read_text().splitlines() if line)
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_each_public_module_exports_its_names(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert sorted(module.__all__) == PUBLIC[module_name]
    missing = [name for name in PUBLIC[module_name] if not hasattr(module, name)]
    assert missing == []


@pytest.mark.parametrize(
    "module_name", ["sansio_http.app", "sansio_http.http", "sansio_http.routing"]
)
def test_a_name_exported_twice_is_one_object(module_name: str) -> None:
    top = importlib.import_module("sansio_http")
    module = importlib.import_module(module_name)
    for name in set(module.__all__) & set(top.__all__):
        assert getattr(module, name) is getattr(top, name), name


def test_public_classes_are_documented_where_they_are_defined() -> None:
    # Every public class and function carries a docstring in its new home.
    for module_name, names in PUBLIC.items():
        module = importlib.import_module(module_name)
        for name in names:
            value = getattr(module, name)
            if not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            # mypyc drops the docstrings of what it compiles: check the sources.
            source = getattr(sys.modules[value.__module__], "__file__", None) or ""
            if source.endswith(".py"):
                assert (value.__doc__ or "").strip(), f"{module_name}.{name}"


def test_the_snapshot_names_every_public_module() -> None:
    assert set(PUBLIC) == {
        "sansio_http",
        "sansio_http.http",
        "sansio_http.routing",
        "sansio_http.app",
        "sansio_http.wsgi",
        "sansio_http.asgi",
        "sansio_http.server",
        "sansio_http.testing",
        "sansio_http.compat.flask",
        "sansio_http.compat.flask.security",
    }
    assert len(PUBLIC["sansio_http"]) > 80
