"""The benchmark report: which row each group is compared with, and the target checks.

The Performance page promises that each group's ratios are to ours doing the
same work: the App where the peers route, a bare handler only among bare
peers. These tests feed ``scripts/bench_report.py`` a small pytest-benchmark
file and check what it makes of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.docs.scripts import loaded


@pytest.fixture(scope="module")
def report() -> Iterator[ModuleType]:
    with loaded("bench_report") as module:
        yield module


def bench(group: str, implementation: str, median: float, **extra: Any) -> dict[str, Any]:
    return {
        "fullname": f"benchmarks/test_bench_x.py::test_{group.replace('-', '_')}[{implementation}]",
        "group": group,
        "param": None,
        "extra_info": {"implementation": implementation, **extra},
        "stats": {"median": median, "min": median, "stddev": 0.0, "rounds": 10},
        "options": {"min_rounds": 5, "max_time": 0.5},
    }


RAW: dict[str, Any] = {
    "benchmarks": [
        bench("wsgi-hello", "sansio-http App", 6e-6),
        bench("wsgi-hello", "falcon", 4.5e-6),
        bench("wsgi-hello", "flask", 30e-6),
        bench("wsgi-hello-bare", "sansio-http, no router", 4e-6),
        bench("wsgi-hello-bare", "raw callable", 1e-6),
        bench("routing-int", "sansio-http", 1e-6),
        bench("routing-int", "falcon", 1.2e-6),
        bench("request", "sansio-http, raw bytes", 9e-6),
        bench("request", "sansio-http", 11e-6),
        bench("request", "werkzeug", 18e-6),
        bench("wsgi-async-view", "App def", 6e-6, framework="sansio-http App", view="def"),
        bench("wsgi-async-view", "App async", 16e-6, framework="sansio-http App", view="async def"),
        bench(
            "wsgi-async-view",
            "asyncio, run_until_complete on a kept loop",
            8e-6,
            framework="asyncio, kept loop",
            view="run_until_complete",
        ),
    ]
}


def test_the_app_is_the_reference_where_peers_route(report: Any) -> None:
    groups = {group.name: group for group in report.build_groups(RAW)}
    assert groups["wsgi-hello"].reference().implementation == "sansio-http App"
    ratios = {r.implementation: r.ratio for r in groups["wsgi-hello"].results}
    assert ratios["falcon"] == pytest.approx(0.75)
    assert ratios["flask"] == pytest.approx(5.0)


def test_a_bare_handler_is_the_reference_among_bare_peers_only(report: Any) -> None:
    groups = {group.name: group for group in report.build_groups(RAW)}
    bare = groups["wsgi-hello-bare"]
    assert bare.reference().implementation == "sansio-http, no router"
    assert all(r.implementation != "sansio-http, no router" for r in groups["wsgi-hello"].results)


def test_the_core_is_the_reference_beside_other_rows_of_ours(report: Any) -> None:
    groups = {group.name: group for group in report.build_groups(RAW)}
    assert groups["request"].reference().implementation == "sansio-http"


def test_targets_are_checked_from_one_run(report: Any) -> None:
    groups = report.build_groups(RAW)
    checks = {target: (measured, met) for target, measured, met in report.ratio_checks(groups)}
    assert checks["wsgi-hello: the App faster than Falcon"] == ("Falcon/App 0.75x", False)
    assert checks["wsgi-hello: the App within 1.3x of the bare handler"] == (
        "App/bare 1.50x",
        False,
    )
    assert checks["routing-int: at least as fast as Falcon"] == ("Falcon/ours 1.20x", True)
    verdicts = report.verdicts(report.overheads(groups))
    assert verdicts == [
        (
            "async def view under WSGI adds at most 1.5x a kept loop's run_until_complete",
            "10.0 µs vs 8.00 µs (1.25x)",
            True,
        )
    ]


def test_the_tables_name_each_group_reference(report: Any, tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(RAW), encoding="utf-8")
    assert report.main([str(raw), "--out", str(tmp_path / "out"), "--no-chart"]) == 0
    table = (tmp_path / "out" / "table.md").read_text(encoding="utf-8")
    assert "| WSGI: hello world through a router, in-process | sansio-http App |" in table
    assert "| WSGI: hello world without a router, in-process | sansio-http, no router |" in table


def test_the_flask_layer_is_checked_against_the_app_and_flask(report: Any) -> None:
    raw = {
        "benchmarks": [
            bench("wsgi-flask-hello", "sansio-http App", 4e-6),
            bench("wsgi-flask-hello", "sansio-http Flask layer", 5e-6),
            bench("wsgi-flask-hello", "flask", 40e-6),
            bench("asgi-flask-json-echo", "sansio-http App", 1e-6),
            bench("asgi-flask-json-echo", "sansio-http Flask layer", 1.5e-6),
            bench("asgi-flask-json-echo", "quart", 12e-6),
        ]
    }
    groups = report.build_groups(raw)
    by_name = {group.name: group for group in groups}
    assert by_name["wsgi-flask-hello"].reference().implementation == "sansio-http App"
    checks = {target: (measured, met) for target, measured, met in report.ratio_checks(groups)}
    assert checks["wsgi-flask-hello: the Flask layer within 1.3x of the App"] == (
        "layer/App 1.25x",
        True,
    )
    assert checks["wsgi-flask-hello: the Flask layer at least 4x as fast as Flask"] == (
        "Flask/layer 8.00x",
        True,
    )
    assert checks["asgi-flask-json-echo: the Flask layer within 1.3x of the App"] == (
        "layer/App 1.50x",
        False,
    )
    # Under ASGI, Flask's API is Quart's.
    assert checks["asgi-flask-json-echo: the Flask layer at least 4x as fast as Quart"] == (
        "Quart/layer 8.00x",
        True,
    )
