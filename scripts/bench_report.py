"""Turn a pytest-benchmark JSON file into the Performance page's results.

``make bench`` runs the benchmarks with ``--benchmark-json`` and then this
script, which writes into one folder (``docs/_static/bench`` by default):

- ``results.json``: every benchmark by comparison group, with its median
  time and its ratio to ours, plus the machine and the commit;
- ``table.md``: the ratios as Markdown, for the README and reviews;
- ``table.rst.inc``: the same tables for Sphinx's ``.. include::`` (the
  suffix keeps Sphinx from reading it as a page of its own);
- ``chart.png``: each group's times relative to ours, on a log scale.

A group is pytest-benchmark's ``group``. Benchmarks without one are grouped
by their file and test name with the implementation's name taken out
(``test_hello_werkzeug`` in ``test_bench_response.py`` joins
``response-hello``). The implementation is the ``implementation`` recorded
in ``benchmark.extra_info``, else the test's parameter, else the name
in the test's name; anything else is ours. A ratio above 1 means that the
peer takes longer than sansio-http on the same input.

Usage: ``python scripts/bench_report.py RAW.json [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OURS = "sansio-http"
#: The sign after a ratio, spelt by name so that no one mistakes it for an x.
TIMES = "\N{MULTIPLICATION SIGN}"

#: Each known group's title, in the order the tables show them; others follow.
TITLES: dict[str, str] = {
    "request": "Request from header text pairs, reading five values",
    "wsgi-request": "WSGI: request from an environ, reading five values",
    "asgi-request": "ASGI: request from a scope, reading five values",
    "response-hello": "Response: a text response's status and header fields",
    "response-json": "Response: a JSON response's body and header fields",
    "headers-get": "Headers: build from a browser GET's byte pairs, read one field",
    "headers-get-text": "Headers: build from a browser GET's text pairs, read one field",
    "headers-get-environ": "Headers: a view over a WSGI environ, read one field",
    "headers-five-lookups": "Headers: build from fresh bytes, read five fields",
    "http-accept-best-match": "Accept: parse and pick the best of two offers",
    "http-parse-cookie": "Cookie: parse a browser's six cookies",
    "urlencoded-1000-fields": "Query string: 1,000 urlencoded fields",
    "conditional-not-modified": "Conditional: answer a revalidation with 304",
    "conditional-range": "Conditional: answer a range request with 206",
    "forms-urlencoded": "Forms: 1,000 urlencoded fields",
    "forms-fields": "Forms: 1,000 multipart text fields",
    "forms-browser": "Forms: a browser's multipart body, two files and six fields",
    "forms-upload": "Forms: one 10 MiB multipart upload",
    "routing-static": "Routing, 100 rules: a static path",
    "routing-int": "Routing, 100 rules: an integer placeholder and a method",
    "routing-path": "Routing, 100 rules: a path placeholder",
    "routing-miss": "Routing, 100 rules: no match (404)",
    "wsgi-hello": "WSGI: hello world through a router, in-process",
    "wsgi-hello-bare": "WSGI: hello world without a router, in-process",
    "wsgi-json-echo": "WSGI: JSON echo through a router, in-process",
    "wsgi-json-echo-bare": "WSGI: JSON echo without a router, in-process",
    "asgi-hello": "ASGI: hello world through a router, in-process",
    "asgi-hello-bare": "ASGI: hello world without a router, in-process",
    "asgi-json-echo": "ASGI: JSON echo through a router, in-process",
    "asgi-json-echo-bare": "ASGI: JSON echo without a router, in-process",
    "wsgi-upload": "WSGI: a 10 MiB upload through the files API",
    "asgi-upload": "ASGI: a 10 MiB upload through the form API",
    "asgi-browser-form": "ASGI: a browser's multipart form, two files and six fields",
    "wsgi-async-view": "WSGI: an async def view next to the same def view",
    "asgi-sync-view": "ASGI: a def view next to the same async def view",
    "asgi-sync-hook": "ASGI: a def before_request hook and a def view",
    "asgi-body-bridge": "ASGI: a def view reading its JSON body, next to an async def view",
    "wsgi-flask-hello": "WSGI: a hello view on the App, on the Flask layer and on Flask",
    "wsgi-flask-json-echo": "WSGI: a JSON echo view on the App, on the Flask layer and on Flask",
    "asgi-flask-hello": "ASGI: an async hello view on the App, on the Flask layer and on Quart",
    "asgi-flask-json-echo": (
        "ASGI: an async JSON echo view on the App, on the Flask layer and on Quart"
    ),
}

#: The Flask layer's rows (benchmarks/test_bench_flask_layer.py).
LAYER = "sansio-http Flask layer"

#: Benchmarks whose group or name the rules above would get wrong: (group, name).
OVERRIDES: dict[str, tuple[str | None, str]] = {
    "test_bench_forms.py::test_urlencoded_parse_qsl": (None, "urllib"),
}

#: Implementation names as tests spell them, and as the tables show them.
NAMES = {
    "ours": OURS,
    "sansio_http": OURS,
    "raw": "raw callable",
    "raw-multipart": "multipart",
    "starlette-bare": "starlette, no router",
    "python_multipart": "python-multipart",
}

#: Peers whose names may start or end a test's name, as in ``test_werkzeug_headers_get``.
PEER_WORDS = (
    "sansio_http",
    "ours",
    "werkzeug",
    "flask",
    "quart",
    "starlette",
    "falcon",
    "urllib",
)

#: Our implementations, in the order a group takes its reference from: the App where the
#: peers route, the core (or a bare handler) where they do not. A bare handler is only ever
#: compared with peers that do not route either, in groups of their own.
REFERENCES = ("sansio-http App", OURS, f"{OURS}, no router")

#: Columns of the summary table, after ours; other implementations show in the details.
COLUMNS = (
    "raw callable",
    "werkzeug",
    "werkzeug, no router",
    "flask",
    "quart",
    "starlette",
    "starlette, no router",
    "falcon",
    "python-multipart",
    "multipart",
    "urllib",
)

#: Requests answered per round by benchmarks that do not record it themselves.
REQUESTS_PER_ROUND = {"test_bench_asgi.py::test_hello": 100}

#: The dispatch groups: (the view the server calls natively, the converted view).
OVERHEADS = {
    "wsgi-async-view": ("def", "async def"),
    "asgi-sync-view": ("async def", "def"),
}

#: The ``view`` of a row that times the conversion alone: its time is its added cost.
FLOOR_VIEW = "run_until_complete"


@dataclass
class Result:
    """One benchmark: its implementation and its time per request."""

    implementation: str
    test: str
    median: float
    minimum: float
    stddev: float
    rounds: int
    extra: dict[str, Any] = field(default_factory=dict)
    ratio: float | None = None


@dataclass
class Group:
    """One comparison: the same input through each implementation."""

    name: str
    title: str
    results: list[Result] = field(default_factory=list)

    def reference(self) -> Result | None:
        """Return our result that the others are compared with.

        In a dispatch group that is our view of the colour the server calls
        natively, so each ratio shows what a conversion costs.
        """
        if self.name in OVERHEADS:
            native = OVERHEADS[self.name][0]
            for result in self.results:
                framework = str(result.extra.get("framework", ""))
                if framework.startswith(OURS) and result.extra.get("view") == native:
                    return result
            return None
        by_name = {r.implementation: r for r in self.results}
        for name in REFERENCES:
            if name in by_name:
                return by_name[name]
        return next((r for r in self.results if r.implementation.startswith(OURS)), None)


def classify(bench: dict[str, Any]) -> tuple[str, str]:
    """Return the group and the implementation of one raw benchmark."""
    fullname: str = bench["fullname"]
    module, _, test = fullname.rpartition("/")[2].partition("::")
    function = test.partition("[")[0]
    group: str | None = bench.get("group")
    implementation: str | None = bench.get("extra_info", {}).get("implementation")
    override = OVERRIDES.get(f"{module}::{test}")
    if override is not None:
        group = override[0] or group
        implementation = override[1]
    case = function.removeprefix("test_")
    if implementation is None and bench.get("param") is not None:
        implementation = str(bench["param"])
    for word in PEER_WORDS:
        if case.startswith(word + "_"):
            implementation = implementation or word
            case = case.removeprefix(word + "_")
        elif case.endswith("_" + word):
            implementation = implementation or word
            case = case.removesuffix("_" + word)
    if group is None:
        area = module.removeprefix("test_bench_").removesuffix(".py")
        case = case.replace("_", "-")
        group = case if case == area or case.startswith(area + "-") else f"{area}-{case}"
    implementation = implementation or OURS
    return group, NAMES.get(implementation, implementation)


def requests_per_round(bench: dict[str, Any]) -> int:
    """Return how many requests one timed call of the benchmark answers."""
    recorded = bench.get("extra_info", {}).get("requests_per_round")
    if recorded is not None:
        return int(recorded)
    module_test = bench["fullname"].rpartition("/")[2].partition("[")[0]
    return REQUESTS_PER_ROUND.get(module_test, 1)


def build_groups(raw: dict[str, Any]) -> list[Group]:
    """Group the raw benchmarks, sort each by time and compute the ratios."""
    groups: dict[str, Group] = {}
    for bench in raw["benchmarks"]:
        name, implementation = classify(bench)
        per = requests_per_round(bench)
        stats = bench["stats"]
        group = groups.setdefault(name, Group(name, TITLES.get(name, name)))
        group.results.append(
            Result(
                implementation=implementation,
                test=bench["fullname"],
                median=stats["median"] / per,
                minimum=stats["min"] / per,
                stddev=stats["stddev"] / per,
                rounds=int(stats["rounds"]),
                extra=dict(bench.get("extra_info", {})),
            )
        )
    order = list(TITLES)
    ordered = sorted(
        groups.values(),
        key=lambda g: (order.index(g.name) if g.name in order else len(order), g.name),
    )
    for group in ordered:
        group.results.sort(key=lambda r: r.median)
        reference = group.reference()
        for result in group.results:
            if reference is not None:
                result.ratio = result.median / reference.median
    return ordered


@dataclass
class Overhead:
    """What running a view of the other colour adds to one request."""

    group: str
    framework: str
    added: float
    floor: bool = False


def overheads(groups: Iterable[Group]) -> list[Overhead]:
    """Return the added cost per framework in each dispatch group."""
    found = []
    for group in groups:
        if group.name not in OVERHEADS:
            continue
        native, converted = OVERHEADS[group.name]
        times: dict[tuple[str, str], float] = {}
        for result in group.results:
            framework, view = result.extra.get("framework"), result.extra.get("view")
            if view == FLOOR_VIEW:
                found.append(Overhead(group.name, str(framework), result.median, floor=True))
            elif framework is not None and view is not None:
                times[framework, view] = result.median
        for framework in sorted({f for f, _ in times}):
            if (framework, native) in times and (framework, converted) in times:
                added = times[framework, converted] - times[framework, native]
                found.append(Overhead(group.name, framework, added))
    return found


def verdicts(found: Sequence[Overhead]) -> list[tuple[str, str, bool]]:
    """Check our added costs against the issue's targets: (target, measured, met)."""
    by_key = {(o.group, o.framework): o.added for o in found}
    checks = []
    ours_wsgi = by_key.get(("wsgi-async-view", "sansio-http App"))
    floor = next((o.added for o in found if o.group == "wsgi-async-view" and o.floor), None)
    if ours_wsgi is not None and floor is not None:
        checks.append(
            (
                "async def view under WSGI adds at most 1.5x a kept loop's run_until_complete",
                f"{_us(ours_wsgi)} vs {_us(floor)} ({ours_wsgi / floor:.2f}x)",
                ours_wsgi <= 1.5 * floor,
            )
        )
    ours_asgi = by_key.get(("asgi-sync-view", "sansio-http App"))
    theirs_asgi = by_key.get(("asgi-sync-view", "starlette"))
    if ours_asgi is not None and theirs_asgi is not None:
        checks.append(
            (
                "def view under ASGI adds at most half of Starlette's cost",
                f"{_us(ours_asgi)} vs {_us(theirs_asgi)} ({ours_asgi / theirs_asgi:.2f}x)",
                ours_asgi <= theirs_asgi / 2,
            )
        )
    return checks


