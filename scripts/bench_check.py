"""Print the App's lead over Falcon (and Starlette) from one pytest-benchmark run.

``make bench-check`` runs the rows that keep the App honest, in one
pytest-benchmark run, and then this script on its JSON:

- the App's hello and JSON-echo rows under ``to_wsgi`` and ``to_asgi``
  (groups ``wsgi-hello``, ``wsgi-json-echo``, ``asgi-hello``,
  ``asgi-json-echo``) beside Falcon's, and Starlette's where the group has
  them, each routing the request to its view as the App does;
- the ``def`` and ``async def`` views under ``to_asgi`` beside Starlette's
  ``def`` and ``async def`` endpoints (group ``asgi-sync-view``).

It prints, per row, each implementation's time per request (median and
min), the ratio App / Falcon of the medians and of the minimums (below 1
the App is faster), and the same against Starlette. Then the added cost of
a ``def`` view over an ``async def`` view, the App's and Starlette's, and
the first as a fraction of the second (the target is at most half).

It is a report, not a gate: the exit status is 0, unless ``--max-ratio``
is given and an App / Falcon median ratio is above it.

With ``--pure PURE.json`` (``make bench-check-compiled``), RAW is a run of
the compiled build and PURE the same rows' run of the pure-Python build:
the script then also prints, for each of the project's own rows that both
runs have (the four rows above and the core rows: a request from an
environ, a scope and header pairs, header lookups, urlencoded parsing,
routing), the pure build's time, the compiled build's, and how many times
faster the compiled build is.

Usage: ``python scripts/bench_check.py RAW.json [--max-ratio 1.0] [--pure PURE.json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The rows, in the order printed: (group, title).
ROWS = (
    ("wsgi-hello", "WSGI hello"),
    ("wsgi-json-echo", "WSGI JSON echo"),
    ("asgi-hello", "ASGI hello"),
    ("asgi-json-echo", "ASGI JSON echo"),
)

APP = "sansio-http App"
FALCON = "falcon"
STARLETTE = "starlette"

#: The group of the def view under ASGI, and its views: (native, converted).
SYNC_VIEW_GROUP = "asgi-sync-view"
SYNC_VIEWS = ("async def", "def")
#: The issue's target: the App's added cost is at most this share of Starlette's.
SYNC_VIEW_TARGET = 0.5


@dataclass(frozen=True)
class Timing:
    """One benchmark's time per request, in seconds."""

    median: float
    minimum: float


def per_request(raw: dict[str, Any]) -> dict[tuple[str, str], Timing]:
    """Return each benchmark's time per request by (group, implementation).

    The implementation is the ``implementation`` the benchmark records in
    its ``extra_info``; a benchmark that answers a batch of requests per
    round records their number as ``requests_per_round``, and its times
    are divided by it. Benchmarks without a group or an implementation are
    left out.
    """
    found: dict[tuple[str, str], Timing] = {}
    for bench in raw.get("benchmarks", []):
        extra = bench.get("extra_info") or {}
        group, implementation = bench.get("group"), extra.get("implementation")
        if group is None or implementation is None:
            continue
        per = int(extra.get("requests_per_round") or 1)
        stats = bench["stats"]
        found[group, str(implementation)] = Timing(stats["median"] / per, stats["min"] / per)
    return found


@dataclass(frozen=True)
class Row:
    """One comparison: the App's time and each peer's, in seconds per request."""

    title: str
    app: Timing | None
    falcon: Timing | None
    starlette: Timing | None

    def ratio(self, peer: Timing | None) -> tuple[float, float] | None:
        """Return App / peer of the medians and of the minimums, or None."""
        if self.app is None or peer is None:
            return None
        return self.app.median / peer.median, self.app.minimum / peer.minimum


def rows(timings: dict[tuple[str, str], Timing]) -> list[Row]:
    """Return the four rows, with None for an implementation the run lacks."""
    return [
        Row(
            title,
            timings.get((group, APP)),
            timings.get((group, FALCON)),
            timings.get((group, STARLETTE)),
        )
        for group, title in ROWS
    ]


