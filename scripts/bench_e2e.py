"""Load the same hello-world apps behind real servers with wrk; compare them.

Each server (gunicorn with sync and with gthread workers, uvicorn with h11,
and the development server ``python -m sansio_http.server``) runs each
application of ``benchmarks/e2e_apps.py`` that fits its interface, one at a
time, on 127.0.0.1. wrk loads it for a bounded time (5 s, 2 threads, 50
connections by default); with two cores or more the server is pinned to one
core and wrk to another with ``taskset``, so that they do not steal from
each other. The result per run is requests per second and the 99th
percentile latency, with ratios to the raw callable on the same server.

The results go to ``e2e.json`` and ``e2e.md`` in ``--out``. wrk comes from
Debian's package: ``apt-get install wrk``. Not run by pytest; ``make
bench-e2e`` runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
APPS_MODULE = "benchmarks.e2e_apps"

#: Applications by interface: (the name in the tables, the attribute of APPS_MODULE).
APPS = {
    "wsgi": [
        ("raw callable", "wsgi_raw"),
        ("sansio-http", "wsgi_ours"),
        ("sansio-http App", "wsgi_app"),
        ("werkzeug", "wsgi_werkzeug"),
        ("flask", "wsgi_flask"),
        ("falcon", "wsgi_falcon"),
    ],
    "asgi": [
        ("raw callable", "asgi_raw"),
        ("sansio-http", "asgi_ours"),
        ("sansio-http App", "asgi_app"),
        ("starlette", "asgi_starlette"),
        ("falcon", "asgi_falcon"),
    ],
}

#: Servers: (name, interface, command with {app}, {host} and {port} to fill in).
SERVERS: list[tuple[str, str, list[str]]] = [
    (
        "gunicorn sync",
        "wsgi",
        [str(BIN / "gunicorn"), "-w", "1", "-k", "sync", "-b", "{host}:{port}", "{app}"],
    ),
    (
        "gunicorn gthread",
        "wsgi",
        [
            str(BIN / "gunicorn"),
            *("-w", "1", "-k", "gthread", "--threads", "4", "-b", "{host}:{port}", "{app}"),
        ],
    ),
    (
        "uvicorn h11",
        "asgi",
        [
            str(BIN / "uvicorn"),
            *("--http", "h11", "--loop", "asyncio", "--no-access-log", "--log-level", "warning"),
            *("--host", "{host}", "--port", "{port}", "{app}"),
        ],
    ),
    *[
        (
            f"sansio_http.server ({interface})",
            interface,
            [
                sys.executable,
                *("-m", "sansio_http.server", "--interface", interface, "--no-access-log"),
                *("--host", "{host}", "--port", "{port}", "{app}"),
            ],
        )
        for interface in ("wsgi", "asgi")
    ],
]

HOST = "127.0.0.1"
#: Where each server's output goes, to read when a run fails.
LOGS = ROOT / "build" / "bench" / "e2e-logs"
#: The sign after a ratio, spelt by name so that no one mistakes it for an x.
TIMES = "\N{MULTIPLICATION SIGN}"


@dataclass
class Run:
    """One server and application under wrk."""

    server: str
    app: str
    requests_per_second: float | None = None
    p99_ms: float | None = None
    errors: int = 0
    skipped: str | None = None
    rps_ratio: float | None = None
    p99_ratio: float | None = None


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def pinning(role: str) -> list[str]:
    """Return the taskset prefix for the server (core 0) or wrk (core 1)."""
    if shutil.which("taskset") is None or (os.cpu_count() or 1) < 2:
        return []
    return ["taskset", "-c", "0" if role == "server" else "1"]


def wait_ready(url: str, process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """Wait until ``url`` answers 200, or raise RuntimeError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        time.sleep(0.1)
    raise RuntimeError(f"no answer from {url} within {timeout:.0f} s")


