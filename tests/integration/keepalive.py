"""A strict HTTP/1.1 client for checking what follows a response on one connection.

h11 frames each response as RFC 9112 §6.3 says (a 204 or 304, or the answer
to HEAD, ends with its head), so any byte a server sends after such a head
shows up as a malformed next response, and a lost answer as a timeout.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

import h11

#: Seconds each request waits for its answer: far above any local answer.
TIMEOUT = 5.0


@dataclass
class Answer:
    """One response read from the connection."""

    status: int
    headers: dict[bytes, bytes]
    body: bytes


def ask_in_turn(port: int, *requests: tuple[str, str]) -> list[Answer]:
    """Send each ``(method, target)`` on ONE connection, each after the last answer.

    Raises:
        h11.RemoteProtocolError: The server sent bytes no response can start with
            (content after a 204, say).
        TimeoutError: A request got no answer within :data:`TIMEOUT`.
        ConnectionError: The server closed the connection before an answer.
    """
    answers: list[Answer] = []
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        connection = h11.Connection(h11.CLIENT)
        for method, target in requests:
            if answers:
                connection.start_next_cycle()
            head = h11.Request(method=method, target=target, headers=[("Host", "127.0.0.1")])
            sock.sendall(connection.send(head) + connection.send(h11.EndOfMessage()))
            answers.append(read_answer(connection, sock))
    return answers


def read_answer(connection: h11.Connection, sock: socket.socket) -> Answer:
    """Read the next response of ``connection`` from ``sock``."""
    response: h11.Response | None = None
    body = b""
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            data = sock.recv(65536)
            if not data and response is None:
                raise ConnectionError("the server closed the connection without an answer")
            connection.receive_data(data)
        elif isinstance(event, h11.Response):
            response = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            assert response is not None
            headers = {bytes(name): bytes(value) for name, value in response.headers}
            return Answer(response.status_code, headers, body)
        elif isinstance(event, h11.ConnectionClosed):
            raise ConnectionError("the server closed the connection mid-answer")
