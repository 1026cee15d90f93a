"""Run the Python samples of the documentation, page by page.

The convention, for everyone who writes a page under ``docs/``:

- Every ``.. code-block:: python`` (or ``py``, ``python3``) block runs.
- Every doctest block (a paragraph that starts with ``>>>``) runs through
  :mod:`doctest`, and its output must match.
- The samples of one page run in order, in one namespace, so a later sample
  may use what an earlier one defined (the ``app`` of the first sample, say).
  Top-level ``await`` is allowed in a code block; the block then runs on a
  fresh event loop.
- A code block that must not run (it needs a server, the network, a package
  we do not depend on, or it is a fragment using names it does not define)
  says so with the option ``:class: no-run``::

      .. code-block:: python
         :class: no-run

         uvicorn.run(app)

- Literal blocks introduced by ``::`` never run: use them for shell
  commands, configuration files and fragments. So do code blocks in any
  other language (``console``, ``nginx``, ``ini``...).

Samples run in a temporary working directory and need no network. A sample
that fails names its page and line.
"""

from __future__ import annotations

import ast
import asyncio
import doctest
import inspect
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PYTHON = {"python", "py", "python3"}
NO_RUN = "no-run"

_CODE_BLOCK = re.compile(
    r"^(?P<indent>\s*)\.\. (?:code-block|code|sourcecode)::\s*(?P<lang>\S*)\s*$"
)
_DIRECTIVE_OR_COMMENT = re.compile(r"^\s*\.\.(\s|$)")
_OPTION = re.compile(r"^:(?P<name>[\w-]+):\s*(?P<value>.*)$")


@dataclass
class Sample:
    """One block of a page: ``code`` (exec'd) or ``doctest``."""

    kind: str
    line: int
    source: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def runs(self) -> bool:
        return NO_RUN not in self.options.get("class", "").split()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _indented_block(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """Return the lines after ``start`` indented deeper than ``indent``, and the next index."""
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    block = lines[start:end]
    while block and not block[-1].strip():
        block.pop()
    return block, end


def extract_samples(text: str) -> list[Sample]:
    """Find the Python code blocks and doctest blocks of a reStructuredText page."""
    lines = text.splitlines()
    samples: list[Sample] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _CODE_BLOCK.match(line)
        if match:
            indent = len(match["indent"])
            block, end = _indented_block(lines, index + 1, indent)
            options: dict[str, str] = {}
            body_start = 0
            while body_start < len(block):
                option = _OPTION.match(block[body_start].strip())
                if option is None:
                    break
                options[option["name"]] = option["value"].strip()
                body_start += 1
            while body_start < len(block) and not block[body_start].strip():
                body_start += 1
            body = textwrap.dedent("\n".join(block[body_start:])) + "\n"
            if match["lang"].lower() in PYTHON:
                kind = "doctest" if body.startswith(">>>") else "code"
                # index + 1 is the first line after the directive; lines count from 1.
                samples.append(Sample(kind, index + 2 + body_start, body, options))
            index = end
            continue
        stripped = line.strip()
        if stripped.startswith(">>>"):
            end = index
            while end < len(lines) and lines[end].strip():
                end += 1
            body = textwrap.dedent("\n".join(lines[index:end])) + "\n"
            samples.append(Sample("doctest", index + 1, body))
            index = end
            continue
        if stripped.endswith("::") and not _DIRECTIVE_OR_COMMENT.match(line):
            # A paragraph ending in "::" introduces a literal block: never run.
            _, index = _indented_block(lines, index + 1, _paragraph_indent(lines, index))
            continue
        index += 1
    return samples


def _paragraph_indent(lines: list[str], index: int) -> int:
    """The indentation of the paragraph whose line ``index`` ends it."""
    start = index
    while start > 0 and lines[start - 1].strip():
        start -= 1
    return _indent(lines[start])


def run_code(sample: Sample, namespace: dict[str, Any], name: str) -> None:
    code = compile(sample.source, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, namespace)  # a coroutine when the block awaits at top level
    if inspect.iscoroutine(result):
        asyncio.run(result)


def run_doctest(sample: Sample, namespace: dict[str, Any], name: str, path: Path) -> str:
    test = doctest.DocTestParser().get_doctest(sample.source, {}, name, str(path), sample.line - 1)
    test.globs = namespace  # get_doctest copies the globals; the page shares one namespace
    output: list[str] = []
    runner = doctest.DocTestRunner(verbose=False, optionflags=doctest.ELLIPSIS)
    runner.run(test, out=output.append, clear_globs=False)
    return "".join(output)


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.rst"))


def page_id(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_page_samples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for sample in extract_samples(page.read_text(encoding="utf-8")):
        if not sample.runs:
            continue
        name = f"{page_id(page)}:{sample.line}"
        if sample.kind == "code":
            run_code(sample, namespace, name)
        else:
            failures = run_doctest(sample, namespace, name, page)
            assert not failures, f"doctest failed at {name}:\n{failures}"


# -- the extractor itself ------------------------------------------------------------

PAGE = """\
Title
=====

.. code-block:: python

    x = 1

.. code-block:: python
   :class: wide no-run
   :caption: Not run

   server.serve_forever()

A literal block::

    >>> not_a_doctest
    .. code-block:: python

And a doctest:

>>> x + 1
2

.. note::

   .. code-block:: python

      y = x

   .. code-block:: console

      $ make serve

.. code-block:: python

   >>> y
   1
"""


def test_extract_samples_follows_the_convention() -> None:
    samples = extract_samples(PAGE)
    assert [(s.kind, s.runs, s.source) for s in samples] == [
        ("code", True, "x = 1\n"),
        ("code", False, "server.serve_forever()\n"),
        ("doctest", True, ">>> x + 1\n2\n"),
        ("code", True, "y = x\n"),
        ("doctest", True, ">>> y\n1\n"),
    ]
    assert samples[0].line == 6
    assert samples[1].options == {"class": "wide no-run", "caption": "Not run"}


def test_samples_share_a_namespace_and_await_works(tmp_path: Path) -> None:
    page = tmp_path / "page.rst"
    namespace: dict[str, Any] = {}
    for sample in extract_samples(PAGE):
        if sample.runs and sample.kind == "code":
            run_code(sample, namespace, "page")
        elif sample.runs:
            assert run_doctest(sample, namespace, "page", page) == ""
    assert namespace["y"] == 1
    awaiting = Sample("code", 1, "import asyncio\nawait asyncio.sleep(0)\nz = 2\n")
    run_code(awaiting, namespace, "page")
    assert namespace["z"] == 2


def test_a_wrong_doctest_output_is_reported(tmp_path: Path) -> None:
    failures = run_doctest(Sample("doctest", 3, ">>> 1 + 1\n3\n"), {}, "p", tmp_path / "p.rst")
    assert "Expected:\n    3\nGot:\n    2" in failures


def test_the_porting_notes_name_the_counterpart_of_background_tasks() -> None:
    # streaming.rst documents Response.call_on_close; app.rst's Starlette
    # notes must point to it, not say there is none.
    app_page = (DOCS / "app.rst").read_text(encoding="utf-8")
    assert "call_on_close" in (DOCS / "streaming.rst").read_text(encoding="utf-8")
    assert "no counterpart" not in app_page
    notes = app_page[app_page.index("BackgroundTasks") :][:200]
    assert "call_on_close" in notes
