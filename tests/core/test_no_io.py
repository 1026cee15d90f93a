"""Keep the core free of I/O: no banned imports, and nothing loaded at import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sansio_http

CORE = Path(sansio_http.__file__).resolve().parent
BANNED = {
    "asyncio",
    "threading",
    "socket",
    "ssl",
    "selectors",
    "subprocess",
    "concurrent",
    "tempfile",
    "shutil",
    "wsgiref",
    "sansio_http.wsgi",
    "sansio_http.asgi",
    "sansio_http.server",
    "sansio_http.testing",
    "sansio_http.compat",
}
ADAPTERS = {"wsgi", "asgi", "server", "testing", "compat"}


def core_files() -> list[Path]:
    return sorted(
        path for path in CORE.rglob("*.py") if path.relative_to(CORE).parts[0] not in ADAPTERS
    )


def imported_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def is_banned(name: str) -> bool:
    return any(name == banned or name.startswith(banned + ".") for banned in BANNED)


def test_core_has_files_to_check() -> None:
    assert any(path.name == "__init__.py" for path in core_files())


def test_core_imports_no_io_module() -> None:
    offenders = {
        f"{path.relative_to(CORE)}: {name}"
        for path in core_files()
        for name in imported_names(ast.parse(path.read_text(encoding="utf-8")))
        if is_banned(name)
    }
    assert offenders == set()


def test_banned_import_is_detected() -> None:
    assert imported_names(ast.parse("import asyncio\nfrom sansio_http.wsgi import x")) == {
        "asyncio",
        "sansio_http.wsgi",
    }
    assert is_banned("concurrent.futures")
    assert not is_banned("email.utils")


def test_importing_the_core_loads_no_event_loop_ssl_or_adapter() -> None:
    code = (
        "import sys, sansio_http\n"
        "bad = [m for m in ('asyncio', 'ssl', 'sansio_http.wsgi', 'sansio_http.asgi',"
        " 'sansio_http.server', 'sansio_http.testing', 'sansio_http.compat')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == ""


# What opens, stats or reads a file when called by this name.
FILE_CALLS = {"open", "stat", "lstat", "read_bytes", "read_text", "write_bytes", "write_text"}


def file_calls(tree: ast.AST) -> set[str]:
    """The calls in ``tree`` to a builtin or method that touches the file system."""
    called: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in FILE_CALLS:
                called.add(name)
    return called


def test_core_calls_nothing_that_opens_a_file() -> None:
    # The adapters hand the core what opens files (the spool factory, the
    # opener of UploadedFile.save, the FileBody senders); the core calls none.
    offenders = {
        f"{path.relative_to(CORE)}: {name}"
        for path in core_files()
        for name in file_calls(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert offenders == set()


def test_a_file_call_is_detected() -> None:
    tree = ast.parse("open(p, 'wb')\nos.stat(p)\nPath(p).read_bytes()\nopener(p)\n")
    assert file_calls(tree) == {"open", "stat", "read_bytes"}
