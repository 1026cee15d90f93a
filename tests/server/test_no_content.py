"""The development server sends no content after a 204, a 304 or a HEAD answer.

Whatever the application sends (these are applications written against WSGI
and ASGI directly, not through the adapters, which send nothing), the server
drops content it must not send (RFC 9110 §9.3.2, §15.3.5, §15.4.5) and the
framing fields a 1xx or 204 must not carry (§8.6), instead of breaking the
connection: the next request on it gets its answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

import pytest

from tests.integration.keepalive import ask_in_turn
from tests.server.conftest import serving

StartResponse = Callable[..., Any]
Scope = MutableMapping[str, Any]


class Body:
    """A WSGI iterable that counts its close() calls."""

    closed = 0

    def __iter__(self) -> Iterator[bytes]:
        yield b"te"
        yield b"st"

    def close(self) -> None:
        Body.closed += 1


def status_of(path: str) -> int:
    return int(path.strip("/") or "200")


def wsgi(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    """Answer ``/<status>`` with four bytes and their Content-Length, whatever the status."""
    status = status_of(environ["PATH_INFO"])
    start_response(f"{status} X", [("Content-Length", "4"), ("Content-Type", "text/plain")])
    return Body()


async def asgi(scope: Scope, receive: Callable[..., Any], send: Callable[..., Any]) -> None:
    """The same, with the content in two body messages."""
    if scope["type"] != "http":
        raise ValueError("only http")
    status = status_of(scope["path"])
    headers = [(b"content-length", b"4"), (b"content-type", b"text/plain")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"te", "more_body": True})
    await send({"type": "http.response.body", "body": b"st"})


APPS = {"wsgi": wsgi, "asgi": asgi}


@pytest.fixture(params=list(APPS))
def app(request: pytest.FixtureRequest) -> Any:
    return APPS[request.param]


@pytest.mark.parametrize("status", [204, 304])
def test_content_after_a_no_content_head_is_dropped(app: Any, status: int) -> None:
    with serving(app) as running:
        first, second = ask_in_turn(running.port, ("GET", f"/{status}"), ("GET", "/200"))
    assert (first.status, first.body) == (status, b"")
    assert (second.status, second.body) == (200, b"test")


def test_a_204_loses_its_content_length(app: Any) -> None:
    # RFC 9110 §8.6: a server must not send one in a 204.
    with serving(app) as running:
        [answer] = ask_in_turn(running.port, ("GET", "/204"))
    assert b"content-length" not in answer.headers


def test_a_304_keeps_its_content_length(app: Any) -> None:
    # RFC 9110 §8.6 allows it (the length of the 200 the 304 stands for);
    # the application is trusted to know it.
    with serving(app) as running:
        [answer] = ask_in_turn(running.port, ("GET", "/304"))
    assert answer.headers[b"content-length"] == b"4"


def test_a_head_answer_keeps_its_length_and_the_connection(app: Any) -> None:
    with serving(app) as running:
        first, second = ask_in_turn(running.port, ("HEAD", "/200"), ("GET", "/200"))
    assert (first.status, first.body, first.headers[b"content-length"]) == (200, b"", b"4")
    assert (second.status, second.body) == (200, b"test")


def test_the_wsgi_iterable_is_closed_once() -> None:
    Body.closed = 0
    with serving(wsgi) as running:
        ask_in_turn(running.port, ("GET", "/204"), ("GET", "/304"))
    assert Body.closed == 2


def test_dropped_content_is_logged_and_not_counted(
    app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sansio_http.server")
    with serving(app, access_log=True) as running:
        ask_in_turn(running.port, ("GET", "/204"), ("HEAD", "/200"))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    # Once per response, and not for HEAD, where dropping is the rule.
    assert len(warnings) == 1
    assert "content with a 204 response" in warnings[0]
    access = [r.getMessage() for r in caplog.records if r.name.endswith("access")]
    assert [line.rsplit(" ", 2)[1:] for line in access] == [["204", "0"], ["200", "0"]]


@pytest.mark.parametrize("status", [100, 103])
def test_a_1xx_as_the_final_answer_is_a_500(app: Any, status: int) -> None:
    # HTTP/1.1 has no final 1xx: a client would take it for an interim one
    # and wait. Nothing went out yet, so the server can still answer 500.
    with serving(app) as running:
        first, second = ask_in_turn(running.port, ("GET", f"/{status}"), ("GET", "/200"))
    assert first.status == 500
    assert (second.status, second.body) == (200, b"test")
