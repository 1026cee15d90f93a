"""The front page of the documentation: its code fits the theme's column."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
# furo's content column shows about 88 characters of code at a desktop width;
# 79 leaves room for the block's padding and a wider font.
MAX_CODE_LINE = 79


def code_lines(text: str) -> list[str]:
    """Every line inside a code block or literal block of a reStructuredText page."""
    lines = text.splitlines()
    found: list[str] = []
    inside = False
    for line in lines:
        if inside:
            if line.strip() and not line.startswith(" "):
                inside = False
            elif line.strip() and not re.match(r"\s+:[\w-]+:", line):
                found.append(line[4:])
                continue
        if not inside and (line.rstrip().endswith("::") or line.startswith(".. code-block::")):
            inside = True
    return found


def test_the_index_page_has_code() -> None:
    assert len(code_lines((DOCS / "index.rst").read_text(encoding="utf-8"))) >= 8


def test_code_on_the_index_page_fits_the_column() -> None:
    lines = code_lines((DOCS / "index.rst").read_text(encoding="utf-8"))
    too_long = [line for line in lines if len(line) > MAX_CODE_LINE]
    assert too_long == []


def test_code_lines_are_found_in_code_and_literal_blocks() -> None:
    page = "Intro::\n\n    one\n    two\n\nText.\n\n.. code-block:: sh\n   :class: x\n\n    three\n"
    assert code_lines(page) == ["one", "two", "three"]
