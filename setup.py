"""The optional compiled build: ``SANSIO_HTTP_COMPILE=1`` compiles hot modules with mypyc.

Every setting of the package is in ``pyproject.toml``; this file only adds the
extension modules, and only when asked. The default build, the one PyPI gets,
is pure Python. The compiled build needs mypy installed in the building
environment (``pip install --no-build-isolation``); ``make test-compiled``
builds it and runs the whole test suite against it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from setuptools import setup  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent

#: The modules compiled, by import name: modules of functions on every request's path
#: (the head checks, query strings, cookies, hosts, URLs, the multidicts, a response's
#: fields, the ASGI scope checks) that mypyc compiles without changing what they do.
#: docs/performance.rst says why the others stay interpreted.
COMPILED = [
    "sansio_http.messages._head",
    "sansio_http.messages._length",
    "sansio_http.http._multidict",
    "sansio_http.http._urlencoded",
    "sansio_http.http._urls",
    "sansio_http.http._hosts",
    "sansio_http.http._parsers.cookies",
    "sansio_http.messages._response_fields",
    "sansio_http.asgi._scope",
]

#: Where each package's source folder is, as pyproject.toml's ``package-dir`` says.
PACKAGE_DIRS = {
    "sansio_http": "src/sansio_http",
    "sansio_http.wsgi": "src/adapters/wsgi",
    "sansio_http.asgi": "src/adapters/asgi",
    "sansio_http.server": "src/adapters/server",
    "sansio_http.testing": "src/adapters/testing",
    "sansio_http.compat": "src/adapters/compat",
}

#: mypyc names a module after its path, and the adapters' folders do not spell their
#: import names (``src/adapters/wsgi`` is ``sansio_http.wsgi``): the sources are copied
#: here first, laid out as the installed package is.
STAGE = ROOT / "build" / "mypyc-src"


def stage() -> list[str]:
    """Copy the package's sources into STAGE, laid out by import name; return COMPILED's paths."""
    shutil.rmtree(STAGE, ignore_errors=True)
    for package, folder in PACKAGE_DIRS.items():
        for source in sorted((ROOT / folder).rglob("*.py")):
            relative = source.relative_to(ROOT / folder)
            target = STAGE.joinpath(*package.split("."), relative)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return [str(STAGE.joinpath(*name.split(".")).with_suffix(".py")) for name in COMPILED]


ext_modules: list[Any] = []
if os.environ.get("SANSIO_HTTP_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(stage(), opt_level="3", group_name="sansio_http")

setup(ext_modules=ext_modules)