@contextlib.contextmanager
def serving(command: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run the server in its own session, output to ``log``; stop it after."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*pinning("server"), *command],
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        # The session holds only this server and the workers it forked.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def parse_wrk(output: str) -> tuple[float, float, int]:
    """Return requests per second, the p99 latency in ms and the error count."""
    rps = re.search(r"Requests/sec:\s*([\d.]+)", output)
    p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    if rps is None or p99 is None:
        raise RuntimeError(f"wrk printed no results:\n{output}")
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses:\s*(\d+)", output))
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    if socket_errors is not None:
        # Reads fail when a sync worker closes after each answer; count the others.
        errors += sum(int(socket_errors.group(i)) for i in (1, 3, 4))
    return float(rps.group(1)), float(p99.group(1)) * _UNITS[p99.group(2)], errors


def load(url: str, args: argparse.Namespace) -> tuple[float, float, int]:
    """Run wrk against ``url``; return what :func:`parse_wrk` returns."""
    command = [
        *pinning("wrk"),
        args.wrk,
        *("-t", str(args.threads), "-c", str(args.connections)),
        *("-d", f"{args.duration}s", "--latency", url),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=args.duration + 30, check=True
    )
    return parse_wrk(done.stdout)


def available(attribute: str) -> bool:
    """Tell whether the apps module offers ``attribute`` (to_wsgi may be missing)."""
    sys.path.insert(0, str(ROOT))
    try:
        module = __import__(APPS_MODULE, fromlist=[attribute])
    finally:
        sys.path.pop(0)
    return getattr(module, attribute, None) is not None


def run_once(server: str, template: list[str], attribute: str, args: argparse.Namespace) -> Run:
    """Serve one application with one server, load it with wrk, and stop the server."""
    run = Run(server, attribute)
    port = free_port()
    fill = {"app": f"{APPS_MODULE}:{attribute}", "host": HOST, "port": str(port)}
    command = [part.format(**fill) for part in template]
    url = f"http://{HOST}:{port}/"
    log = LOGS / f"{server}-{attribute}.log".replace(" ", "-")
    try:
        with serving(command, log) as process:
            wait_ready(url, process)
            run.requests_per_second, run.p99_ms, run.errors = load(url, args)
    except (RuntimeError, subprocess.SubprocessError) as exc:
        run.skipped = f"{str(exc).strip().splitlines()[0]} (see {log})"
    return run


def measure(args: argparse.Namespace) -> list[Run]:
    """Run every server with every application of its interface.

    The applications of a server take turns, ``args.rounds`` times, and each
    keeps the median of its rounds: a slow phase of a shared machine then
    falls on every application alike instead of on whichever ran during it.
    """
    runs = []
    for server, interface, template in SERVERS:
        if args.only and not any(word in server for word in args.only):
            continue
        rounds: dict[str, list[Run]] = {}
        for label, attribute in APPS[interface]:
            if not available(attribute):
                run = Run(server, label, skipped=f"{APPS_MODULE}.{attribute} is missing")
                print(f"{server:28} {label:18} skipped: {run.skipped}", flush=True)
                runs.append(run)
                continue
            rounds[label] = []
        for _ in range(args.rounds):
            for label, attribute in APPS[interface]:
                if label not in rounds:
                    continue
                one = run_once(server, template, attribute, args)
                rounds[label].append(one)
                if one.skipped is not None:
                    print(f"{server:28} {label:18} failed: {one.skipped}", flush=True)
                    continue
                print(
                    f"{server:28} {label:18} {one.requests_per_second:10.0f} req/s  "
                    f"p99 {one.p99_ms:7.2f} ms",
                    flush=True,
                )
        for label, _ in APPS[interface]:
            if label in rounds:
                runs.append(median_run(server, label, rounds[label]))
    for run in runs:
        floor = next((r for r in runs if r.server == run.server and r.app == "raw callable"), None)
        if floor and floor.requests_per_second and run.requests_per_second:
            run.rps_ratio = run.requests_per_second / floor.requests_per_second
        if floor and floor.p99_ms and run.p99_ms:
            run.p99_ratio = run.p99_ms / floor.p99_ms
    return runs


def median_run(server: str, label: str, rounds: Sequence[Run]) -> Run:
    """Return the median requests per second and p99 of the rounds that ran."""
    done = [r for r in rounds if r.requests_per_second is not None and r.p99_ms is not None]
    if not done:
        return Run(server, label, skipped=rounds[-1].skipped if rounds else "no round ran")
    return Run(
        server,
        label,
        requests_per_second=statistics.median(r.requests_per_second or 0.0 for r in done),
        p99_ms=statistics.median(r.p99_ms or 0.0 for r in done),
        errors=sum(r.errors for r in done),
        skipped=None if len(done) == len(rounds) else f"{len(rounds) - len(done)} rounds failed",
    )


def markdown(runs: Sequence[Run], settings: dict[str, object]) -> str:
    """Render the runs as a Markdown table with the settings above it."""
    lines = [
        f"wrk, {settings['threads']} threads, {settings['connections']} connections, "
        f"{settings['duration']} s per run, the median of {settings['rounds']} rounds taken "
        "in turns by the applications of a server, `GET /` answered with `Hello, World!`; "
        f"{settings['pinning']}. Ratios are to the raw callable on the same server: "
        "throughput as a share of its requests per second, p99 as a multiple of its p99.",
        "",
        f"| Server | Application | requests/s | of raw | p99 | {TIMES} raw p99 | errors or note |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        if run.requests_per_second is None or run.p99_ms is None:
            lines.append(f"| {run.server} | {run.app} | — | | | | {run.skipped} |")
            continue
        share = "" if run.rps_ratio is None else f"{run.rps_ratio:.0%}"
        p99_ratio = "" if run.p99_ratio is None else f"{run.p99_ratio:.2f}"
        lines.append(
            f"| {run.server} | {run.app} | {run.requests_per_second:,.0f} | {share} "
            f"| {run.p99_ms:.2f} ms | {p99_ratio} | {run.errors}"
            f"{'' if run.skipped is None else '; ' + run.skipped} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, then write ``e2e.json`` and ``e2e.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "_static" / "bench")
    parser.add_argument("--duration", type=int, default=5, help="seconds per run")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--connections", type=int, default=50, help="wrk connections")
    parser.add_argument("--wrk", default=shutil.which("wrk") or "/usr/bin/wrk")
    parser.add_argument("--only", nargs="*", help="run only servers whose name has one of these")
    parser.add_argument("--rounds", type=int, default=3, help="runs per application, in turns")
    args = parser.parse_args(argv)
    if not Path(args.wrk).is_file():
        print(
            "wrk is missing: install Debian's package with `apt-get install wrk`", file=sys.stderr
        )
        return 2
    runs = measure(args)
    pinned = pinning("server")
    settings: dict[str, object] = {
        "duration": args.duration,
        "rounds": args.rounds,
        "threads": args.threads,
        "connections": args.connections,
        "pinning": "server on core 0, wrk on core 1" if pinned else "no core pinning",
        "python": platform.python_version(),
        "machine": platform.platform(),
        "cores": os.cpu_count(),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "e2e.json").write_text(
        json.dumps(
            {"settings": settings, "runs": [asdict(r) for r in runs]}, indent=1, ensure_ascii=False
        )
        + "\n",
        encoding="utf-8",
    )
    (args.out / "e2e.md").write_text(markdown(runs, settings), encoding="utf-8")
    print(f"{len(runs)} runs -> {args.out / 'e2e.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
