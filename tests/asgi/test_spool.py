from __future__ import annotations

import asyncio
import io
import threading
from typing import Any

import pytest

from sansio_http.asgi._spool import SpoolWriter
from sansio_http.asgi._threads import ThreadPool
from sansio_http.bodies._formdata import FileData, FileEnd, FileStart, FormEvent
from sansio_http.bodies._forms import FormCollector
from tests.asgi.checker import run


class RecordingSpool(io.BytesIO):
    """A spool file that logs each write with the thread that made it."""

    def __init__(self, log: list[tuple[int, bytes]], fail_at: bytes | None = None) -> None:
        super().__init__()
        self.log = log
        self.fail_at = fail_at

    def write(self, data: Any, /) -> int:
        if data == self.fail_at:
            raise OSError(28, "No space left on device")
        self.log.append((threading.get_ident(), bytes(data)))
        return super().write(data)


#: The threads that write, as an App's io pool.
POOL = ThreadPool(2, "test-spool")


def start() -> list[FormEvent]:
    return [FileStart("upload", "a.bin", None, ())]


def test_batches_are_written_in_order_off_the_loop() -> None:
    log: list[tuple[int, bytes]] = []
    collector = FormCollector(lambda: RecordingSpool(log))

    async def main() -> int:
        writer = SpoolWriter(asyncio.get_running_loop(), collector, POOL)
        await writer.send(start())
        for number in range(20):
            await writer.send([FileData(b"%d," % number)])
        await writer.finish([FileEnd(0)])
        return threading.get_ident()

    loop_thread = run(main())
    assert [data for _, data in log] == [b"%d," % number for number in range(20)]
    assert all(thread != loop_thread for thread, _ in log)
    upload = collector.result().files["upload"]
    assert upload.read() == b"".join(b"%d," % number for number in range(20))


def test_a_write_error_is_raised_by_the_next_send_and_stops_the_writes() -> None:
    log: list[tuple[int, bytes]] = []
    collector = FormCollector(lambda: RecordingSpool(log, fail_at=b"bad"))

    async def main() -> None:
        writer = SpoolWriter(asyncio.get_running_loop(), collector, POOL)
        await writer.send([*start(), FileData(b"good")])

        async def bad_then_late() -> None:
            # The send of "bad" raises if the worker failed before the loop
            # looked; "late" is taken only after "bad" failed, so its send
            # raises if not.
            await writer.send([FileData(b"bad")])
            await writer.send([FileData(b"late")])

        with pytest.raises(OSError, match="No space left"):
            await bad_then_late()

    run(main())
    assert [data for _, data in log] == [b"good"]


def test_stop_drops_the_batches_not_taken_and_waits_for_the_one_being_written() -> None:
    release = threading.Event()
    writing = threading.Event()
    written: list[bytes] = []

    class Slow(io.BytesIO):
        def write(self, data: Any, /) -> int:
            writing.set()
            if not release.wait(30):
                raise TimeoutError("the test never released the write")
            written.append(bytes(data))
            return super().write(data)

    collector = FormCollector(Slow)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        writer = SpoolWriter(loop, collector, POOL)
        await writer.send([*start(), FileData(b"first")])
        # Waits for the worker to take it, which it does once "first" is written.
        second = asyncio.ensure_future(writer.send([FileData(b"second")]))
        assert await loop.run_in_executor(None, writing.wait, 30)
        stopping = asyncio.ensure_future(writer.stop())
        await asyncio.sleep(0)
        assert not stopping.done()
        release.set()
        await stopping
        await second

    run(main())
    assert written == [b"first"]
