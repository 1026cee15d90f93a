"""The CoroutineRunner's own loop: one iteration for a coroutine that never waits.

The runner stops its loop from the coroutine's own task as the coroutine
ends, where ``run_until_complete`` stops it from a done callback one
iteration later; these tests hold the semantics it keeps while doing so.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from sansio_http.wsgi import CoroutineRunner

NAME: contextvars.ContextVar[str] = contextvars.ContextVar("name", default="none")


@pytest.fixture
def runner() -> Iterator[CoroutineRunner]:
    runner = CoroutineRunner()
    yield runner
    runner.close()


def test_a_coroutine_that_never_waits_takes_one_loop_iteration(
    runner: CoroutineRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    iterations: list[None] = []
    run_once = asyncio.BaseEventLoop._run_once  # type: ignore[attr-defined]

    def counted(loop: Any) -> None:
        iterations.append(None)
        run_once(loop)

    async def answer() -> int:
        return 42

    assert runner(answer()) == 42  # the loop is made outside the count
    monkeypatch.setattr(asyncio.BaseEventLoop, "_run_once", counted)
    assert runner(answer()) == 42
    assert len(iterations) == 1


def test_a_waiting_coroutine_returns_and_raises(runner: CoroutineRunner) -> None:
    async def waits(value: int) -> int:
        await asyncio.sleep(0)
        await asyncio.sleep(0.001)
        return value

    async def fails() -> None:
        await asyncio.sleep(0)
        raise ValueError("no")

    assert runner(waits(7)) == 7
    with pytest.raises(ValueError, match="no") as raised:
        runner(fails())
    assert raised.value.__context__ is None
    assert runner(waits(8)) == 8


def test_the_coroutine_runs_in_a_task_in_a_copy_of_the_context(runner: CoroutineRunner) -> None:
    async def inside() -> tuple[bool, str]:
        seen = NAME.get()
        NAME.set("inside")
        return asyncio.current_task() is not None, seen

    token = NAME.set("caller")
    try:
        assert runner(inside()) == (True, "caller")
        assert NAME.get() == "caller"
    finally:
        NAME.reset(token)


def test_a_coroutine_that_stops_the_loop_is_refused_and_the_loop_serves_again(
    runner: CoroutineRunner,
) -> None:
    async def stops() -> None:
        asyncio.get_running_loop().stop()
        await asyncio.sleep(60)

    async def answer() -> int:
        return 42

    with pytest.raises(RuntimeError, match="Event loop stopped before Future completed"):
        runner(stops())
    assert runner(answer()) == 42


def test_a_keyboard_interrupt_propagates_and_the_loop_serves_again(
    runner: CoroutineRunner, caplog: pytest.LogCaptureFixture
) -> None:
    async def interrupted() -> None:
        await asyncio.sleep(0)
        raise KeyboardInterrupt

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        with pytest.raises(KeyboardInterrupt):
            runner(interrupted())
        gc.collect()
    assert runner(answer()) == 42
    assert "never retrieved" not in caplog.text  # the task's exception was taken
