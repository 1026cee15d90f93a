"""Where an app or blueprint lives: its root path and instance folder."""

from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["instance_path_of", "root_path_of"]


def _module_file(import_name: str) -> str | None:
    module = sys.modules.get(import_name)
    if module is not None and getattr(module, "__file__", None):
        return str(module.__file__)
    try:
        spec = importlib.util.find_spec(import_name)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin in (None, "namespace", "built-in"):
        return None
    return spec.origin


def root_path_of(import_name: str) -> str:
    """Return the folder of a module (a package's own folder), as Flask finds it.

    ``__main__`` and names that cannot be found give the working directory.
    """
    found = _module_file(import_name)
    if found is None:
        return os.getcwd()
    return os.path.dirname(os.path.abspath(found))


def instance_path_of(import_name: str) -> str:
    """Return the ``instance`` folder beside a module or package, as Flask does.

    For a package ``flaskr`` in ``/src/flaskr/``, ``/src/instance``; for a
    module ``/src/app.py``, ``/src/instance``.
    """
    found = _module_file(import_name)
    if found is None:
        return os.path.join(os.getcwd(), "instance")
    folder = os.path.dirname(os.path.abspath(found))
    if os.path.basename(found) == "__init__.py":
        folder = os.path.dirname(folder)
    return os.path.join(folder, "instance")