def ratio_checks(groups: Sequence[Group]) -> list[tuple[str, str, bool]]:
    """Check the App and the router against Falcon, and the App against the bare handler.

    Each pair of times comes from the same run: (target, measured, met).
    """
    by_name = {g.name: g for g in groups}

    def median(group: str, implementation: str) -> float | None:
        found = by_name.get(group)
        result = (
            next((r for r in found.results if r.implementation == implementation), None)
            if found
            else None
        )
        return result.median if result else None

    checks = []
    for group in ("wsgi-hello", "wsgi-json-echo", "asgi-hello", "asgi-json-echo"):
        app, falcon = median(group, "sansio-http App"), median(group, "falcon")
        if app is not None and falcon is not None:
            checks.append(
                (
                    f"{group}: the App faster than Falcon",
                    f"Falcon/App {falcon / app:.2f}x",
                    app < falcon,
                )
            )
        bare = median(group + "-bare", f"{OURS}, no router")
        if app is not None and bare is not None:
            checks.append(
                (
                    f"{group}: the App within 1.3x of the bare handler",
                    f"App/bare {app / bare:.2f}x",
                    app <= 1.3 * bare,
                )
            )
    for group in (
        "wsgi-flask-hello",
        "wsgi-flask-json-echo",
        "asgi-flask-hello",
        "asgi-flask-json-echo",
    ):
        app, layer, flask = (median(group, name) for name in ("sansio-http App", LAYER, "flask"))
        if flask is None:
            # ASGI: Flask's API there is Quart's.
            flask = median(group, "quart")
        if app is not None and layer is not None:
            checks.append(
                (
                    f"{group}: the Flask layer within 1.3x of the App",
                    f"layer/App {layer / app:.2f}x",
                    layer <= 1.3 * app,
                )
            )
        if layer is not None and flask is not None:
            peer = "Flask" if group.startswith("wsgi") else "Quart"
            checks.append(
                (
                    f"{group}: the Flask layer at least 4x as fast as {peer}",
                    f"{peer}/layer {flask / layer:.2f}x",
                    flask >= 4 * layer,
                )
            )
    for group in ("routing-static", "routing-int", "routing-path", "routing-miss"):
        ours, falcon = median(group, OURS), median(group, "falcon")
        if ours is not None and falcon is not None:
            checks.append(
                (
                    f"{group}: at least as fast as Falcon",
                    f"Falcon/ours {falcon / ours:.2f}x",
                    ours <= falcon,
                )
            )
    return checks


