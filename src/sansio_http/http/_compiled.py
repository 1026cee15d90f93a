"""What the optional compiled build reads in the sources, and a no-op otherwise.

``setup.py`` compiles the hot modules with mypyc when asked
(``SANSIO_HTTP_COMPILE=1``). mypyc reads :func:`mypyc_attr` on a class, as
``mypy_extensions`` spells it, at build time only: a compiled class never
calls it, and the pure-Python build calls the no-op below, so that
``mypy_extensions`` is needed by neither at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["mypyc_attr"]

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*attrs: str, **settings: Any) -> Any:
        """Return a class decorator that returns the class unchanged."""
        return lambda cls: cls
