"""A segment of several placeholders: split as the regex splits it, in linear time."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_http.routing import Router, Rule
from sansio_http.routing._rules import _Part
from sansio_http.routing._split import splitter


def part_of(rule: str) -> _Part:
    router = Router()
    router.add(Rule(rule, "endpoint"))
    part, _ = router._root.parts[0]
    return part


literal = st.text(alphabet="-.a1", max_size=2)
placeholder = st.sampled_from(["<{}>", "<string:{}>", "<int:{}>", "<string(minlength=2):{}>"])
run = st.text(alphabet="-.a1\u0663x", min_size=1, max_size=8)


@st.composite
def part_and_text(draw: st.DrawFn) -> tuple[str, str]:
    """A segment of placeholders, and a text: made to fit it (mostly) or at random."""
    count = draw(st.integers(2, 4))
    pieces, fitting = [draw(literal)], []
    fitting.append(pieces[0])
    for index in range(count):
        pieces.append(draw(placeholder).format(f"p{index}"))
        fitting.append(draw(run))
        pieces.append(draw(literal))
        fitting.append(pieces[-1])
    text = draw(st.one_of(st.just("".join(fitting)), st.text(alphabet="-.a1x", max_size=40)))
    return "".join(pieces), text


@settings(max_examples=500, deadline=None)
@given(part_and_text())
def test_the_split_gives_the_regexs_groups(case: tuple[str, str]) -> None:
    segment, text = case
    part = part_of("/" + segment)
    found = splitter(part)
    assert found is not None
    _, split = found
    matched = part.pattern.fullmatch(text)
    expected = None if matched is None else [matched[group] for group in part.groups]
    assert split(text) == expected


def test_parts_the_split_does_not_know_keep_the_regex() -> None:
    assert splitter(part_of("/<a>-<float:b>")) is None
    assert splitter(part_of("/<int(signed=True):a>-<b>")) is None
    assert splitter(part_of("/<a>.html")) is None  # one placeholder: no backtracking


def test_long_segments_route_as_short_ones() -> None:
    router = Router()
    router.add(Rule("/<year>-<month>-<day>.html", "day"))
    router.add(Rule("/<int:a><int:b>/x", "digits"))
    assert router.find("/2024-01-02.html") == (
        router.rules[0],
        {"year": "2024", "month": "01", "day": "02"},
    )
    # Each placeholder as long as the rest allows, the first first.
    long = "-".join(["a" * 100] * 5) + ".html"
    found = router.find("/" + long)
    assert found is not None
    assert found[1] == {"year": "-".join(["a" * 100] * 3), "month": "a" * 100, "day": "a" * 100}
    assert router.find("/" + "-" * 500 + ".htm") is None
    assert router.find("/" + "7" * 300 + "/x") == (router.rules[1], {"a": int("7" * 299), "b": 7})


def test_a_pathological_segment_is_answered_in_linear_time() -> None:
    # Matched by the regex alone, these took hours (2,000 dashes: 19 s on the
    # path, growing with the cube of the length; seven placeholders in a
    # 63-character host label: 2 s). A child process, so that a regex that
    # holds the GIL cannot hold the test past its deadline.
    script = textwrap.dedent(
        """
        from sansio_http.routing import Router, Rule

        router = Router()
        router.add(Rule("/<y>-<m>-<d>.html", "day"))
        host = "-".join(f"<p{i}>" for i in range(7)) + "x.example.com"
        router.add(Rule("/", "tenant", host=host))
        assert router.find("/" + "-" * 20_000 + ".htm") is None
        assert router.find("/", host="-" * 62 + "y.example.com") is None
        print("answered")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "answered", result.stderr
