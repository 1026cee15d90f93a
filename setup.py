"""The optional compiled build: ``SANSIO_HTTP_COMPILE=1`` compiles hot modules (mypyc, Cython).

Every setting of the package is in ``pyproject.toml``; this file only adds the
extension modules, and only when asked. The default build, the one PyPI gets,
is pure Python. The compiled build needs mypy and Cython installed in the
building environment (``pip install --no-build-isolation``); neither is needed
at run time. ``make test-compiled`` builds it and runs the whole test suite
against it.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from setuptools import setup  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent

#: The modules mypyc compiles, by import name: modules of functions on every request's
#: path (the head checks, query strings, cookies, hosts, URLs, the multidicts, a
#: response's fields, the ASGI scope checks) that mypyc compiles without changing what
#: they do, and that run faster compiled by mypyc than by Cython.
MYPYC = [
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

#: The modules Cython compiles, by import name: the rest of every request's path (the
#: request and response classes, the Accept parsers, the router, the App's dispatch, the
#: adapters' requests, responses and callables), which mypyc cannot compile as they
#: stand. Their classes stay Python classes (subclassable, with an instance dictionary)
#: and their functions keep their names, signatures and ``async``-ness.
#: docs/performance.rst says why the others stay interpreted.
CYTHON = [
    "sansio_http.http._cookies",
    "sansio_http.http._parsers.accept",
    "sansio_http.http._parsers.options",
    "sansio_http.http._parsers.tokens",
    "sansio_http.messages._request",
    "sansio_http.messages._response",
    "sansio_http.messages._response_headers",
    "sansio_http.messages._json_response",
    "sansio_http.messages._target",
    "sansio_http.routing._router",
    "sansio_http.routing._rules",
    "sansio_http.routing._converters",
    "sansio_http.routing._compiler",
    "sansio_http.app._dispatch",
    "sansio_http.app._handling",
    "sansio_http.app._responses",
    "sansio_http.app._bridges",
    "sansio_http.app._context",
    "sansio_http.wsgi._request",
    "sansio_http.wsgi._app",
    "sansio_http.wsgi._response",
    "sansio_http.wsgi._input",
    "sansio_http.asgi._request",
    "sansio_http.asgi._app",
    "sansio_http.asgi._response",
    "sansio_http.asgi._receive",
]

#: Cython compiles the Python the sources are, and nothing else: annotations stay
#: annotations (no C types, no argument checks of its own, so the errors stay the
#: package's), and functions stay introspectable objects that bind as methods, with
#: their ``__qualname__``, ``__module__``, signature and docstring.
CYTHON_DIRECTIVES = {
    "language_level": 3,
    "binding": True,
    "annotation_typing": False,
    "always_allow_keywords": True,
    "emit_code_comments": False,
}

#: Where each package's source folder is, as pyproject.toml's ``package-dir`` says.
PACKAGE_DIRS = {
    "sansio_http": "src/sansio_http",
    "sansio_http.wsgi": "src/adapters/wsgi",
    "sansio_http.asgi": "src/adapters/asgi",
    "sansio_http.server": "src/adapters/server",
    "sansio_http.testing": "src/adapters/testing",
    "sansio_http.compat": "src/adapters/compat",
}

#: mypyc and Cython name a module after its path, and the adapters' folders do not spell
#: their import names (``src/adapters/wsgi`` is ``sansio_http.wsgi``): the sources are
#: copied here first, laid out as the installed package is.
STAGE = ROOT / "build" / "compiled-src"


def stage() -> None:
    """Copy the package's sources into STAGE, laid out by import name."""
    shutil.rmtree(STAGE, ignore_errors=True)
    for package, folder in PACKAGE_DIRS.items():
        for source in sorted((ROOT / folder).rglob("*.py")):
            relative = source.relative_to(ROOT / folder)
            target = STAGE.joinpath(*package.split("."), relative)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def staged(name: str) -> str:
    """Return the path of a module's staged source."""
    return str(STAGE.joinpath(*name.split(".")).with_suffix(".py"))


def extensions() -> list[Any]:
    """Return the extension modules of both compilers, from the staged sources."""
    from mypyc.build import mypycify
    from setuptools import Extension

    stage()
    compiled = mypycify([staged(name) for name in MYPYC], opt_level="3", group_name="sansio_http")
    # Imported by name: Cython is installed only where the compiled build is built.
    cythonize = importlib.import_module("Cython.Build").cythonize
    # PERF: without debug information (which changes no code), the Cython modules take a
    # tenth of the room in the wheel, and compile faster.
    flags = [] if sys.platform == "win32" else ["-g0"]
    sources = [Extension(name, [staged(name)], extra_compile_args=flags) for name in CYTHON]
    compiled += cythonize(
        sources, compiler_directives=CYTHON_DIRECTIVES, nthreads=os.cpu_count() or 1, quiet=True
    )
    return compiled


ext_modules: list[Any] = []
options: dict[str, Any] = {}
if os.environ.get("SANSIO_HTTP_COMPILE") == "1":
    ext_modules = extensions()
    # The C compiler runs on every core: the Cython modules are many.
    options = {"build_ext": {"parallel": os.cpu_count() or 1}}

setup(ext_modules=ext_modules, options=options)
