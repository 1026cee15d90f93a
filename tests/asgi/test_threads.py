"""The App's thread pools and lanes (``sansio_http.asgi._threads``), one at a time.

Every wait on another thread is bounded by ``DEADLINE``; no test relies on
the scheduler's timing.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sansio_http.asgi import ThreadPool, ThreadPools
from sansio_http.asgi._threads import Lane

DEADLINE = 10.0


@pytest.fixture
def pool() -> Iterator[ThreadPool]:
    made = ThreadPool(2, "test-pool")
    yield made
    made.shutdown(wait=True)


def test_a_pool_needs_a_thread() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ThreadPool(0)


def test_threads_start_as_calls_come_and_never_past_the_bound(pool: ThreadPool) -> None:
    assert not pool._workers
    gate = threading.Event()
    running: list[int] = []

    def wait() -> int:
        running.append(threading.get_ident())
        if not gate.wait(DEADLINE):
            raise TimeoutError("never released")
        return threading.get_ident()

    async def main() -> list[int]:
        calls = [asyncio.ensure_future(pool(wait)) for _ in range(5)]
        deadline = asyncio.get_running_loop().time() + DEADLINE
        while len(running) < 2:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.001)
        # Two threads at most: the other three calls wait their turn.
        assert len(pool._workers) == 2
        gate.set()
        return list(await asyncio.gather(*calls))

    threads = asyncio.run(main())
    assert len(set(threads)) <= 2
    assert "2 of 2 threads" in repr(pool)


def test_calls_past_the_bound_run_in_order_of_arrival() -> None:
    pool = ThreadPool(1)
    order: list[int] = []
    gate = threading.Event()

    def first() -> None:
        if not gate.wait(DEADLINE):
            raise TimeoutError("never released")

    async def main() -> None:
        blocker = asyncio.ensure_future(pool(first))
        calls = [asyncio.ensure_future(pool(order.append, number)) for number in range(10)]
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(blocker, *calls)

    try:
        asyncio.run(main())
    finally:
        pool.shutdown(wait=True)
    assert order == list(range(10))


def test_submit_returns_the_result_and_raises_the_error(pool: ThreadPool) -> None:
    def stop() -> None:
        raise StopIteration

    async def main() -> None:
        assert await pool.submit(sum, [1, 2, 3]) == 6
        with pytest.raises(ZeroDivisionError):
            await pool.submit(divmod, 1, 0)
        # A future cannot hold StopIteration: it becomes a RuntimeError.
        with pytest.raises(RuntimeError, match="StopIteration"):
            await pool.submit(stop)

    asyncio.run(main())


def test_a_pool_shut_down_starts_new_threads_when_used_again(pool: ThreadPool) -> None:
    async def ident() -> int:
        result: int = await pool(threading.get_ident)
        return result

    first = asyncio.run(ident())
    pool.shutdown(wait=True)
    assert not pool._workers
    assert asyncio.run(ident()) != 0
    assert len(pool._workers) == 1
    del first


def held(value: Any) -> tuple[bool, Any]:
    return True, (threading.get_ident(), value)


def let_go(value: Any) -> tuple[bool, Any]:
    return False, (threading.get_ident(), value)


def test_a_lane_runs_every_call_on_one_thread_until_released(pool: ThreadPool) -> None:
    async def main() -> set[int]:
        lane = pool.lane()
        seen = set()
        for number in range(5):
            thread, value = await lane.call(held, number)
            assert value == number
            assert lane.held
            seen.add(thread)
            # Another call meanwhile goes to another thread of the pool.
            assert await pool(threading.get_ident) != thread
        lane.release()
        assert not lane.held
        return seen

    assert len(asyncio.run(main())) == 1


def test_a_lane_call_that_does_not_hold_lets_the_thread_go() -> None:
    pool = ThreadPool(1)

    async def main() -> None:
        lane = pool.lane()
        thread, _ = await lane.call(let_go, None)
        # The only thread is free again: a plain call gets it.
        assert await asyncio.wait_for(pool(threading.get_ident), DEADLINE) == thread

    try:
        asyncio.run(main())
    finally:
        pool.shutdown(wait=True)


def test_a_cancelled_lane_call_returns_only_once_its_thread_is_done(pool: ThreadPool) -> None:
    started, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def slow() -> tuple[bool, None]:
        started.set()
        if not release.wait(DEADLINE):
            raise TimeoutError("never released")
        finished.append("slow")
        return True, None

    async def main() -> None:
        lane: Lane = pool.lane()
        call = asyncio.ensure_future(lane.call(slow))
        while not started.is_set():
            await asyncio.sleep(0.001)
        call.cancel()
        await asyncio.sleep(0)
        # Cancelled twice, it still waits for the thread.
        call.cancel()
        await asyncio.sleep(0.01)
        assert not call.done()
        assert not finished
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(call, DEADLINE)
        assert finished == ["slow"]
        # The lane kept its thread: its next call runs there.
        thread, _ = await lane.call(held, None)
        lane.release()
        assert thread in {worker.ident for worker in pool._workers}

    asyncio.run(main())


def test_a_lane_call_cancelled_before_a_thread_took_it_never_runs() -> None:
    pool = ThreadPool(1)
    gate = threading.Event()
    ran: list[str] = []

    def block() -> None:
        if not gate.wait(DEADLINE):
            raise TimeoutError("never released")

    def never() -> tuple[bool, None]:
        ran.append("never")
        return False, None

    async def main() -> None:
        blocker = asyncio.ensure_future(pool(block))
        lane = pool.lane()
        call = asyncio.ensure_future(lane.call(never))
        await asyncio.sleep(0)
        call.cancel()
        await asyncio.sleep(0)
        gate.set()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(call, DEADLINE)
        await blocker
        # The thread that skipped the call stays with the lane for its next one.
        _, value = await lane.call(held, "next")
        assert value == "next"
        lane.release()

    try:
        asyncio.run(main())
    finally:
        pool.shutdown(wait=True)
    assert ran == []


def test_the_pools_of_an_app_are_four_and_bounded_apart() -> None:
    pools = ThreadPools(threads=1, io_threads=2, stream_threads=3, mount_threads=4)
    assert [pools.requests.size, pools.io.size, pools.streams.size, pools.mounts.size] == [
        1,
        2,
        3,
        4,
    ]
    gate = threading.Event()

    def block() -> None:
        if not gate.wait(DEADLINE):
            raise TimeoutError("never released")

    async def main() -> None:
        # The only request thread is taken; the other pools still answer.
        blocked = asyncio.ensure_future(pools.requests(block))
        await asyncio.sleep(0)
        for other in (pools.io, pools.streams, pools.mounts):
            assert await asyncio.wait_for(other(threading.get_ident), DEADLINE)
        gate.set()
        await blocked

    try:
        asyncio.run(main())
    finally:
        pools.shutdown(wait=True)


@pytest.mark.parametrize("size", [0, -1, 2.5, "4", None, True])
def test_a_pool_refuses_a_size_that_is_not_a_whole_number_of_threads(size: Any) -> None:
    with pytest.raises(ValueError, match="whole number of threads"):
        ThreadPool(size)


def test_asgi_app_refuses_threads_that_are_not_pools() -> None:
    from sansio_http.asgi import asgi_app

    async def handler(request: Any) -> Any:
        raise AssertionError("never called")

    with pytest.raises(TypeError, match=r"threads=ThreadPools\(threads=\.\.\.\)"):
        asgi_app(handler, threads=8)  # type: ignore[arg-type]


# -- an eager pool's threads wait on a pipe ----------------------------------------------

needs_pipes = pytest.mark.skipif(
    sys.platform == "win32", reason="eager pools wait on a pipe on POSIX only"
)


def open_fds() -> set[str]:
    return set(os.listdir(f"/proc/{os.getpid()}/fd"))


@needs_pipes
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_an_eager_pool_closes_its_pipe_once_its_threads_ended() -> None:
    before = open_fds()
    pool = ThreadPool(3, eager=True)
    assert asyncio.run(pool(sum, [1, 2])) == 3
    assert len(open_fds() - before) == 2  # the pipe's two ends
    pool.shutdown(wait=True)
    gc.collect()
    assert open_fds() - before == set()
    # Used again, it makes a new pipe for its new threads.
    assert asyncio.run(pool(sum, [2, 3])) == 5
    pool.shutdown(wait=True)
    gc.collect()
    assert open_fds() - before == set()


@needs_pipes
def test_an_eager_pool_runs_every_call_from_several_loops_at_once() -> None:
    pool = ThreadPool(2, eager=True)
    results: list[list[int]] = []

    async def calls(base: int) -> list[int]:
        return list(await asyncio.gather(*(pool(abs, -(base + n)) for n in range(200))))

    def run(base: int) -> None:
        results.append(asyncio.run(calls(base)))

    loops = [threading.Thread(target=run, args=(base,)) for base in (0, 1000, 2000)]
    try:
        for thread in loops:
            thread.start()
        for thread in loops:
            thread.join(DEADLINE)
            assert not thread.is_alive(), "a call was never run"
    finally:
        pool.shutdown(wait=True)
    assert sorted(results) == [[base + n for n in range(200)] for base in (0, 1000, 2000)]


@needs_pipes
def test_an_eager_pool_takes_calls_past_what_its_pipe_holds() -> None:
    # With the one thread held, each call writes a byte no thread reads: past
    # the pipe's 64 KiB the writes are dropped, never blocking the loop, and
    # every call still runs once the thread is free.
    pool = ThreadPool(1, eager=True)
    gate = threading.Event()
    count = 70_000

    def first() -> None:
        if not gate.wait(DEADLINE):
            raise TimeoutError("never released")

    async def main() -> int:
        blocker = asyncio.ensure_future(pool(first))
        await asyncio.sleep(0)
        calls = [pool.submit(int, 1) for _ in range(count)]
        gate.set()
        await blocker
        return sum(await asyncio.gather(*calls))

    try:
        assert asyncio.run(main()) == count
    finally:
        pool.shutdown(wait=True)


@pytest.mark.parametrize("eager", [False, True], ids=["lazy", "eager"])
def test_a_pool_nothing_refers_to_stops_its_threads(eager: bool) -> None:
    # An App mounted without a lifespan (as in a test) and dropped: its pool's
    # threads would otherwise wait for calls for the life of the process.
    pool = ThreadPool(3, "dropped-pool", eager=eager)
    assert asyncio.run(pool(sum, [1, 2])) == 3
    threads = [t for t in threading.enumerate() if t.name.startswith("dropped-pool-")]
    assert len(threads) == (3 if eager else 1)
    del pool
    gc.collect()
    for thread in threads:
        thread.join(DEADLINE)
        assert not thread.is_alive(), f"{thread.name} still waits for calls"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("eager", [False, True], ids=["lazy", "eager"])
def test_a_pool_used_before_a_fork_runs_calls_in_the_child(eager: bool) -> None:
    # A server that forks its workers after the pool started (a preloaded
    # App): the child has none of the parent's threads and must start its own.
    pool = ThreadPool(2, "forked-pool", eager=eager)
    try:
        assert asyncio.run(pool(sum, [1, 2])) == 3
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child reports through its exit status
            try:
                ok = asyncio.run(asyncio.wait_for(pool(sum, [2, 3]), DEADLINE)) == 5
            except BaseException:
                ok = False
            os._exit(0 if ok else 1)
        deadline = time.monotonic() + 2 * DEADLINE
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("the child never finished its call")
            time.sleep(0.01)
        assert os.waitstatus_to_exitcode(status) == 0, "the child's call did not run"
        # The parent's pool is untouched.
        assert asyncio.run(pool(sum, [3, 4])) == 7
    finally:
        pool.shutdown(wait=True)
