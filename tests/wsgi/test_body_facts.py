"""WSGIRequest's side of the shared request API: facts, awaited reads, disconnects."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from sansio_http.wsgi import WSGIRequest

from .conftest import make_environ


def test_http_version_comes_from_server_protocol() -> None:
    environ = make_environ()
    environ["SERVER_PROTOCOL"] = "HTTP/2"
    assert WSGIRequest(environ).http_version == "2"
    environ["SERVER_PROTOCOL"] = "HTTP/1.0"
    assert WSGIRequest(environ).http_version == "1.0"
    del environ["SERVER_PROTOCOL"]
    assert WSGIRequest(environ).http_version == "1.0"


@pytest.mark.parametrize("key", ["RAW_URI", "REQUEST_URI"])
def test_raw_path_is_the_path_part_of_the_target(key: str) -> None:
    environ = make_environ(path="/caf\u00e9")
    environ.pop("RAW_URI", None)
    environ[key] = "/caf%C3%A9/a%2Fb?x=1"
    assert WSGIRequest(environ).raw_path == b"/caf%C3%A9/a%2Fb"


def test_raw_path_is_none_when_the_server_does_not_pass_it() -> None:
    environ = make_environ()
    environ.pop("RAW_URI", None)
    environ.pop("REQUEST_URI", None)
    assert WSGIRequest(environ).raw_path is None


def test_bytes_read_follows_the_reads() -> None:
    request = WSGIRequest(make_environ("POST", body=b"abcdef"))
    assert request.bytes_read == 0
    chunks = request.iter_data()
    assert request.bytes_read == 0
    assert b"".join(chunks) == b"abcdef"
    assert request.bytes_read == 6
    kept = WSGIRequest(make_environ("POST", body=b"abc"))
    kept.get_data()
    assert kept.bytes_read == 3


def test_the_awaited_spelling_reads_the_input() -> None:
    async def main() -> tuple[bytes, list[bytes], dict[str, str], object]:
        request = WSGIRequest(
            make_environ("POST", body=b'{"a": 1}', content_type="application/json")
        )
        body = await request.body()
        chunks = [chunk async for chunk in request.stream()]
        form = WSGIRequest(
            make_environ("POST", body=b"x=1", content_type="application/x-www-form-urlencoded")
        )
        return body, chunks, (await form.form()).to_dict(), await request.json()

    assert asyncio.run(main()) == (b'{"a": 1}', [b'{"a": 1}'], {"x": "1"}, {"a": 1})


def test_a_blocking_read_in_a_coroutine_is_refused_as_under_asgi() -> None:
    async def main() -> str:
        request = WSGIRequest(make_environ("POST", body=b"abc"))
        with pytest.raises(RuntimeError) as caught:
            request.get_data()
        # Nothing was read: the awaited spelling still gets the whole body.
        assert await request.body() == b"abc"
        return str(caught.value)

    assert "await request.body()" in asyncio.run(main())


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    with server, client:
        yield server, client


def with_socket(sock: socket.socket, body: bytes = b"") -> WSGIRequest:
    environ = make_environ("POST", body=body)
    environ["gunicorn.socket"] = sock
    return WSGIRequest(environ)


def test_a_closed_client_socket_is_a_disconnect(pair: tuple[socket.socket, ...]) -> None:
    server, client = pair
    request = with_socket(server)
    assert request.check_disconnected() is False
    client.close()
    assert request.check_disconnected() is True
    assert asyncio.run(request.is_disconnected()) is True


def test_a_pipelined_request_is_not_a_disconnect(pair: tuple[socket.socket, ...]) -> None:
    server, client = pair
    client.sendall(b"GET /next HTTP/1.1\r\n")
    assert with_socket(server).check_disconnected() is False
    # Peeked, not read: the server still gets the next request.
    assert server.recv(100) == b"GET /next HTTP/1.1\r\n"


def test_an_unread_body_hides_the_socket(pair: tuple[socket.socket, ...]) -> None:
    server, client = pair
    client.close()
    request = with_socket(server, body=b"abc")
    assert request.check_disconnected() is False
    request.get_data()
    assert request.check_disconnected() is True


def test_a_short_body_is_a_disconnect() -> None:
    environ = make_environ("POST", body=b"ab", content_length="10")
    request = WSGIRequest(environ)
    assert request.check_disconnected() is False
    with pytest.raises(Exception, match="ended after 2"):
        request.get_data()
    assert request.check_disconnected() is True


def test_a_closed_socket_object_counts_as_gone() -> None:
    sock = socket.socket()
    sock.close()
    assert with_socket(sock).check_disconnected() is True
