"""The lead check: its ratios App / Falcon per request, and the def view's added cost.

The Performance page promises that ``make bench-check`` prints, per row,
the App's time and Falcon's (Starlette's where the group has it) per
request, the ratio of the medians and of the minimums, and the def view's
added cost under ASGI as a fraction of Starlette's; and that it exits with
0 unless ``--max-ratio`` is given and exceeded. These tests feed
``scripts/bench_check.py`` a small pytest-benchmark file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.docs.scripts import loaded


@pytest.fixture(scope="module")
def check() -> Iterator[ModuleType]:
    with loaded("bench_check") as module:
        yield module


def bench(group: str, median: float, minimum: float, **extra: Any) -> dict[str, Any]:
    return {
        "group": group,
        "extra_info": extra,
        "stats": {"median": median, "min": minimum, "rounds": 20},
    }


RAW: dict[str, Any] = {
    "benchmarks": [
        bench("wsgi-hello", 4e-6, 3e-6, implementation="sansio-http App"),
        bench("wsgi-hello", 5e-6, 4e-6, implementation="falcon"),
        bench("wsgi-json-echo", 11e-6, 9e-6, implementation="sansio-http App"),
        bench("wsgi-json-echo", 10e-6, 10e-6, implementation="falcon"),
        # A batch of 100 requests per round: the times are per request after division.
        bench(
            "asgi-hello", 500e-6, 450e-6, implementation="sansio-http App", requests_per_round=100
        ),
        bench("asgi-hello", 400e-6, 500e-6, implementation="falcon", requests_per_round=100),
        bench("asgi-hello", 1000e-6, 900e-6, implementation="starlette", requests_per_round=100),
        # Falcon's ASGI JSON echo is missing from this run.
        bench(
            "asgi-json-echo", 1e-3, 1e-3, implementation="sansio-http App", requests_per_round=100
        ),
        # Groups the check does not print, and a benchmark without an implementation.
        bench("wsgi-hello-bare", 1e-6, 1e-6, implementation="sansio-http, no router"),
        bench("routing-int", 1e-6, 1e-6),
        *[
            bench(
                "asgi-sync-view",
                median,
                median,
                implementation=f"{framework}, {view} view",
                framework=framework,
                view=view,
                requests_per_round=100,
            )
            for framework, view, median in [
                ("sansio-http App", "async def", 500e-6),
                ("sansio-http App", "def", 1500e-6),
                ("starlette", "async def", 700e-6),
                ("starlette", "def", 3700e-6),
            ]
        ],
    ]
}


def test_times_are_per_request_by_group_and_implementation(check: Any) -> None:
    timings = check.per_request(RAW)
    assert timings["asgi-hello", "sansio-http App"] == check.Timing(5e-6, 4.5e-6)
    assert timings["wsgi-hello", "falcon"] == check.Timing(5e-6, 4e-6)
    assert ("routing-int", "None") not in timings
    assert all(group != "routing-int" for group, _ in timings)


def test_ratios_are_the_apps_time_over_the_peers_of_medians_and_minimums(check: Any) -> None:
    rows = {row.title: row for row in check.rows(check.per_request(RAW))}
    assert list(rows) == ["WSGI hello", "WSGI JSON echo", "ASGI hello", "ASGI JSON echo"]
    assert rows["WSGI hello"].ratio(rows["WSGI hello"].falcon) == pytest.approx((0.8, 0.75))
    hello = rows["ASGI hello"]
    assert hello.ratio(hello.falcon) == pytest.approx((1.25, 0.9))
    assert hello.ratio(hello.starlette) == pytest.approx((0.5, 0.5))
    # A peer missing from the run: no ratio rather than a wrong one.
    assert rows["ASGI JSON echo"].ratio(rows["ASGI JSON echo"].falcon) is None
    assert rows["WSGI hello"].ratio(rows["WSGI hello"].starlette) is None


def test_the_def_views_added_cost_is_a_fraction_of_starlettes(check: Any) -> None:
    cost = check.sync_view_cost(RAW)
    assert cost.app == pytest.approx(10e-6)
    assert cost.starlette == pytest.approx(30e-6)
    assert cost.fraction == pytest.approx(1 / 3)
    assert cost.met
    without_starlette = {
        "benchmarks": [
            b for b in RAW["benchmarks"] if b["extra_info"].get("framework") != "starlette"
        ]
    }
    assert check.sync_view_cost(without_starlette) is None


def test_the_report_prints_each_row_and_the_def_view_figure(
    check: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(RAW), encoding="utf-8")
    assert check.main([str(raw)]) == 0
    out = capsys.readouterr().out
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    assert lines["WSGI hello"].split() == [
        *("WSGI", "hello"),
        *("4.00", "(3.00)"),
        *("5.00", "(4.00)"),
        *("0.80", "(0.75)"),
        *("—", "—"),
    ]
    assert lines["ASGI hello"].split()[-4:] == ["10.00", "(9.00)", "0.50", "(0.50)"]
    assert lines["ASGI JSON echo"].split()[3:] == ["10.00", "(10.00)", "—", "—", "—", "—"]
    assert (
        "the App 10.00 µs, Starlette 30.00 µs; App/Starlette 0.33 (target at most 0.50: met)" in out
    )


def test_a_report_exits_0_unless_an_opt_in_max_ratio_is_exceeded(
    check: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(RAW), encoding="utf-8")
    # ASGI hello is 1.25 and WSGI JSON echo 1.10: behind Falcon, still a report.
    assert check.main([str(raw)]) == 0
    assert check.main([str(raw), "--max-ratio", "1.3"]) == 0
    assert check.main([str(raw), "--max-ratio", "1.0"]) == 1
    assert capsys.readouterr().out.endswith(
        "App/Falcon above 1.00 on: WSGI JSON echo, ASGI hello\n"
    )


def test_a_run_without_benchmarks_says_so(check: Any, tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps({"benchmarks": []}), encoding="utf-8")
    assert check.main([str(raw)]) == 1


ROOT = Path(__file__).resolve().parents[2]


def collect(nodes: list[str]) -> int:
    """Return how many tests pytest collects from ``nodes``; fail if it cannot collect one."""
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *nodes],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    found = re.search(r"(\d+) tests? collected", collected.stdout)
    assert found is not None, collected.stdout
    return int(found.group(1))


def test_make_bench_check_runs_rows_that_exist() -> None:
    # The Makefile names each benchmark: a renamed one would silently drop out of the check.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    block = makefile.split("BENCH_CHECK_ROWS :=", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"benchmarks/\S+?\.py::[\w\[\]-]+", block.split("BENCH_CHECK_ARGS")[0])
    assert len(rows) == 12
    # The two dispatch rows hold a def and an async def view each.
    assert collect(rows) == 14


def node(fullname: str, median: float, minimum: float) -> dict[str, Any]:
    return {"fullname": fullname, "stats": {"median": median, "min": minimum, "rounds": 20}}


def test_the_build_comparison_prints_each_own_row_both_runs_have(
    check: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compiled = {
        "benchmarks": [
            *RAW["benchmarks"],
            node("benchmarks/test_bench_wsgi.py::test_environ_request_sansio_http", 4e-6, 3e-6),
            node("benchmarks/test_bench_routing.py::test_int[ours]", 0.5e-6, 0.5e-6),
            # In this run only: no row.
            node("benchmarks/test_bench_asgi.py::test_request_ours", 1e-6, 1e-6),
            # A peer's row: never printed.
            node("benchmarks/test_bench_routing.py::test_int[falcon]", 1e-6, 1e-6),
        ]
    }
    pure = {
        "benchmarks": [
            node("benchmarks/test_bench_wsgi.py::test_environ_request_sansio_http", 6e-6, 4.5e-6),
            node("benchmarks/test_bench_routing.py::test_int[ours]", 0.5e-6, 0.4e-6),
            node("benchmarks/test_bench_routing.py::test_int[falcon]", 2e-6, 2e-6),
        ]
    }
    table = check.compare_builds(compiled, pure).splitlines()
    rows = {line.split("  ")[0]: line.split()[-2:] for line in table[2:]}
    assert rows == {
        "request from an environ": ["1.50", "(1.50)"],
        "routing: int": ["1.00", "(0.80)"],
    }
    assert check.compare_builds(compiled, {"benchmarks": []}) == (
        "The two runs have none of the project's rows in common."
    )
    # Through main: the App/Falcon report of the compiled run, then the comparison.
    raw, other = tmp_path / "compiled.json", tmp_path / "pure.json"
    raw.write_text(json.dumps(compiled), encoding="utf-8")
    other.write_text(json.dumps(pure), encoding="utf-8")
    assert check.main([str(raw), "--pure", str(other)]) == 0
    out = capsys.readouterr().out
    assert out.index("App/Falcon") < out.index("request from an environ")


def test_the_build_comparison_names_benchmarks_that_exist(check: Any) -> None:
    # A renamed benchmark would silently drop out of the comparison.
    nodes = [row for row, _ in check.OWN_ROWS]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    block = makefile.split("BENCH_CORE_ROWS :=", 1)[1].split("\n\n", 1)[0]
    in_make = re.findall(r"benchmarks/\S+?\.py::[\w\[\]-]+", block.split("BENCH_BUILDS_ARGS")[0])
    # Every core row the Makefile runs is one the script prints, and the four App rows too.
    assert set(in_make) <= set(nodes)
    assert len(set(nodes) - set(in_make)) == 4
    assert collect(nodes) == len(nodes)
