"""The threads an App owns under ASGI: bounded pools, one per kind of blocking work.

Blocking work never runs on the event loop, and never on the loop's default
executor, which the server sizes (cpu count + 4) and which anything in the
process may fill. Each App gets a :class:`ThreadPools`: one
:class:`ThreadPool` for each kind of work, bounded apart, so that no kind
can take the threads another needs:

- ``requests``: ``def`` views, hooks, error handlers and teardown hooks,
  and the plain functions of ``Response.call_on_close``. One request's
  ``def`` steps run on one thread of it, through a :class:`Lane`;
- ``io``: reading files for file bodies, writing uploads to their spool,
  closing them;
- ``streams``: each ``next()`` and the ``close()`` of a ``def`` producer,
  which may wait long between items;
- ``mounts``: mounted WSGI applications, one thread for each exchange.

A pool starts its threads as work arrives, up to its bound (the request
pool all of them at its first call); past it, calls wait their turn in order
of arrival. A call is one tuple put on a queue and
one ``call_soon_threadsafe`` back to the loop (PERF: no
``concurrent.futures.Future`` with its locks, and no second future chained
to it as ``run_in_executor`` makes).

PERF: the threads of the request pool wait for calls on a pipe rather than
on the queue's lock. A byte written to a pipe is a wake-up that tells the
kernel the writer is about to sleep (the event loop waits next), so the
woken thread may take the loop's CPU instead of waking an idle one: a
``def`` view's hand-off costs measurably less (``make bench-check``'s
``asgi-sync-view`` row). A thread always empties the queue before it waits
on the pipe, so a byte is a hint, never the only record of a call.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import queue
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final, TypeVar

__all__ = ["DEFAULT_POOLS", "Lane", "ThreadPool", "ThreadPools"]

T = TypeVar("T")


class _Job:
    """One call for a thread of a pool, and where its outcome goes."""

    __slots__ = ("call", "done", "future", "lane", "loop", "waiter")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        future: asyncio.Future[Any],
        call: Callable[[], Any],
        lane: Lane | None,
    ) -> None:
        self.loop = loop
        self.future = future
        self.call = call
        self.lane = lane
        #: Set on the loop once the thread is done with the call (or skipped it).
        self.done = False
        #: A future that someone waits on for ``done`` after a cancellation.
        self.waiter: asyncio.Future[None] | None = None


class _Wake:
    """A pipe on which the threads of an eager pool wait for calls (POSIX).

    Each call put on the pool's queue writes a byte; a waiting thread reads
    one and then takes every call it finds on the queue. The pipe is closed
    when nothing holds it any more: the pool let it go at shutdown and
    every thread that waited on it has ended.
    """

    __slots__ = ("_read", "_write")

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        # NOTE: a full pipe means thousands of wake-ups are pending already.
        os.set_blocking(self._write, False)

    def __del__(self) -> None:
        for fd in (getattr(self, "_read", None), getattr(self, "_write", None)):
            if fd is not None:
                os.close(fd)

    def notify(self, count: int = 1) -> None:
        """Wake up to ``count`` waiting threads."""
        try:
            os.write(self._write, b"\0" * count)
        except BlockingIOError:
            pass

    def wait(self) -> None:
        """Wait until a call may be on the queue."""
        os.read(self._read, 1)


#: Whether pipes can wake the threads of eager pools (os.set_blocking on a
#: pipe needs POSIX before Python 3.12).
_PIPES: Final = sys.platform != "win32"


class ThreadPool:
    """A bounded pool of threads that run blocking calls for event loops.

    Args:
        size: The most threads it runs; calls past them wait in order.
        name: The prefix of its threads' names.
        eager: Start all ``size`` threads at the first call, rather than one
            at a time as calls find no thread free.

    Raises:
        ValueError: ``size`` is not a whole number of at least 1.
    """

    def __init__(self, size: int, name: str = "sansio-http", *, eager: bool = False) -> None:
        if type(size) is not int or size < 1:
            raise ValueError(
                f"a thread pool needs a whole number of threads, at least 1, not {size!r}"
            )
        self.size = size
        self.name = name
        self.eager = eager
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._workers: list[threading.Thread] = []
        # A token for each thread waiting for a job that no call has claimed
        # yet. PERF: a queue's put and get_nowait are atomic without a lock.
        self._idle: queue.SimpleQueue[None] = queue.SimpleQueue()
        # The pipe of an eager pool's threads, once they started.
        self._wake: _Wake | None = None
        # NOTE: guards starting threads; a pool may serve the event loops of
        # several threads (an App mounted in several servers, a test client).
        self._lock = threading.Lock()
        _POOLS.add(self)

    def __repr__(self) -> str:
        return f"<ThreadPool {self.name!r}: {len(self._workers)} of {self.size} threads>"

    async def __call__(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Run ``func(*args, **kwargs)`` in a thread, in a copy of the context.

        This is the ``thread_runner`` the App's ``ensure_async`` calls.
        """
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
        self._put(_Job(loop, future, call, None))
        return await future

    def submit(self, func: Callable[..., T], /, *args: Any) -> asyncio.Future[T]:
        """Start ``func(*args)`` in a thread; return the future of its result.

        Must be called on the running loop, as ``loop.run_in_executor``. The
        context is not copied: this is for the adapter's own file and
        stream work. Cancelling the future before a thread takes the call
        skips it; a call already running runs to its end (a thread cannot
        be interrupted): wait for it through ``asyncio.shield``.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._put(_Job(loop, future, functools.partial(func, *args), None))
        return future

    def lane(self) -> Lane:
        """Return a new :class:`Lane`: calls that share one thread of this pool."""
        return Lane(self)

    def _put(self, job: _Job) -> None:
        wake = self._wake
        if wake is None:
            try:
                self._idle.get_nowait()  # a waiting thread will take it
            except queue.Empty:
                self._start()
                wake = self._wake
        self._jobs.put(job)
        if wake is not None:
            wake.notify()

    def _start(self) -> None:
        """Start a thread for a call that finds none waiting, if the bound allows."""
        with self._lock:
            if len(self._workers) < self.size:
                # All at once when eager: the others wait for the next calls.
                count = self.size - len(self._workers) if self.eager else 1
                wake: _Wake | None = None
                if self.eager and _PIPES:
                    wake = _Wake()
                else:
                    for _ in range(count - 1):
                        self._idle.put(None)
                for _ in range(count):
                    worker = threading.Thread(
                        target=_serve,
                        args=(self._jobs, self._idle, wake),
                        name=f"{self.name}-{len(self._workers)}",
                        # NOTE: daemon threads, so that a server that never runs
                        # the lifespan shutdown still exits; shutdown() stops them.
                        daemon=True,
                    )
                    self._workers.append(worker)
                    worker.start()
                self._wake = wake

    def __del__(self) -> None:
        # NOTE: a pool nothing refers to any more (an App that was mounted
        # without a lifespan, as in tests, and dropped) stops its threads,
        # which would otherwise wait for calls forever; no thread refers to
        # its pool, only to its queues.
        if getattr(self, "_workers", None):
            self.shutdown()

    def _forget_threads(self) -> None:
        """Start afresh in a forked child, where none of the pool's threads exist.

        The queues may hold the parent's calls and the lock may have been
        held when the process forked; the pipe is the parent's too.
        """
        self._workers = []
        self._jobs = queue.SimpleQueue()
        self._idle = queue.SimpleQueue()
        self._wake = None
        self._lock = threading.Lock()

    def shutdown(self, wait: bool = False) -> None:
        """Let running and waiting calls finish, then stop the threads.

        A pool used again after this starts new threads.

        Args:
            wait: Whether to wait until the threads have stopped.
        """
        with self._lock:
            workers, self._workers = self._workers, []
            jobs, self._jobs = self._jobs, queue.SimpleQueue()
            self._idle = queue.SimpleQueue()
            wake, self._wake = self._wake, None
        for _ in workers:
            jobs.put(None)
        if wake is not None:
            wake.notify(len(workers))
            del wake  # NOTE: the threads close the pipe as they end
        if wait:
            for worker in workers:
                worker.join()


#: Every pool of the process, for the reset after a fork.
_POOLS: Final[weakref.WeakSet[ThreadPool]] = weakref.WeakSet()


def _after_fork() -> None:
    for pool in list(_POOLS):
        pool._forget_threads()


if hasattr(os, "register_at_fork"):
    # NOTE: a server that forks its workers after the App was used (a pool
    # started at import or in a preloaded lifespan) gives each child a pool
    # that starts threads of its own.
    os.register_at_fork(after_in_child=_after_fork)


def _serve(
    jobs: queue.SimpleQueue[_Job | None], idle: queue.SimpleQueue[None], wake: _Wake | None
) -> None:
    """Run a pool's jobs until a None; stay with a lane while it holds the thread.

    Without ``wake``, the thread waits on ``jobs`` and ``idle`` gets a token
    each time it does. With it (an eager pool), the thread takes jobs while
    there are any and waits on the pipe between them. The queues and the
    pipe are the pool's when the thread started: a thread of a pool shut
    down since ends with the jobs it was given.
    """
    run = _run
    while True:
        if wake is None:
            job = jobs.get()
        else:
            try:
                job = jobs.get_nowait()
            except queue.Empty:
                wake.wait()
                continue
        if job is None:
            return
        lane = job.lane
        if run(job) and lane is not None:
            # The lane keeps this thread until it lets go (release()).
            private = lane._queue
            while private is not None and (next_job := private.get()) is not None:
                hold = run(next_job)
                del next_job
                if not hold:
                    lane._queue = None
                    break
        del job, lane  # NOTE: drop the call's arguments before waiting again
        if wake is None:
            idle.put(None)


def _run(job: _Job) -> bool:
    """Run a job's call in this thread and hand its outcome to its loop.

    Returns whether the thread stays with the job's lane: a lane call
    returns ``(hold, value)``, and ``hold`` False (or an error) ends it.
    """
    error: BaseException | None = None
    result: Any = None
    hold = False
    if job.future.cancelled():
        skipped = True  # the caller gave up while the call waited for a thread
    else:
        skipped = False
        try:
            result = job.call()
        except BaseException as exc:
            error = exc
        else:
            if job.lane is not None:
                hold, result = result
    hold = hold or skipped
    lane = job.lane
    if hold and lane is not None and lane._queue is None:
        # NOTE: before the outcome reaches the loop, so that the lane's next
        # call, which may follow at once, comes to this thread.
        lane._queue = queue.SimpleQueue()
    try:
        job.loop.call_soon_threadsafe(_settle, job, result, error, skipped)
    except RuntimeError:
        return False  # the loop is closed: nobody waits for the outcome any more
    return hold


def _settle(job: _Job, result: Any, error: BaseException | None, skipped: bool) -> None:
    """Set the outcome of a call on its future, on the loop's thread."""
    job.done = True
    waiter = job.waiter
    if waiter is not None and not waiter.done():
        waiter.set_result(None)
    future = job.future
    if skipped or future.cancelled():
        return
    if error is None:
        future.set_result(result)
    elif isinstance(error, StopIteration):
        # A future cannot hold StopIteration (it would end the awaiting
        # generator silently); asyncio's tasks turn it into this error too.
        replaced = RuntimeError("the function raised StopIteration")
        replaced.__cause__ = error
        future.set_exception(replaced)
    else:
        future.set_exception(error)


