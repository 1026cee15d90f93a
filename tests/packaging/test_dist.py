"""The distributions ``make dist`` builds, checked as a user of a wheel meets them.

The package maps ``src/adapters/*`` onto ``sansio_http.*`` with setuptools
``package-dir``; the editable install the tests use links each file, so a
module left out of the build configuration would pass every other test and
still be missing from the wheel. Here the sdist and the wheel are built the
way ``make dist`` builds them (the wheel from the sdist, in an isolated build
environment), and the wheel is installed into a fresh virtual environment
with nothing but its runtime dependencies.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.test_build import COMPILED

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
# The layout the contract fixes: each source folder and the import name it ships as.
PACKAGES = {
    "sansio_http": ROOT / "src" / "sansio_http",
    "sansio_http.wsgi": ROOT / "src" / "adapters" / "wsgi",
    "sansio_http.asgi": ROOT / "src" / "adapters" / "asgi",
    "sansio_http.server": ROOT / "src" / "adapters" / "server",
    "sansio_http.testing": ROOT / "src" / "adapters" / "testing",
    "sansio_http.compat": ROOT / "src" / "adapters" / "compat",
}
PUBLIC_MODULES = [
    "sansio_http",
    "sansio_http.wsgi",
    "sansio_http.asgi",
    "sansio_http.server",
    "sansio_http.testing",
    "sansio_http.compat.flask",
    "sansio_http.http",
    "sansio_http.routing",
    "sansio_http.app",
]
# Building takes a few seconds and installing the wheel's three runtime
# dependencies a few more; these bound a stuck index or a hung build.
BUILD_TIMEOUT = 180
INSTALL_TIMEOUT = 180


def clean_environ() -> dict[str, str]:
    """The environment for the tools: no coverage hook, no path of this checkout."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("COVERAGE_") and name not in {"PYTHONPATH", "PYTHONWARNINGS"}
    }


def run(command: list[str], timeout: float, cwd: Path | None = None) -> str:
    result = subprocess.run(
        command,
        cwd=cwd,
        env=clean_environ(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}"
    return result.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the sdist, then the wheel from it, as ``make dist`` does."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--quiet", "--outdir", str(out), str(ROOT)], BUILD_TIMEOUT)
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (path,) = dist.glob("sansio_http-*-py3-none-any.whl")
    return path


def test_dist_holds_one_sdist_and_one_wheel(dist: Path) -> None:
    sdists = [path.name for path in dist.glob("sansio_http-*.tar.gz")]
    wheels = [path.name for path in dist.glob("sansio_http-*-py3-none-any.whl")]
    assert len(sdists) == len(wheels) == 1
    assert len(list(dist.iterdir())) == 2


def test_sdist_carries_setup_py_for_the_compiled_build(dist: Path) -> None:
    # The Performance page builds the compiled build from the sdist.
    (sdist,) = dist.glob("sansio_http-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert "setup.py" in names
    assert "src/sansio_http/messages/_head.py" in names


def test_wheel_holds_every_module_and_the_typed_marker(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        files = set(archive.namelist())
    # Where each source file must land: its folder's import name, then its own path.
    expected = {
        "/".join([*package.split("."), *path.relative_to(folder).parts])
        for package, folder in PACKAGES.items()
        for path in folder.rglob("*.py")
    }
    assert len(expected) > 50
    assert expected <= files, f"missing from the wheel: {sorted(expected - files)}"
    assert "sansio_http/py.typed" in files
    # Nothing of the source layout leaks in under its folder names.
    assert not any(name.startswith(("adapters/", "src/", "tests/")) for name in files)


def test_metadata_renders(dist: Path) -> None:
    files = sorted(str(path) for path in dist.iterdir())
    output = run([sys.executable, "-m", "twine", "check", "--strict", *files], BUILD_TIMEOUT)
    assert output.count("PASSED") == 2, output


SITE_PACKAGES = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
IMPORT_EVERY_PUBLIC_MODULE = """
import importlib, importlib.metadata, pathlib, sys
site = pathlib.Path(sys.argv[1]).resolve()
for name in sys.argv[2:]:
    module = importlib.import_module(name)
    where = pathlib.Path(module.__file__).resolve()
    assert site in where.parents, f"{name} imported from {where}, not from the wheel"
    print(name, "ok")
print("version", importlib.metadata.version("sansio-http"))
"""


def install_and_import(source: Path, tmp_path: Path) -> tuple[Path, str]:
    """Install ``source`` into a fresh environment; return its Python and what importing printed.

    This environment's pip installs into the new one: no ensurepip, and the
    dependencies come from the package index like a user's would.
    """
    python = fresh_python(tmp_path)
    run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(source)],
        INSTALL_TIMEOUT,
    )
    site = run([str(python), "-I", "-c", SITE_PACKAGES], 30).strip()
    # -I and a neutral working directory keep this checkout off sys.path.
    output = run(
        [str(python), "-I", "-c", IMPORT_EVERY_PUBLIC_MODULE, site, *PUBLIC_MODULES],
        60,
        cwd=tmp_path,
    )
    return python, output


