"""Print ``-m NAME`` for every module of the distribution, for mypy.

mypy does not walk the strict editable install's link tree, and the source
folders do not spell the import names (``src/adapters/wsgi`` is
``sansio_http.wsgi``), so the Makefile names each module explicitly.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "sansio_http": ROOT / "src" / "sansio_http",
    "sansio_http.wsgi": ROOT / "src" / "adapters" / "wsgi",
    "sansio_http.asgi": ROOT / "src" / "adapters" / "asgi",
    "sansio_http.server": ROOT / "src" / "adapters" / "server",
    "sansio_http.testing": ROOT / "src" / "adapters" / "testing",
    "sansio_http.compat": ROOT / "src" / "adapters" / "compat",
}


def module_names() -> list[str]:
    """Return the dotted name of every module in the distribution."""
    names = []
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


if __name__ == "__main__":
    print(" ".join(f"-m {name}" for name in module_names()))