@dataclass(frozen=True)
class SyncViewCost:
    """What a ``def`` view adds over an ``async def`` one under ASGI, per request."""

    app: float
    starlette: float

    @property
    def fraction(self) -> float:
        """The App's added cost as a fraction of Starlette's."""
        return self.app / self.starlette

    @property
    def met(self) -> bool:
        """Whether the App adds at most half of what Starlette adds."""
        return self.app <= SYNC_VIEW_TARGET * self.starlette


def sync_view_cost(raw: dict[str, Any]) -> SyncViewCost | None:
    """Return the added costs of the def view under ASGI, from the medians.

    The rows of ``asgi-sync-view`` record their ``framework`` and ``view``;
    None when the run lacks one of the four.
    """
    medians: dict[tuple[str, str], float] = {}
    for bench in raw.get("benchmarks", []):
        extra = bench.get("extra_info") or {}
        if bench.get("group") != SYNC_VIEW_GROUP or "framework" not in extra:
            continue
        per = int(extra.get("requests_per_round") or 1)
        medians[str(extra["framework"]), str(extra.get("view"))] = bench["stats"]["median"] / per
    native, converted = SYNC_VIEWS
    added = {}
    for framework in (APP, STARLETTE):
        if (framework, native) not in medians or (framework, converted) not in medians:
            return None
        added[framework] = medians[framework, converted] - medians[framework, native]
    return SyncViewCost(added[APP], added[STARLETTE])


def _us(timing: Timing | None) -> str:
    return "—" if timing is None else f"{timing.median * 1e6:8.2f} ({timing.minimum * 1e6:.2f})"


def _table(head: Sequence[str], lines: list[list[str]]) -> list[str]:
    """Return the head and the lines as text lines, each column as wide as its widest cell."""
    widths = [max(len(cells[i]) for cells in [head, *lines]) for i in range(len(head))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()
        for cells in [head, *lines]
    ]


def _ratio(ratio: tuple[float, float] | None) -> str:
    return "—" if ratio is None else f"{ratio[0]:.2f} ({ratio[1]:.2f})"


def report(raw: dict[str, Any]) -> str:
    """Return the table of the four rows and the def-view figure, as text."""
    table = rows(per_request(raw))
    head = ("row", "App µs", "Falcon µs", "App/Falcon", "Starlette µs", "App/Starlette")
    lines = [
        [
            row.title,
            _us(row.app),
            _us(row.falcon),
            _ratio(row.ratio(row.falcon)),
            _us(row.starlette),
            _ratio(row.ratio(row.starlette)),
        ]
        for row in table
    ]
    out = [
        "Per request: median (min). A ratio is the App's time divided by the peer's,"
        " of the medians (of the minimums): below 1.00 the App is faster.",
        *_table(head, lines),
    ]
    cost = sync_view_cost(raw)
    if cost is not None:
        out.append(
            f"def view under ASGI, added over an async def view (medians): the App "
            f"{cost.app * 1e6:.2f} µs, Starlette {cost.starlette * 1e6:.2f} µs; "
            f"App/Starlette {cost.fraction:.2f} (target at most {SYNC_VIEW_TARGET:.2f}: "
            f"{'met' if cost.met else 'NOT met'})"
        )
    return "\n".join(out)


def over(raw: dict[str, Any], max_ratio: float) -> list[str]:
    """Return the titles of the rows whose App / Falcon median ratio exceeds ``max_ratio``."""
    found = []
    for row in rows(per_request(raw)):
        ratio = row.ratio(row.falcon)
        if ratio is not None and ratio[0] > max_ratio:
            found.append(row.title)
    return found


