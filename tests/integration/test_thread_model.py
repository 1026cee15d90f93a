"""A request's ``def`` steps see one thread, under real servers.

The App of :mod:`tests.integration.thread_model_app` opens a ``sqlite3``
connection and sets a ``threading.local`` in a ``def`` before_request hook,
uses both in the ``def`` view and closes the connection in a ``def``
teardown hook. Each server runs it as a subprocess on a free port of
127.0.0.1 and answers 200 requests, eight at a time: every one must answer
200 with the hook, the view and the teardown hook on one thread.

- uvicorn and the development server in ASGI mode run ``to_asgi``: the
  steps run on one thread of the App's request pool (its lane);
- gunicorn (gthread) and the development server in WSGI mode run
  ``to_wsgi``: the steps run on the server's worker thread.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.app import servers

pytestmark = pytest.mark.integration

MODULE = "tests.integration.thread_model_app"
SERVERS = ["uvicorn", "devserver-asgi", "gunicorn", "devserver-wsgi"]
REQUESTS = 200
CONCURRENCY = 8
TIMEOUT = httpx.Timeout(10.0)
#: NOTE: bounds the whole run of one server: 200 small requests take about a second.
RUN_BOUND = 60.0


@pytest.fixture(scope="module", params=SERVERS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[servers.Server]:
    name: str = request.param
    running = servers.start(name, MODULE, tmp_path_factory.mktemp(name) / "server.log")
    try:
        yield running
    finally:
        running.stop()


def one_request(client: httpx.Client) -> dict[str, Any]:
    """Ask ``/lane/`` once; return its status, its answer and its teardown's record."""
    token = uuid.uuid4().hex
    response = client.get("/lane/", params={"token": token})
    answer = response.json() if response.status_code == 200 else response.text
    # The teardown hook ran before the response was sent.
    teardown = client.get(f"/teardown/{token}").json()
    return {"status": response.status_code, "answer": answer, "teardown": teardown}


def check(outcome: dict[str, Any]) -> list[str]:
    """Return what is wrong with one request's outcome; empty if nothing."""
    if outcome["status"] != 200:
        return [f"status {outcome['status']} (the server's log says why)"]
    answer, teardown = outcome["answer"], outcome["teardown"]
    problems = []
    if answer["hook"] != answer["view"]:
        problems.append("the view ran on another thread than the before_request hook")
    if teardown.get("thread") != answer["hook"]:
        problems.append("the teardown hook ran on another thread than the before_request hook")
    if not answer["local"]:
        problems.append("the view did not see the hook's threading.local value")
    if not answer["rows"]:
        problems.append("the view did not read back its row")
    if teardown.get("closed") is not True:
        problems.append(f"closing the connection failed: {teardown.get('closed')}")
    return problems


def test_def_steps_of_a_request_share_one_thread(server: servers.Server) -> None:
    def worker(count: int) -> list[dict[str, Any]]:
        with httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
            return [one_request(client) for _ in range(count)]

    per_worker = REQUESTS // CONCURRENCY
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        futures = [pool.submit(worker, per_worker) for _ in range(CONCURRENCY)]
        outcomes = [outcome for future in futures for outcome in future.result(RUN_BOUND)]
    assert len(outcomes) == REQUESTS
    problems = Counter(problem for outcome in outcomes for problem in check(outcome))
    assert problems == Counter(), f"{dict(problems)} (log: {server.log})"
