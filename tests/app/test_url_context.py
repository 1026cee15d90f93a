"""``url_for`` and ``current_request`` after the view: in a streamed body and in the work after it.

The body is made and the ``call_on_close`` work runs once the view has
returned, when the dispatch's context has ended; both still see the request,
its root path and its mount, under either adapter, with ``def`` and
``async def`` producers alike, one view source mounted both ways.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from typing import Literal

import pytest

from sansio_http import App, EventStream, Request, Response, current_request
from sansio_http.testing import Client

Interface = Literal["wsgi", "asgi"]
INTERFACES: list[Interface] = ["wsgi", "asgi"]
#: NOTE: every wait ends by this; none is a speed bound.
DEADLINE = 10.0


def echo_app(seen: list[str], done: threading.Event) -> App:
    app = App("echo")

    @app.get("/echo")
    def echo(request: Request) -> str:
        return "echo"

    @app.get("/sync")
    def sync_body(request: Request) -> Response:
        def produce() -> Iterator[str]:
            yield app.url_for("echo")
            yield " " + current_request.method

        response = Response(produce())
        response.call_on_close(lambda: seen.append(app.url_for("echo")))
        response.call_on_close(done.set)
        return response

    @app.get("/async")
    async def async_body(request: Request) -> Response:
        async def produce() -> AsyncIterator[str]:
            yield app.url_for("echo")
            yield " " + current_request.method

        async def after() -> None:
            seen.append(app.url_for("echo"))
            done.set()

        response = Response(produce())
        response.call_on_close(after)
        return response

    @app.get("/events")
    def events(request: Request) -> Response:
        def produce() -> Iterator[str]:
            yield app.url_for("echo")

        return EventStream(produce(), keepalive_interval=5.0)

    return app


@pytest.mark.parametrize("mounted", [False, True], ids=["alone", "mounted"])
@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("interface", INTERFACES)
def test_a_streamed_body_and_the_work_after_it_build_urls_as_the_view(
    interface: Interface, kind: str, mounted: bool
) -> None:
    seen: list[str] = []
    done = threading.Event()
    inner = echo_app(seen, done)
    if mounted:
        outer = App("outer")
        outer.mount("/in", inner)
        served, prefix = outer, "/in"
    else:
        served, prefix = inner, ""
    with Client(served, interface=interface, root_path="/site") as client:
        answer = client.get(f"/site{prefix}/{kind}")
        assert answer.status_code == 200
        assert answer.text == f"/site{prefix}/echo GET"
        assert done.wait(DEADLINE)
    assert seen == [f"/site{prefix}/echo"]


@pytest.mark.parametrize("interface", INTERFACES)
def test_an_event_stream_with_keep_alives_builds_urls_as_the_view(interface: Interface) -> None:
    # Its def producer runs on a helper thread under WSGI, in the streams
    # pool under ASGI.
    app = echo_app([], threading.Event())
    with Client(app, interface=interface, root_path="/site") as client:
        answer = client.get("/site/events")
        assert answer.status_code == 200
        assert "data: /site/echo" in answer.text