#: The project's own benchmarks that the build comparison prints, by node id, as
#: pytest-benchmark names them, with a title each: the four rows, then the core rows.
OWN_ROWS = (
    ("benchmarks/test_bench_cycle_wsgi.py::test_hello_world_app", "WSGI hello, App"),
    ("benchmarks/test_bench_cycle_wsgi.py::test_json_echo[app]", "WSGI JSON echo, App"),
    ("benchmarks/test_bench_cycle_asgi.py::test_hello_app", "ASGI hello, App"),
    ("benchmarks/test_bench_cycle_asgi.py::test_json_echo[app]", "ASGI JSON echo, App"),
    ("benchmarks/test_bench_wsgi.py::test_environ_request_sansio_http", "request from an environ"),
    ("benchmarks/test_bench_asgi.py::test_request_ours", "request from a scope"),
    ("benchmarks/test_bench_request.py::test_request_sansio_http", "request from text pairs"),
    ("benchmarks/test_bench_request.py::test_request_sansio_http_from_bytes", "request from bytes"),
    ("benchmarks/test_bench_headers.py::test_headers_get", "headers: get"),
    ("benchmarks/test_bench_headers.py::test_headers_get_from_text_pairs", "headers: text pairs"),
    ("benchmarks/test_bench_headers.py::test_environ_headers_get", "headers: environ"),
    ("benchmarks/test_bench_headers.py::test_headers_five_lookups", "headers: five lookups"),
    ("benchmarks/test_bench_headers.py::test_parse_urlencoded", "urlencoded, 1000 fields"),
    ("benchmarks/test_bench_http.py::test_accept_best_match", "Accept: best match"),
    ("benchmarks/test_bench_http.py::test_parse_cookie", "Cookie parsing"),
    ("benchmarks/test_bench_routing.py::test_static[ours]", "routing: static"),
    ("benchmarks/test_bench_routing.py::test_int[ours]", "routing: int"),
    ("benchmarks/test_bench_routing.py::test_path[ours]", "routing: path"),
    ("benchmarks/test_bench_routing.py::test_miss[ours]", "routing: miss"),
)


def by_node(raw: dict[str, Any]) -> dict[str, Timing]:
    """Return each benchmark's time per round by its node id (``fullname``)."""
    return {
        str(bench["fullname"]): Timing(bench["stats"]["median"], bench["stats"]["min"])
        for bench in raw.get("benchmarks", [])
        if "fullname" in bench
    }


def compare_builds(compiled: dict[str, Any], pure: dict[str, Any]) -> str:
    """Return the table of the project's rows in both builds, as text.

    A speedup is the pure build's time divided by the compiled build's, of
    the medians (of the minimums): above 1.00 the compiled build is faster.
    """
    fast, slow = by_node(compiled), by_node(pure)
    head = ("row", "pure µs", "compiled µs", "speedup")
    lines = [
        [
            title,
            _us(slow[node]),
            _us(fast[node]),
            f"{slow[node].median / fast[node].median:.2f}"
            f" ({slow[node].minimum / fast[node].minimum:.2f})",
        ]
        for node, title in OWN_ROWS
        if node in fast and node in slow
    ]
    if not lines:
        return "The two runs have none of the project's rows in common."
    out = [
        "Per round: median (min). The speedup is the pure build's time divided by the"
        " compiled build's, of the medians (of the minimums).",
        *_table(head, lines),
    ]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the report; 1 only for ``--max-ratio`` exceeded or a run without rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("raw", type=Path, help="the file pytest --benchmark-json wrote")
    parser.add_argument(
        "--max-ratio",
        type=float,
        default=None,
        help="exit with 1 when an App/Falcon median ratio is above this (off by default)",
    )
    parser.add_argument(
        "--pure",
        type=Path,
        default=None,
        help="the pure build's run of the same rows, when RAW is the compiled build's",
    )
    args = parser.parse_args(argv)
    raw = json.loads(args.raw.read_text(encoding="utf-8"))
    if not per_request(raw):
        print(f"{args.raw}: no benchmarks (did pytest run with --benchmark-disable?)")
        return 1
    print(report(raw))
    if args.pure is not None:
        print()
        print(compare_builds(raw, json.loads(args.pure.read_text(encoding="utf-8"))))
    if args.max_ratio is not None:
        exceeded = over(raw, args.max_ratio)
        if exceeded:
            print(f"App/Falcon above {args.max_ratio:.2f} on: {', '.join(exceeded)}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
