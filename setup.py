"""The optional compiled build: ``SANSIO_HTTP_COMPILE=1`` compiles hot modules with mypyc.

Every setting of the package is in ``pyproject.toml``; this file only adds the
extension modules, and only when asked. The default build, the one PyPI gets,
is pure Python. The compiled build needs mypy installed in the building
environment (``pip install --no-build-isolation``); ``make test-compiled``
builds it and runs the whole test suite against it.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import setup  # type: ignore[import-untyped]

#: The modules compiled: pure functions over bytes and ints on every request's
#: path, which mypyc turns into C loops without changing what they do.
COMPILED = ["src/sansio_http/messages/_head.py", "src/sansio_http/messages/_length.py"]

ext_modules: list[Any] = []
if os.environ.get("SANSIO_HTTP_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