def _us(seconds: float) -> str:
    """Format a duration in microseconds, to about three significant figures."""
    value = seconds * 1e6
    if abs(value) >= 100:
        return f"{value:,.0f} µs"
    if abs(value) >= 10:
        return f"{value:.1f} µs"
    return f"{value:.2f} µs"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}{TIMES}"


Table = tuple[list[str], list[list[str]]]


def summary_table(groups: Sequence[Group]) -> Table:
    """Return one row per group: our time, then each peer's ratio to it."""
    present = {r.implementation for g in groups for r in g.results}
    columns = [c for c in COLUMNS if c in present]
    head = ["Comparison", "Reference", "median", *columns]
    rows = []
    for group in groups:
        if group.name in OVERHEADS:
            continue  # a table of its own: see overhead_table
        reference = group.reference()
        by_name = {r.implementation: r for r in group.results}
        row = [
            group.title,
            reference.implementation if reference else "—",
            _us(reference.median) if reference else "—",
        ]
        for column in columns:
            result = by_name.get(column)
            row.append(_ratio(result.ratio) if result and result is not reference else "")
        rows.append(row)
    return head, rows


def detail_table(group: Group) -> Table:
    """Return every implementation of a group with its time and ratio."""
    head = ["Implementation", "median", "min", f"{TIMES} {OURS}", "rounds"]
    rows = [
        [r.implementation, _us(r.median), _us(r.minimum), _ratio(r.ratio), str(r.rounds)]
        for r in group.results
    ]
    return head, rows


