"""The end-to-end benchmark's rounds: each application keeps the median of its turns.

``scripts/bench_e2e.py`` needs wrk and real servers to measure; what it makes
of the measurements is checked here without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.docs.scripts import loaded


@pytest.fixture(scope="module")
def e2e() -> Iterator[ModuleType]:
    with loaded("bench_e2e") as module:
        yield module


def test_an_application_keeps_the_median_of_its_rounds(e2e: ModuleType) -> None:
    rounds = [
        e2e.Run("uvicorn h11", "raw callable", 900.0, 9.0, 1),
        e2e.Run("uvicorn h11", "raw callable", 1200.0, 3.0, 0),
        e2e.Run("uvicorn h11", "raw callable", 1000.0, 5.0, 2),
    ]
    run = e2e.median_run("uvicorn h11", "raw callable", rounds)
    assert (run.requests_per_second, run.p99_ms, run.errors) == (1000.0, 5.0, 3)
    assert run.skipped is None


def test_failed_rounds_are_left_out_and_noted(e2e: ModuleType) -> None:
    rounds = [
        e2e.Run("gunicorn sync", "flask", 400.0, 8.0),
        e2e.Run("gunicorn sync", "flask", skipped="no answer"),
    ]
    run = e2e.median_run("gunicorn sync", "flask", rounds)
    assert run.requests_per_second == 400.0
    assert run.skipped == "1 rounds failed"
    table = e2e.markdown(
        [run],
        {"threads": 2, "connections": 50, "duration": 5, "rounds": 2, "pinning": "no core pinning"},
    )
    assert "| gunicorn sync | flask | 400 |" in table
    assert "0; 1 rounds failed |" in table
    assert "the median of 2 rounds" in table


def test_an_application_with_no_round_is_skipped(e2e: ModuleType) -> None:
    rounds = [e2e.Run("gunicorn sync", "flask", skipped="the server exited with status 3")]
    run = e2e.median_run("gunicorn sync", "flask", rounds)
    assert run.requests_per_second is None
    assert run.skipped == "the server exited with status 3"
