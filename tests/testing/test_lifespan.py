from __future__ import annotations

from typing import Any

import pytest

from sansio_http.asgi._types import Receive, Scope, Send
from sansio_http.testing import Client, LifespanError
from tests.asgi.checker import Checker


def lifespan_app(events: list[str], *, fail: str | None = None, crash: str | None = None) -> Any:
    """An ASGI app whose lifespan records its phases and can fail or crash."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                phase = message["type"].rpartition(".")[2]
                events.append(phase)
                if phase == "startup":
                    scope["state"]["pool"] = "connected"
                if crash == phase:
                    raise RuntimeError(f"{phase} crashed")
                if fail == phase:
                    await send({"type": f"{message['type']}.failed", "message": "no database"})
                else:
                    await send({"type": f"{message['type']}.complete"})
                if phase == "shutdown" or fail == phase:
                    return
        await receive()
        body = scope.get("state", {}).get("pool", "none").encode()
        events.append("request")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    return app


def test_startup_and_shutdown_surround_the_requests() -> None:
    events: list[str] = []
    checker = Checker(lifespan_app(events))
    with Client(checker) as client:
        assert events == ["startup"]
        # The lifespan state reaches each request's scope as a copy.
        assert client.get("/").text == "connected"
        assert client.get("/").text == "connected"
    assert events == ["startup", "request", "request", "shutdown"]
    assert checker.violations == []


def test_without_with_there_is_no_lifespan() -> None:
    events: list[str] = []
    client = Client(Checker(lifespan_app(events)))
    assert client.get("/").text == "none"
    assert events == ["request"]


def test_startup_failure_is_raised() -> None:
    events: list[str] = []
    with (
        pytest.raises(LifespanError, match="no database"),
        Client(Checker(lifespan_app(events, fail="startup"))),
    ):
        pass  # pragma: no cover (the startup fails)
    assert events == ["startup"]


def test_startup_crash_is_reraised() -> None:
    client = Client(lifespan_app([], crash="startup"))
    with pytest.raises(RuntimeError, match="startup crashed"), client:
        pass  # pragma: no cover (the startup fails)
    # The client can be opened again once the failure is fixed.
    assert client._loop is None


def test_shutdown_failure_is_raised() -> None:
    events: list[str] = []
    client = Client(Checker(lifespan_app(events, fail="shutdown")))
    with pytest.raises(LifespanError, match="no database"), client:
        client.get("/")
    assert events == ["startup", "request", "shutdown"]


def test_shutdown_crash_is_reraised() -> None:
    with (
        pytest.raises(RuntimeError, match="shutdown crashed"),
        Client(lifespan_app([], crash="shutdown")),
    ):
        pass


async def http_only(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        raise ValueError("unsupported scope")
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def returns_at_once(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await http_only(scope, receive, send)


@pytest.mark.parametrize("app", [http_only, returns_at_once])
def test_applications_without_lifespan_still_run(app: Any) -> None:
    # ASGI lifespan spec: raising (or returning) before taking the startup
    # message means "not supported", and the server goes on.
    with Client(app) as client:
        assert client.get("/").status_code == 204


async def silent(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()


def test_lifespan_returning_without_an_answer_is_an_error() -> None:
    with pytest.raises(LifespanError, match="without answering"), Client(silent):
        pass  # pragma: no cover (the startup fails)


def test_a_client_opens_once_and_wsgi_has_no_lifespan() -> None:
    client = Client(lifespan_app([]))
    with client, pytest.raises(RuntimeError, match="already open"):
        client.__enter__()

    def wsgi(environ: Any, start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    with Client(wsgi) as client:
        assert client.get("/").text == "ok"


def test_the_client_refuses_to_run_inside_an_event_loop() -> None:
    import asyncio

    async def main() -> None:
        Client(http_only).get("/")

    with pytest.raises(RuntimeError, match="synchronous"):
        asyncio.run(main())