def overhead_table(found: Sequence[Overhead]) -> Table:
    """Return the added cost per framework of each dispatch group."""
    head = ["Comparison", "Framework", "added per request"]
    rows = [[TITLES.get(o.group, o.group), o.framework, _us(o.added)] for o in found]
    return head, rows


def markdown(table: Table) -> str:
    """Render a table as GitHub Markdown."""
    head, rows = table
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def rst(table: Table) -> str:
    """Render a table as a reStructuredText list-table."""
    head, rows = table
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [head, *rows]:
        lines.append("   * - " + (row[0] or "\\"))
        lines += ["     - " + (cell or "\\") for cell in row[1:]]
    return "\n".join(lines) + "\n"


def machine(raw: dict[str, Any]) -> dict[str, Any]:
    """Return what the results depend on: Python, CPU, commit and options."""
    info = raw.get("machine_info", {})
    commit = raw.get("commit_info", {})
    options = raw["benchmarks"][0]["options"] if raw["benchmarks"] else {}
    return {
        "datetime": raw.get("datetime"),
        "python": f"{info.get('python_implementation')} {info.get('python_version')}",
        "cpu": info.get("cpu", {}).get("brand_raw") or info.get("processor"),
        "cores": info.get("cpu", {}).get("count"),
        "system": f"{info.get('system')} {info.get('release')}",
        "commit": commit.get("id"),
        "dirty": commit.get("dirty"),
        "min_rounds": options.get("min_rounds"),
        "max_time": options.get("max_time"),
    }


