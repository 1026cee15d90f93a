"""What the README promises a newcomer: the commands, the address and what gets installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def code_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```\w*\n(.*?)^```", markdown, flags=re.MULTILINE | re.DOTALL)


def test_readme_opens_with_the_title_then_the_two_commands() -> None:
    lines = README.splitlines()
    assert lines[0] == "# sansio-http"
    first_block = code_blocks(README)[0]
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["make serve", "make test"]
    # Only the pitch stands between the title and the commands.
    before = README[: README.index("```")]
    assert before.count("\n\n") == 2


def serve_command(*arguments: str) -> str:
    make = shutil.which("make")
    assert make is not None
    result = subprocess.run(
        [make, "--dry-run", "--no-print-directory", "serve", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ((), "--host 127.0.0.1 --port 8000"),
        (("PORT=8080",), "--host 127.0.0.1 --port 8080"),
        (("HOST=0.0.0.0", "PORT=8080"), "--host 0.0.0.0 --port 8080"),
    ],
)
def test_make_serve_takes_the_port_and_host_the_readme_names(
    arguments: tuple[str, ...], expected: str
) -> None:
    if arguments:
        assert f"`make serve {' '.join(arguments)}`" in README
    else:
        assert "http://127.0.0.1:8000" in README
    command = serve_command(*arguments)
    assert command.endswith(f"-m sansio_http.server examples.app:app {expected}")


def test_make_test_installs_what_the_readme_lists() -> None:
    extras = re.search(r"pip install --quiet -e '\.\[([\w,]+)\]'", MAKEFILE)
    assert extras is not None
    assert set(extras[1].split(",")) == {"test", "docs", "server", "bench", "flask"}
    for name in ("test", "docs", "server", "bench", "flask"):
        assert f"`{name}`" in README
    for package in (
        "pytest", "hypothesis", "mypy", "ruff", "gunicorn", "uvicorn", "hypercorn", "httpx",
        "furo", "build", "twine", "werkzeug", "flask", "starlette", "falcon",
        "python-multipart", "matplotlib", "jinja2", "click",
    ):  # fmt: skip
        assert re.search(rf'"{package}[\[>=]', PYPROJECT), package
        assert package.lower() in README.lower(), package
