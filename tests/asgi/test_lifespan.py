from __future__ import annotations

from typing import Any

import pytest

from sansio_http.asgi import ASGIRequest, asgi_app
from sansio_http.messages._response import Response
from tests.asgi.checker import lifespan, request, run


async def echo_state(req: ASGIRequest) -> Response:
    return Response(repr(sorted(req.state.items())))


def test_hooks_run_and_requests_see_the_state() -> None:
    calls: list[str] = []

    async def connect(state: dict[str, Any]) -> None:
        calls.append("connect")
        state["db"] = "pool"

    def configure(state: dict[str, Any]) -> None:
        calls.append("configure")
        state["debug"] = False

    def disconnect(state: dict[str, Any]) -> None:
        calls.append(f"disconnect {state['db']}")

    app = asgi_app(echo_state, on_startup=[connect, configure], on_shutdown=[disconnect])
    server_state: dict[str, Any] = {}

    async def main() -> tuple[list[Any], bytes]:
        answers = await lifespan(app, state=server_state)
        # The server copies the lifespan state into each request's scope.
        result = await request(app, state=dict(server_state))
        return [a["type"] for a in answers], result.body

    types, body = run(main())
    assert types == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert body == b"[('db', 'pool'), ('debug', False)]"
    assert calls == ["connect", "configure", "disconnect pool"]


def test_the_app_keeps_the_state_for_a_server_without_one() -> None:
    async def remember(state: dict[str, Any]) -> None:
        state["db"] = "own"

    app = asgi_app(echo_state, on_startup=[remember])

    async def main() -> bytes:
        await lifespan(app)
        return (await request(app)).body

    assert run(main()) == b"[('db', 'own')]"


def test_a_failing_startup_reports_its_message(adapter_log: pytest.LogCaptureFixture) -> None:
    after: list[str] = []

    def broken(state: dict[str, Any]) -> None:
        raise ConnectionError("database unreachable")

    app = asgi_app(echo_state, on_startup=[broken, lambda state: after.append("ran")])
    answers = run(lifespan(app))
    assert answers == [
        {"type": "lifespan.startup.failed", "message": "ConnectionError: database unreachable"}
    ]
    assert after == []
    assert "database unreachable" in adapter_log.text


def test_every_shutdown_hook_runs_even_after_a_failure() -> None:
    ran: list[str] = []

    def first(state: dict[str, Any]) -> None:
        raise OSError("flush failed")

    app = asgi_app(echo_state, on_shutdown=[first, lambda state: ran.append("second")])
    answers = run(lifespan(app))
    assert answers[-1] == {"type": "lifespan.shutdown.failed", "message": "OSError: flush failed"}
    assert ran == ["second"]


def test_an_unknown_scope_type_is_refused() -> None:
    app = asgi_app(echo_state)

    async def receive() -> Any:
        raise AssertionError("unreachable")

    async def send(message: Any) -> None:
        raise AssertionError("unreachable")

    with pytest.raises(ValueError, match="unknown ASGI scope type"):
        run(app({"type": "future"}, receive, send))


def test_unknown_lifespan_messages_are_ignored() -> None:
    incoming: list[dict[str, Any]] = [
        {"type": "lifespan.future"},
        {"type": "lifespan.startup"},
        {"type": "lifespan.shutdown"},
    ]
    sent: list[str] = []

    async def receive() -> Any:
        return incoming.pop(0)

    async def send(message: Any) -> None:
        sent.append(message["type"])

    run(asgi_app(echo_state)({"type": "lifespan"}, receive, send))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