def document(raw: dict[str, Any], groups: Sequence[Group], fmt: str) -> str:
    """Return the Markdown (``md``) or reST (``rst``) tables with their notes."""
    render = markdown if fmt == "md" else rst
    about = machine(raw)
    literal = "`" if fmt == "md" else "``"
    found = overheads(groups)
    parts = [
        f"Measured on {about['cpu']} ({about['cores']} cores), {about['python']}, "
        f"{about['system']}, at commit {literal}{str(about['commit'])[:12]}{literal} "
        f"on {str(about['datetime'])[:10]}. Medians per request; a ratio is the peer's "
        f"time divided by the reference's (ours, doing the same work), so above 1 means "
        f"the peer is slower.\n",
        render(summary_table(groups)),
    ]
    checks = ratio_checks(groups)
    if checks:
        parts.append("Targets measured in this run:\n")
        parts.append(
            "".join(
                f"- {target}: {measured}, {'met' if met else 'not met'}.\n"
                for target, measured, met in checks
            )
        )
    if found:
        parts.append(
            "Dispatch: what running a view of the other colour adds to a request "
            "(the converted view's median minus the native one's).\n"
        )
        parts.append(render(overhead_table(found)))
        for target, measured, met in verdicts(found):
            parts.append(f"- Target: {target}: {measured}, {'met' if met else 'not met'}.\n")
    for group in groups:
        title = f"{group.title} ({literal}{group.name}{literal})"
        # A rubric, not a section: the including page owns the section levels.
        parts.append(f"### {title}\n" if fmt == "md" else f".. rubric:: {title}\n")
        parts.append(render(detail_table(group)))
    return "\n".join(parts)


