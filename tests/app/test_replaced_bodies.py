"""Responses that another replaces: their bodies are closed once, under both adapters.

``make_conditional`` answers a 304, 412, 206 or a range-capable 200 with a
new response: it carries the original's work after the response, and closes
a streamed body it replaces. An ``after_request`` hook or a middleware's
``process_response`` that returns another response drops the one it got:
its body is closed once, and its work is dropped with it (Flask's rule).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import pytest

from sansio_http import App, Middleware, Request, Response
from sansio_http.testing import Client

Interface = Literal["wsgi", "asgi"]

#: The longest any wait of these tests lasts; none lasts it unless a test fails.
BOUND = 10.0
ETAG = '"v1"'


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


class Notes:
    """What happened, in order, noted from any thread."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self._condition = threading.Condition()

    def add(self, what: str) -> None:
        with self._condition:
            self.seen.append(what)
            self._condition.notify_all()

    def wait_for(self, *whats: str) -> list[str]:
        """Wait until every one of ``whats`` is noted; return all the notes."""
        with self._condition:
            done = self._condition.wait_for(lambda: all(what in self.seen for what in whats), BOUND)
            assert done, f"still waiting for {whats} after {BOUND} s: {self.seen}"
            return list(self.seen)


class SyncBody:
    """A streamed body that counts its closes."""

    def __init__(self, notes: Notes, name: str = "closed") -> None:
        self.notes = notes
        self.name = name

    def __iter__(self) -> Iterator[bytes]:
        yield b"streamed"

    def close(self) -> None:
        self.notes.add(self.name)


class AsyncBody:
    """An async streamed body that counts its closes."""

    def __init__(self, notes: Notes, name: str = "closed") -> None:
        self.notes = notes
        self.name = name

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        yield b"streamed"

    async def aclose(self) -> None:
        self.notes.add(self.name)


def streamed(notes: Notes, kind: str, name: str = "closed") -> SyncBody | AsyncBody:
    return SyncBody(notes, name) if kind == "sync" else AsyncBody(notes, name)


# -- make_conditional ---------------------------------------------------------------


def conditional_app(notes: Notes, body: str) -> App:
    app = App("conditional-close")

    @app.get("/")
    def view(request: Request) -> Response:
        content: Any = b"0123456789" if body == "bytes" else streamed(notes, body)
        response = Response(content, headers={"ETag": ETAG, "Content-Type": "text/plain"})
        response.call_on_close(lambda: notes.add("work 1"))
        response.call_on_close(lambda: notes.add("work 2"))
        return response.make_conditional(request)

    return app


@pytest.mark.parametrize("body", ["sync", "async"])
@pytest.mark.parametrize(
    ("headers", "status"),
    [({"if-none-match": ETAG}, 304), ({"if-match": '"other"'}, 412)],
    ids=["304", "412"],
)
def test_a_stream_a_conditional_answer_replaces_is_closed_once(
    interface: Interface, body: str, headers: dict[str, str], status: int
) -> None:
    notes = Notes()
    client = Client(conditional_app(notes, body), interface=interface)
    response = client.get("/", headers=headers)
    assert response.status_code == status
    assert response.content == b""
    seen = notes.wait_for("closed", "work 1", "work 2")
    # The body first, then the work in the order registered.
    assert seen == ["closed", "work 1", "work 2"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 200), ({"range": "bytes=0-3"}, 206), ({"if-none-match": ETAG}, 304)],
    ids=["200", "206", "304"],
)
def test_the_work_goes_with_the_conditional_answer(
    interface: Interface, headers: dict[str, str], status: int
) -> None:
    notes = Notes()
    client = Client(conditional_app(notes, "bytes"), interface=interface)
    response = client.get("/", headers=headers)
    assert response.status_code == status
    assert notes.wait_for("work 1", "work 2") == ["work 1", "work 2"]


# -- hooks that replace the response ----------------------------------------------