class Lane:
    """Calls that run one after another on one thread of a :class:`ThreadPool`.

    The first call goes to whichever thread of the pool is free; that
    thread then stays with the lane, waiting for its next call, for as long
    as each call asks to hold it, or until :meth:`release`. The App's
    dispatch gives each request a lane, so that a request's ``def`` steps
    all see one thread (a ``sqlite3`` connection or a ``threading.local``
    set in a hook is there in the view).
    """

    __slots__ = ("_pool", "_queue")

    def __init__(self, pool: ThreadPool) -> None:
        self._pool = pool
        # The queue of the thread that holds the lane, set by that thread.
        self._queue: queue.SimpleQueue[_Job | None] | None = None

    @property
    def held(self) -> bool:
        """Whether a thread is waiting for this lane's next call."""
        return self._queue is not None

    async def call(self, func: Callable[..., tuple[bool, T]], /, *args: Any) -> T:
        """Run ``func(*args)`` on the lane's thread, in a copy of the context.

        ``func`` returns ``(hold, value)``: with ``hold`` the thread waits for
        the lane's next call, else it goes back to the pool; this returns
        ``value``. If this
        coroutine is cancelled, it returns (raising ``CancelledError``) only
        once the thread is done with the call, or skipped it: whatever
        ``func`` works on is never used by two threads at once.
        """
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        call = functools.partial(contextvars.copy_context().run, func, *args)
        job = _Job(loop, future, call, self)
        private = self._queue
        if private is None:
            self._pool._put(job)
        else:
            private.put(job)
        try:
            return await future  # type: ignore[no-any-return]
        except asyncio.CancelledError:
            while not job.done:
                job.waiter = loop.create_future()
                try:
                    await job.waiter
                except asyncio.CancelledError:
                    continue
            raise

    def release(self) -> None:
        """Let the lane's thread go back to its pool."""
        private, self._queue = self._queue, None
        if private is not None:
            private.put(None)