def chart(groups: Sequence[Group], path: Path) -> None:
    """Draw each group's times relative to ours, one bar per implementation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [g for g in groups if g.reference() is not None and g.name not in OVERHEADS]
    names = sorted({r.implementation for g in shown for r in g.results})
    palette = plt.get_cmap("tab20")
    colours: dict[str, Any] = {name: palette(i % 20) for i, name in enumerate(names)}
    colours[OURS] = "black"
    labels, positions, ticks = [], [], []
    y = 0.0
    fig_rows = sum(len(g.results) for g in shown) + len(shown)
    fig, ax = plt.subplots(figsize=(10, 0.22 * fig_rows + 1.5))
    for group in shown:
        start = y
        for result in reversed(group.results):
            ratio = result.ratio or 1.0
            # From 1 to the ratio: faster peers reach left of the line, slower ones right.
            colour = colours[result.implementation]
            ax.barh(y, ratio - 1.0, left=1.0, color=colour, height=0.8)
            ax.text(ratio * 1.03, y, result.implementation, va="center", fontsize=7)
            y += 1
        positions.append((start + y - 1) / 2)
        labels.append(group.title)
        ticks.append(y)
        y += 1
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(positions, labels, fontsize=7)
    for tick in ticks:
        ax.axhline(tick, color="#dddddd", linewidth=0.5)
    ax.set_ylim(-1, y)
    ax.invert_yaxis()
    ax.set_xlabel(f"median time relative to {OURS} (log scale): right of 1 is slower")
    ax.set_title(f"{OURS} next to its peers on the same inputs")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def summary(raw: dict[str, Any], groups: Sequence[Group]) -> dict[str, Any]:
    """Return the contents of ``results.json``."""
    found = overheads(groups)
    return {
        "machine": machine(raw),
        "unit": "seconds per request (median)",
        "groups": [
            {
                "name": g.name,
                "title": g.title,
                "reference": ref.implementation if (ref := g.reference()) else None,
                "results": [
                    {
                        "implementation": r.implementation,
                        "test": r.test,
                        "median": r.median,
                        "min": r.minimum,
                        "stddev": r.stddev,
                        "rounds": r.rounds,
                        "ratio": r.ratio,
                    }
                    for r in g.results
                ],
            }
            for g in groups
        ],
        "overheads": [
            {"group": o.group, "framework": o.framework, "added": o.added} for o in found
        ],
        "targets": [
            {"target": target, "measured": measured, "met": met}
            for target, measured, met in [*ratio_checks(groups), *verdicts(found)]
        ],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Read the pytest-benchmark JSON and write the four result files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("raw", type=Path, help="the file pytest --benchmark-json wrote")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "_static" / "bench", help="output folder"
    )
    parser.add_argument("--no-chart", action="store_true", help="skip the PNG chart")
    args = parser.parse_args(argv)
    raw = json.loads(args.raw.read_text(encoding="utf-8"))
    if not raw.get("benchmarks"):
        print(f"{args.raw}: no benchmarks (did pytest run with --benchmark-disable?)")
        return 1
    groups = build_groups(raw)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    results = summary(raw, groups)
    (out / "results.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out / "table.md").write_text(document(raw, groups, "md"), encoding="utf-8")
    (out / "table.rst.inc").write_text(document(raw, groups, "rst"), encoding="utf-8")
    if not args.no_chart:
        chart(groups, out / "chart.png")
    ratios = [r.ratio for g in groups for r in g.results if r.ratio and r.ratio != 1.0]
    print(
        f"{len(groups)} groups, {sum(len(g.results) for g in groups)} benchmarks "
        f"(median peer ratio {statistics.median(ratios):.2f}{TIMES}) -> {out}"
        if ratios
        else f"{len(groups)} groups -> {out}"
    )
    for target, measured, met in [*ratio_checks(groups), *verdicts(overheads(groups))]:
        print(f"target {'met' if met else 'NOT met'}: {target} ({measured})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
