"""Blocking work under a real uvicorn: do the App's pools keep each other free?

The applications of :mod:`benchmarks.thread_model_apps` run under uvicorn,
one process each, on a free port of 127.0.0.1. Two scenarios, each run as a
plain test (``pytest benchmarks --benchmark-disable``), not as a
pytest-benchmark timing, since what they measure is wall time and the
latency of other requests, not a throughput:

- **Chat streams.** ``N_STREAMS`` clients each read a reply that a ``def``
  producer streams, three tokens a second apart, blocking its thread
  between them. With a thread per stream (``AppConfig.stream_threads``, set
  to ``N_STREAMS`` here) they all take about as long as one; meanwhile a
  static file and a ``def`` view must keep answering at once, since their pools are
  others. The same scenario runs against Starlette (a sync generator in a
  ``StreamingResponse``, ``StaticFiles``, a ``def`` endpoint, all in anyio's
  one pool of 40 threads); its figures are printed for comparison, not
  asserted.
- **Slow uploads to a mounted WSGI application.** Twice
  ``AppConfig.mount_threads`` clients send their bodies a byte at a time;
  each holds a thread of the mounts' pool while the application reads it,
  and the others wait their turn. Meanwhile a static file and a ``def`` view
  must keep answering at once, and every upload must be answered in the end.

Run with ``pytest -s`` to see the figures.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.app.servers import free_port, wait_ready

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
MODULE = "benchmarks.thread_model_apps"
TIMEOUT = 30.0
#: Concurrent chat streams: as many as the App's stream limit
#: (``thread_model_apps.STREAM_THREADS``), and under Starlette's 40 threads,
#: so that both are measured doing the same work.
N_STREAMS = 16
#: What the many streams may take, as a multiple of one stream's time: each
#: blocks its own thread, so they overlap whole.
STREAMS_RATIO = 1.1
#: NOTE: a bound on another request's latency, measured on a shared machine:
#: generous (a request on 127.0.0.1 takes about a millisecond); a regression
#: (a pool shared with the blocked work) makes it wait for a whole token
#: interval, ten times longer.
WORST_PROBE_BOUND = 0.100
PROBE_INTERVAL = 0.02
PROBES = ("/static/hello.txt", "/view")
#: Mirrors ``thread_model_apps.MOUNT_THREADS`` (that module builds the
#: applications at import, so only uvicorn imports it).
MOUNT_THREADS = 4
UPLOAD_SIZE = 10
UPLOAD_INTERVAL = 0.2


@contextlib.contextmanager
def uvicorn(attr: str, tmp_path: Path) -> Iterator[str]:
    """Run ``MODULE:attr`` under uvicorn for the block; yield its base URL."""
    static = tmp_path / "static"
    static.mkdir(exist_ok=True)
    (static / "hello.txt").write_text("hello\n")
    log = tmp_path / f"{attr}.log"
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", f"{MODULE}:{attr}", "--host", "127.0.0.1",
        "--port", str(port), "--no-access-log", "--lifespan", "on",
    ]  # fmt: skip
    env = {**os.environ, "SANSIO_BENCH_STATIC": str(static)}
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        if not wait_ready(process, port):
            pytest.fail(f"uvicorn did not start:\n{log.read_text(errors='replace')}")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(TIMEOUT)


# -- probes: other requests while the blocking work runs ---------------------------------


@dataclass
class Probes:
    """Requests for a static file and a ``def`` view, sent while others block."""

    url: str
    #: (path, start, end) of each probe, in perf_counter seconds.
    timings: list[tuple[str, float, float]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    failures: list[str] = field(default_factory=list)

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=TIMEOUT) as client:
            for path in PROBES:  # connected and warm before any is timed
                client.get(path)
            while not self.stop.is_set():
                for path in PROBES:
                    start = time.perf_counter()
                    response = client.get(path)
                    end = time.perf_counter()
                    if response.status_code != 200:
                        self.failures.append(f"{path}: {response.status_code}")
                    self.timings.append((path, start, end))
                time.sleep(PROBE_INTERVAL)

    def worst(self, path: str, began: float, ended: float) -> tuple[float, int]:
        """Return the worst latency of ``path`` among the probes sent in the window."""
        during = [
            end - start for p, start, end in self.timings if p == path and began <= start <= ended
        ]
        return max(during, default=float("inf")), len(during)


@contextlib.contextmanager
def probing(url: str) -> Iterator[Probes]:
    probes = Probes(url)
    thread = threading.Thread(target=probes.run)
    thread.start()
    try:
        yield probes
    finally:
        probes.stop.set()
        thread.join(TIMEOUT)
    assert probes.failures == []


# -- chat streams ------------------------------------------------------------------------


CHAT_REQUEST = b"GET /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def read_stream(port: int, go: Callable[[], object] = lambda: None) -> tuple[float, float, bytes]:
    """Read one chat reply over a raw socket; return when it started and ended, and its bytes.

    The connection is made before ``go()`` returns, the request sent after:
    what is timed is the server's work, not the client's connecting.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        go()
        start = time.perf_counter()
        sock.sendall(CHAT_REQUEST)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return start, time.perf_counter(), data