def test_wheel_installs_into_a_fresh_environment_and_imports(wheel: Path, tmp_path: Path) -> None:
    python, output = install_and_import(wheel, tmp_path)
    assert [line for line in output.splitlines() if line.endswith(" ok")] == [
        f"{name} ok" for name in PUBLIC_MODULES
    ]
    version = wheel.name.split("-")[1]
    assert f"version {version}" in output
    help_text = run([str(python), "-I", "-m", "sansio_http.server", "--help"], 60, cwd=tmp_path)
    assert "usage:" in help_text


def makefile_variable(name: str) -> str:
    """Return the value of ``NAME := value`` in the Makefile."""
    for line in (ROOT / "Makefile").read_text().splitlines():
        left, sep, right = line.partition(":=")
        if sep and left.strip() == name:
            return right.strip()
    raise AssertionError(f"the Makefile sets no {name}")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the files a build reads, so that installs leave the checkout alone."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        (copy / name).write_bytes((ROOT / name).read_bytes())
    for folder in PACKAGES.values():
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                target = copy / path.relative_to(ROOT)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
    return copy


def fresh_python(tmp_path: Path) -> Path:
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(environment)
    return environment / "bin" / "python"


def test_install_from_a_clone_imports_the_adapters(project: Path, tmp_path: Path) -> None:
    # The README's `pip install path/to/sansio-http`, into another project's environment.
    _, output = install_and_import(project, tmp_path)
    assert output.count(" ok\n") == len(PUBLIC_MODULES)


def test_editable_install_prints_no_setuptools_notice(project: Path, tmp_path: Path) -> None:
    python = fresh_python(tmp_path)
    # The Makefile's installs run `pip install ... $(PIP_EDITABLE)` with PYTHONWARNINGS
    # exported as $(EDITABLE_NOTICE).
    makefile = (ROOT / "Makefile").read_text()
    stamps = "$(VENV)/.installed $(VENV)/.installed-dev"
    assert f"{stamps}: export PYTHONWARNINGS = $(EDITABLE_NOTICE)" in makefile
    settings = makefile_variable("PIP_EDITABLE").split()
    command = [sys.executable, "-m", "pip", "--python", str(python)]
    command += ["install", "--quiet", "--no-deps", "-e", str(project), *settings]
    result = subprocess.run(
        command,
        env={**clean_environ(), "PYTHONWARNINGS": makefile_variable("EDITABLE_NOTICE")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    assert "editable" not in result.stdout.lower(), result.stdout
    assert (project / "build").is_dir()  # the strict mode's link tree is still made


def test_the_build_requires_the_setuptools_that_reads_the_metadata() -> None:
    # PEP 639's `license = "MIT"` (an SPDX expression) and `license-files`:
    # setuptools reads them from 77.0; an older one refuses the table.
    from packaging.requirements import Requirement

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '\nlicense = "MIT"\n' in text
    build = text[text.index("[build-system]") :].split("\n[", 1)[0]
    requires = build[build.index("requires = [") :].split("]", 1)[0]
    (spec,) = [item.strip().strip('"') for item in requires.split("[", 1)[1].split(",")]
    requirement = Requirement(spec)
    assert requirement.name == "setuptools"
    assert not requirement.specifier.contains("76.1.0")
    assert requirement.specifier.contains("77.0.0")


IMPORT_COMPILED = """
import importlib, pathlib, sys
for name in sys.argv[1:]:
    print(name, pathlib.Path(importlib.import_module(name).__file__).suffix)
"""


@pytest.mark.skipif(
    os.environ.get("SANSIO_HTTP_COMPILED") != "1",
    reason="builds with mypyc and Cython: run by the compiled build's tests (make test-compiled)",
)
def test_the_compiled_wheel_ships_and_imports_every_compiled_module(
    project: Path, tmp_path: Path
) -> None:
    # `make dist` builds it beside the pure wheel as dist-compiled does: pip wheel with
    # SANSIO_HTTP_COMPILE=1, in the compiled build's environment (this one), which has mypy
    # and Cython.
    makefile = (ROOT / "Makefile").read_text()
    command = ["-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps"]
    assert "SANSIO_HTTP_COMPILE=1 $(VENV_C)/bin/python " + " ".join(command) in makefile.replace(
        " \\\n\t\t", " "
    )
    out = tmp_path / "dist"
    result = subprocess.run(
        [sys.executable, *command, "--wheel-dir", str(out), str(project)],
        env={**clean_environ(), "SANSIO_HTTP_COMPILE": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    (wheel,) = out.glob("sansio_http-*.whl")
    # A wheel for this Python and platform, not one that claims to run anywhere.
    assert "-py3-none-any" not in wheel.name
    with zipfile.ZipFile(wheel) as archive:
        extensions = {name.split(".")[0] for name in archive.namelist() if name.endswith(".so")}
    assert {name.replace(".", "/") for name in COMPILED} <= extensions
    python, _ = install_and_import(wheel, tmp_path)
    output = run([str(python), "-I", "-c", IMPORT_COMPILED, *COMPILED], 60, cwd=tmp_path)
    assert output.split() == [word for name in COMPILED for word in (name, ".so")]
