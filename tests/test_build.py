"""Which build of the package the tests run against.

``make test`` runs the suite twice: against the pure-Python package, and
against the optional build whose hot modules mypyc and Cython compiled
(``setup.py``). ``SANSIO_HTTP_COMPILED=1`` says the second is expected, so
that a build step that silently fell back to pure Python cannot pass for the
compiled run, nor a compiled module for the pure-Python one.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import pytest

SETUP = Path(__file__).parent.parent / "setup.py"

#: The modules setup.py compiles, by import name: its MYPYC and CYTHON lists.
COMPILED = re.findall(r'^    "(sansio_http\.[\w.]+)",$', SETUP.read_text(), re.MULTILINE)


def test_setup_py_compiles_some_modules() -> None:
    assert COMPILED


@pytest.mark.parametrize("name", COMPILED)
def test_the_module_is_of_the_build_expected(name: str) -> None:
    module = importlib.import_module(name)
    origin = Path(module.__file__ or "")
    expected = ".so" if os.environ.get("SANSIO_HTTP_COMPILED") == "1" else ".py"
    assert origin.suffix == expected, origin
