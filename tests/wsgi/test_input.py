"""The request body stream: lengths, chunked input, limits and disconnects."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.messages._errors import (
    BadRequest,
    ClientDisconnected,
    LengthRequired,
    RequestEntityTooLarge,
)
from sansio_http.wsgi._input import InputStream, content_length

from .conftest import FailingInput, StrictInput, make_environ

BODY = b"0123456789" * 10


def stream(environ: dict[str, Any], **kwargs: Any) -> InputStream:
    return InputStream(environ, **kwargs)


def test_reads_exactly_content_length() -> None:
    environ = make_environ("POST", body=BODY)
    body = stream(environ)
    assert body.content_length == len(BODY)
    assert body.read() == BODY
    assert body.read() == b""
    assert body.read(10) == b""
    assert body.bytes_read == len(BODY)


def test_never_reads_past_content_length() -> None:
    # The socket holds the next request after the body: it must stay unread.
    environ = make_environ("POST", body=BODY + b"GET / HTTP/1.1\r\n", content_length="100")
    environ["wsgi.input"] = StrictInput(BODY + b"GET / HTTP/1.1\r\n", allowed=100)
    assert stream(environ, chunk_size=7).read() == BODY


@pytest.mark.parametrize("size", [1, 3, 7, 64, 100, 1000])
def test_sized_reads_return_full_chunks_until_the_end(size: int) -> None:
    body = stream(make_environ("POST", body=BODY))
    parts: list[bytes] = []
    while chunk := body.read(size):
        assert len(chunk) == size or len(b"".join(parts)) + len(chunk) == len(BODY)
        parts.append(chunk)
    assert b"".join(parts) == BODY


def test_read_zero_and_none() -> None:
    body = stream(make_environ("POST", body=BODY))
    assert body.read(0) == b""
    assert body.read(None) == BODY
    assert body.readable()


class TrickleInput(StrictInput):
    """A socket file that returns at most 3 bytes per read."""

    def read(self, size: int) -> bytes:
        return super().read(min(size, 3))


def test_short_reads_from_the_server_are_joined() -> None:
    environ = make_environ("POST", body=BODY)
    environ["wsgi.input"] = TrickleInput(BODY, len(BODY))
    assert stream(environ).read(50) == BODY[:50]


def test_iteration_yields_chunks() -> None:
    body = stream(make_environ("POST", body=BODY), chunk_size=30)
    assert [len(chunk) for chunk in body] == [30, 30, 30, 10]


def test_no_length_and_no_body_is_empty() -> None:
    environ = make_environ("POST")
    environ["wsgi.input"] = StrictInput(b"unannounced bytes", allowed=0)
    body = stream(environ)
    assert body.content_length is None
    assert body.read() == b""
    assert list(body) == []


def test_empty_content_length_is_no_length() -> None:
    body = stream(make_environ("POST", content_length=""))
    assert body.content_length is None
    assert body.read() == b""


def test_zero_content_length() -> None:
    body = stream(make_environ("POST", content_length="0"))
    assert body.content_length == 0
    assert body.read() == b""


@pytest.mark.parametrize("value", ["-1", "+5", "1_0", "abc", "\u0661", "1,2", "5,", "0x5"])
def test_invalid_content_length_is_400(value: str) -> None:
    with pytest.raises(BadRequest):
        stream(make_environ("POST", content_length=value))
    with pytest.raises(BadRequest):
        content_length({"CONTENT_LENGTH": value})


@pytest.mark.parametrize("value", [" 5", "5 ", "5,5", "5, 05", "005"])
def test_content_length_reads_as_the_core_reads_it(value: str) -> None:
    # RFC 9112 §6.3: a list of identical valid values is that value; the
    # WSGI adapter and the core Request share one parser.
    assert content_length({"CONTENT_LENGTH": value}) == 5
    environ = make_environ("POST", content_length=value, wsgi_input=io.BytesIO(b"12345"))
    assert stream(environ).read() == b"12345"


def test_short_body_is_client_disconnected() -> None:
    environ = make_environ("POST", body=BODY[:40], content_length="100")
    body = stream(environ)
    with pytest.raises(ClientDisconnected, match="40 of the 100"):
        body.read()
    # The error sticks: the body is not silently empty afterwards.
    with pytest.raises(ClientDisconnected):
        body.read(1)


def test_client_disconnected_is_a_400() -> None:
    environ = make_environ("POST", body=b"", content_length="5")
    with pytest.raises(BadRequest) as info:
        stream(environ).read()
    assert info.value.status == 400


@pytest.mark.parametrize(
    "exc", [ConnectionResetError("reset"), OSError("no more data"), TimeoutError("slow")]
)
def test_server_read_errors_are_client_disconnected(exc: OSError) -> None:
    environ = make_environ("POST", body=BODY)
    environ["wsgi.input"] = FailingInput(BODY, good=20, exc=exc)
    body = stream(environ, chunk_size=10)
    assert body.read(20) == BODY[:20]
    with pytest.raises(ClientDisconnected) as info:
        body.read(1)
    assert info.value.__cause__ is exc


def test_content_length_over_the_limit_is_413_before_reading() -> None:
    environ = make_environ("POST", body=BODY)
    environ["wsgi.input"] = StrictInput(BODY, allowed=0)
    with pytest.raises(RequestEntityTooLarge):
        stream(environ, max_content_length=99)


def test_content_length_at_the_limit_is_read() -> None:
    assert stream(make_environ("POST", body=BODY), max_content_length=100).read() == BODY


@pytest.mark.parametrize("terminated", [True, False])
def test_chunked_needs_a_terminated_input(terminated: bool) -> None:
    environ = make_environ(
        "POST",
        body=BODY,
        content_length=None,
        headers=[("Transfer-Encoding", "chunked")],
        terminated=terminated,
    )
    if terminated:
        body = stream(environ)
        assert body.content_length is None
        assert body.read() == BODY
    else:
        # Never a silent empty body.
        with pytest.raises(LengthRequired):
            stream(environ)


def test_transfer_encoding_overrides_content_length() -> None:
    # RFC 9112 §6.3: with both, the chunked framing decides the length.
    environ = make_environ(
        "POST",
        body=BODY,
        content_length="3",
        headers=[("Transfer-Encoding", "chunked")],
        terminated=True,
    )
    assert stream(environ).read() == BODY


def test_terminated_input_without_length_is_read_to_the_end() -> None:
    environ = make_environ("POST", body=BODY, content_length=None, terminated=True)
    assert stream(environ, chunk_size=16).read() == BODY


def test_terminated_input_with_length_stops_at_the_length() -> None:
    environ = make_environ("POST", body=BODY, content_length="10", terminated=True)
    assert stream(environ).read() == BODY[:10]


@pytest.mark.parametrize("limit", [0, 1, 50, 99])
def test_chunked_input_over_the_limit_is_413_after_one_extra_byte(limit: int) -> None:
    environ = make_environ("POST", body=BODY, content_length=None, terminated=True)
    wsgi_input = environ["wsgi.input"]
    body = stream(environ, max_content_length=limit, chunk_size=1000)
    with pytest.raises(RequestEntityTooLarge):
        body.read()
    assert wsgi_input.position == limit + 1
    with pytest.raises(RequestEntityTooLarge):
        body.read(1)


def test_chunked_input_at_the_limit_is_read() -> None:
    environ = make_environ("POST", body=BODY, content_length=None, terminated=True)
    assert stream(environ, max_content_length=100).read() == BODY


@given(
    body=st.binary(max_size=300),
    sizes=st.lists(st.integers(min_value=-1, max_value=64), min_size=1, max_size=20),
    terminated=st.booleans(),
)
def test_any_read_sizes_give_the_body(body: bytes, sizes: list[int], terminated: bool) -> None:
    environ = make_environ("POST", body=body, terminated=terminated)
    stream_ = stream(environ, chunk_size=5)
    parts = [stream_.read(size) for size in sizes]
    parts.append(stream_.read())
    assert b"".join(parts) == body


def test_repr() -> None:
    assert repr(stream(make_environ("POST", body=BODY))) == "<InputStream read=0 length=100>"


def test_read1_makes_one_read() -> None:
    environ = make_environ("POST", body=BODY)
    environ["wsgi.input"] = TrickleInput(BODY, len(BODY))
    body = stream(environ)
    assert body.read1(50) == BODY[:3]
    assert body.read1() == BODY[3:6]
    with pytest.raises(ValueError, match="at least 1"):
        body.read1(0)
