from __future__ import annotations

import asyncio

from sansio_http.asgi._receive import Receiver
from tests.asgi.checker import QueueReceive, run


def test_messages_arrive_in_order() -> None:
    async def main() -> list[bytes]:
        receive = QueueReceive()
        receive.body(b"a", more=True)
        receive.body(b"b")
        receiver = Receiver(receive)
        return [(await receiver.receive())["body"] for _ in range(2)]

    assert run(main()) == [b"a", b"b"]


def test_poll_keeps_a_ready_body_chunk_for_the_reader() -> None:
    async def main() -> tuple[bool, bytes, bool]:
        receive = QueueReceive()
        receive.body(b"data")
        receiver = Receiver(receive)
        gone = await receiver.poll()
        message = await receiver.receive()
        return gone, message["body"], receiver.body_complete

    assert run(main()) == (False, b"data", True)


def test_poll_without_a_message_leaves_the_receive_for_the_next_reader() -> None:
    async def main() -> tuple[bool, bytes, int]:
        receive = QueueReceive()
        receiver = Receiver(receive)
        gone = await receiver.poll()
        receive.body(b"late")
        message = await receiver.receive()
        return gone, message["body"], receive.calls

    # One receive() was made, by the poll, and its message was not lost.
    assert run(main()) == (False, b"late", 1)


def test_disconnect_is_remembered_without_asking_the_server_again() -> None:
    async def main() -> tuple[bool, str, str, int]:
        receive = QueueReceive()
        receive.disconnect()
        receiver = Receiver(receive)
        gone = await receiver.poll()
        first = await receiver.receive()
        second = await receiver.receive()
        return gone, first["type"], second["type"], receive.calls

    assert run(main()) == (True, "http.disconnect", "http.disconnect", 1)


def test_poll_reads_no_further_than_one_unread_chunk() -> None:
    async def main() -> tuple[bool, int]:
        receive = QueueReceive()
        receive.body(b"1", more=True)
        receive.body(b"2", more=True)
        receiver = Receiver(receive)
        await receiver.poll()
        gone = await receiver.poll()
        return gone, receive.calls

    assert run(main()) == (False, 1)


def test_wait_disconnect_leaves_body_chunks_to_the_reader() -> None:
    async def main() -> tuple[list[bytes], bool]:
        receive = QueueReceive()
        receiver = Receiver(receive)
        listener = asyncio.ensure_future(receiver.wait_disconnect())
        receive.body(b"1", more=True)
        receive.body(b"2")
        chunks = [(await receiver.receive())["body"] for _ in range(2)]
        receive.disconnect()
        await asyncio.wait_for(listener, 30)
        return chunks, receiver.disconnected

    assert run(main()) == ([b"1", b"2"], True)


def test_a_cancelled_listener_loses_no_message() -> None:
    async def main() -> bytes:
        receive = QueueReceive()
        receiver = Receiver(receive)
        listener = asyncio.ensure_future(receiver.wait_disconnect())
        await asyncio.sleep(0)
        listener.cancel()
        await asyncio.wait((listener,))
        receive.body(b"kept")
        message = await receiver.receive()
        return bytes(message["body"])

    assert run(main()) == b"kept"


def test_close_cancels_the_pending_receive() -> None:
    async def main() -> int:
        receive = QueueReceive()
        receiver = Receiver(receive)
        await receiver.poll()
        await receiver.close()
        await receiver.close()
        return receive.calls

    assert run(main()) == 1
