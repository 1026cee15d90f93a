"""Tell whether this machine can build the compiled build (a C compiler, Python's headers).

Exits 0 when it can; otherwise prints why to standard output and exits 1.
``make test`` runs the compiled build's tests only where this exits 0.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
from pathlib import Path


def missing() -> str | None:
    """Return what is missing to compile extension modules, or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"no Python headers ({headers})"
    return None


def main() -> int:
    """Exit 0 when the compiled build can be built here, else say why and exit 1."""
    reason = missing()
    if reason is None:
        return 0
    print(reason)
    return 1


if __name__ == "__main__":
    sys.exit(main())