def is_reply(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    # The body is chunked: each token comes in a chunk of its own.
    return head.startswith(b"HTTP/1.1 200") and all(
        b"token %d\n" % index in body for index in range(3)
    )


@dataclass
class StreamFigures:
    one: float
    many: float
    worst: dict[str, float]
    counts: dict[str, int]


def measure_streams(url: str) -> StreamFigures:
    port = int(url.rpartition(":")[2])
    start, end, data = read_stream(port)
    assert is_reply(data), data
    one = end - start
    with probing(url) as probes, ThreadPoolExecutor(N_STREAMS) as pool:
        time.sleep(0.2)  # the probes' connection is warm
        go = threading.Barrier(N_STREAMS)
        results = list(
            pool.map(lambda _: read_stream(port, lambda: go.wait(TIMEOUT)), range(N_STREAMS))
        )
    began = min(start for start, _, _ in results)
    ended = max(end for _, end, _ in results)
    assert all(is_reply(data) for _, _, data in results)
    worst, counts = {}, {}
    for path in PROBES:
        # Probes sent once every stream was under way, until the last ended.
        worst[path], counts[path] = probes.worst(path, began + 0.1, ended)
    return StreamFigures(one, ended - began, worst, counts)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


@pytest.mark.parametrize("attr", ["ours", "starlette_app"])
def test_chat_streams_leave_static_files_and_views_answered(
    attr: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with uvicorn(attr, tmp_path) as url:
        figures = measure_streams(url)
        if attr == "ours" and not streams_pass(figures):
            # NOTE: a shared machine can stall any process for a moment; a
            # real regression (streams waiting for threads, a probe waiting
            # behind them) misses the bounds by a token interval every time.
            figures = measure_streams(url)
    with capsys.disabled():
        print(
            f"\n{attr}: one stream {figures.one:.2f} s, {N_STREAMS} streams "
            f"{figures.many:.2f} s ({figures.many / figures.one:.2f}x); worst during them: "
            + ", ".join(
                f"{path} {_ms(figures.worst[path])} ({figures.counts[path]} probes)"
                for path in PROBES
            )
        )
    if attr == "ours":
        assert figures.many <= STREAMS_RATIO * figures.one, (
            f"{N_STREAMS} streams took {figures.many:.2f} s, one {figures.one:.2f} s"
        )
        for path in PROBES:
            assert figures.counts[path] >= 5, f"only {figures.counts[path]} probes of {path}"
            assert figures.worst[path] < WORST_PROBE_BOUND, (
                f"{path} took {_ms(figures.worst[path])} during the streams"
            )


def streams_pass(figures: StreamFigures) -> bool:
    return figures.many <= STREAMS_RATIO * figures.one and all(
        figures.worst[path] < WORST_PROBE_BOUND for path in PROBES
    )


# -- slow uploads to a mounted WSGI application ----------------------------------------


def slow_upload(port: int, started: Callable[[], object]) -> tuple[float, bytes]:
    """Send a body a byte at a time to the mounted application; return when and its answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(
            b"POST /upload/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\n\r\n" % UPLOAD_SIZE
        )
        started()
        for _ in range(UPLOAD_SIZE):
            sock.sendall(b"x")
            time.sleep(UPLOAD_INTERVAL)
        sent = time.perf_counter()
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return sent, data


def test_slow_uploads_to_a_mounted_wsgi_app_leave_the_app_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clients = 2 * MOUNT_THREADS
    with uvicorn("ours", tmp_path) as url:
        port = int(url.rpartition(":")[2])
        with probing(url) as probes, ThreadPoolExecutor(clients) as pool:
            time.sleep(0.2)  # the probes' connection is warm
            all_started = threading.Barrier(clients + 1)
            uploads = [
                pool.submit(slow_upload, port, lambda: all_started.wait(TIMEOUT))
                for _ in range(clients)
            ]
            all_started.wait(TIMEOUT)
            began = time.perf_counter()
            answers = [upload.result(TIMEOUT) for upload in uploads]
        # The window: from every upload under way until the first one was sent
        # whole, while every thread of the mounts' pool was held.
        ended = min(sent for sent, _ in answers)
        worst = {path: probes.worst(path, began, ended) for path in PROBES}
    with capsys.disabled():
        print(
            f"\nours: {clients} slow uploads to a mounted WSGI app with "
            f"mount_threads={MOUNT_THREADS}; worst during them: "
            + ", ".join(f"{path} {_ms(w)} ({count} probes)" for path, (w, count) in worst.items())
        )
    for _, data in answers:
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        assert body == str(UPLOAD_SIZE).encode()
    for path, (latency, count) in worst.items():
        assert count >= 5, f"only {count} probes of {path}"
        assert latency < WORST_PROBE_BOUND, f"{path} took {_ms(latency)} during the uploads"