def hooked_app(notes: Notes, body: str, hook: str, outcome: str) -> App:
    """A view streaming ``body`` and a hook of kind ``hook`` that replaces its response."""
    app = App("replaced-close")

    @app.get("/")
    def view(request: Request) -> Response:
        response = Response(streamed(notes, body))
        response.call_on_close(lambda: notes.add("dropped work"))
        return response

    @app.errorhandler(RuntimeError)
    def failed(request: Request, error: RuntimeError) -> Response:
        return Response("handled", status=500)

    def replace(response: Response) -> Response:
        if outcome == "raises":
            raise RuntimeError("the hook failed")
        if outcome == "same body":
            # A new response that sends the body it got: the adapter closes it.
            return Response(response.body)
        replacement = Response("replaced")
        replacement.call_on_close(lambda: notes.add("kept work"))
        return replacement

    if hook == "after_request":

        @app.after_request
        def after(request: Request, response: Response) -> Response:
            return replace(response)

    elif hook == "async after_request":

        @app.after_request
        async def after_async(request: Request, response: Response) -> Response:
            return replace(response)

    else:

        class Replacing(Middleware):
            blocking = hook == "def middleware"

            def process_response(self, request: Request, response: Response) -> Response:
                return replace(response)

        app.add_middleware(Replacing())
    return app


HOOKS = ["after_request", "async after_request", "def middleware", "inline middleware"]


@pytest.mark.parametrize("body", ["sync", "async"])
@pytest.mark.parametrize("hook", HOOKS)
def test_a_body_a_hook_replaces_is_closed_once(interface: Interface, body: str, hook: str) -> None:
    notes = Notes()
    client = Client(hooked_app(notes, body, hook, "replaces"), interface=interface)
    response = client.get("/")
    assert response.text == "replaced"
    seen = notes.wait_for("closed", "kept work")
    # Flask's rule: the dropped response's work is dropped with it.
    assert seen == ["closed", "kept work"]


@pytest.mark.parametrize("body", ["sync", "async"])
@pytest.mark.parametrize("hook", HOOKS)
def test_a_body_is_closed_once_when_its_hook_raises(
    interface: Interface, body: str, hook: str
) -> None:
    notes = Notes()
    client = Client(hooked_app(notes, body, hook, "raises"), interface=interface)
    response = client.get("/")
    assert (response.status_code, response.text) == (500, "handled")
    assert notes.wait_for("closed") == ["closed"]


@pytest.mark.parametrize("body", ["sync", "async"])
@pytest.mark.parametrize("hook", HOOKS)
def test_a_body_the_new_response_sends_is_closed_once(
    interface: Interface, body: str, hook: str
) -> None:
    notes = Notes()
    client = Client(hooked_app(notes, body, hook, "same body"), interface=interface)
    assert client.get("/").text == "streamed"
    assert notes.wait_for("closed") == ["closed"]


class FailingClose(SyncBody):
    def close(self) -> None:
        super().close()
        raise RuntimeError("close failed")


class FailingAclose(AsyncBody):
    async def aclose(self) -> None:
        await super().aclose()
        raise RuntimeError("aclose failed")


def never_started(notes: Notes) -> Iterator[bytes]:
    try:
        yield b"never"
    finally:  # pragma: no cover - a generator never started runs no code
        notes.add("finally")


@pytest.mark.parametrize("kind", ["failing close", "failing aclose", "generator", "no close"])
def test_odd_bodies_a_hook_drops(
    interface: Interface, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    notes = Notes()
    app = App("odd-bodies")

    @app.get("/")
    def view(request: Request) -> Response:
        if kind == "failing close":
            return Response(FailingClose(notes))
        if kind == "failing aclose":
            return Response(FailingAclose(notes))
        if kind == "generator":
            return Response(never_started(notes))
        return Response(iter([b"no close"]))

    @app.after_request
    def keep(request: Request, response: Response) -> Response:
        return response  # the same response: nothing is dropped

    @app.after_request
    def replace(request: Request, response: Response) -> Response:
        return Response("replaced")

    client = Client(app, interface=interface)
    assert client.get("/").text == "replaced"
    if kind.startswith("failing"):
        assert notes.wait_for("closed") == ["closed"]
        assert "closing the body of a replaced response failed" in caplog.text
    else:
        assert notes.seen == []


def test_the_closers_of_make_conditional_close_once() -> None:
    import asyncio

    notes = Notes()
    for body in (AsyncBody(notes), iter([b"no close"])):
        response = Response(body, headers={"ETag": ETAG})
        request = Request("GET", "/", b"", {"if-none-match": ETAG}, "http", None, "")
        answer = response.make_conditional(request)
        assert answer.status == 304
        for func in getattr(answer, "_close_work", ()):
            for _ in range(2):
                asyncio.run(func())
    assert notes.seen == ["closed"]