class ThreadPools:
    """The thread pools of one App (or one ``asgi_app``), one per kind of work.

    Args:
        threads: The ``requests`` pool's bound: ``def`` views, hooks, error
            handlers and work after the response.
        io_threads: The ``io`` pool's bound: file reads, upload spools.
        stream_threads: The ``streams`` pool's bound: ``def`` producers.
        mount_threads: The ``mounts`` pool's bound: mounted WSGI applications.
    """

    __slots__ = ("io", "mounts", "requests", "streams")

    def __init__(
        self,
        threads: int = 32,
        io_threads: int = 16,
        stream_threads: int = 128,
        mount_threads: int = 32,
    ) -> None:
        #: ``def`` views, hooks and handlers, and work after the response.
        #: PERF: all its threads start at its first call. A call handed to a
        #: thread that has waited a while costs less than one handed to the
        #: thread that just went back to waiting (measured: a ``def`` view
        #: under ASGI answers in 65 us with 16 threads waiting, 105 us with 1).
        self.requests = ThreadPool(threads, "sansio-http-request", eager=True)
        #: File reads and upload spools.
        self.io = ThreadPool(io_threads, "sansio-http-io")
        #: The steps and the close of ``def`` producers.
        self.streams = ThreadPool(stream_threads, "sansio-http-stream")
        #: Mounted WSGI applications, a thread for each exchange.
        self.mounts = ThreadPool(mount_threads, "sansio-http-mount")

    def shutdown(self, wait: bool = False) -> None:
        """Stop the threads of every pool once their calls finished.

        Args:
            wait: Whether to wait until the threads have stopped.
        """
        for pool in (self.requests, self.io, self.streams, self.mounts):
            pool.shutdown(wait)


#: The pools of requests built outside an application (an ``ASGIRequest``
#: made by hand): shared by them, started only if used.
DEFAULT_POOLS: Final = ThreadPools()
