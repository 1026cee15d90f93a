"""Request lines, targets, Host, versions and headers on the wire."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.apps import echo_asgi, echo_wsgi, facts_asgi, facts_wsgi
from tests.server.conftest import read_responses, recv_all, serving

Serve = Callable[..., Any]


@pytest.fixture(params=["wsgi", "asgi"])
def facts(request: pytest.FixtureRequest) -> Any:
    return facts_wsgi if request.param == "wsgi" else facts_asgi


@pytest.fixture(params=["wsgi", "asgi"])
def echo(request: pytest.FixtureRequest) -> Any:
    return echo_wsgi if request.param == "wsgi" else echo_asgi


def exchange(running: Any, data: bytes) -> bytes:
    """Send ``data`` on a new connection and return all the server sends."""
    with running.connect() as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        return recv_all(sock)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def body_of(answer: bytes) -> Any:
    _, _, body = answer.partition(b"\r\n\r\n")
    return json.loads(body)


def ask(sock: socket.socket, head: bytes) -> tuple[Any, bytes]:
    sock.sendall(head)
    [(response, body)] = read_responses(sock, 1)
    return response, body


class Calls:
    """A WSGI application that counts its calls."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        self.count += 1
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"called"]


# Request targets (RFC 9112 §3.2)


@pytest.mark.parametrize(
    "line",
    [
        b"GET url HTTP/1.1",
        b"GET example.com:80 HTTP/1.1",
        b"GET * HTTP/1.1",
        b"CONNECT /x HTTP/1.1",
        b"GET /a#b HTTP/1.1",
        b"GET /%zz HTTP/1.1",
        b"GET ftp://example.com/ HTTP/1.1",
        b"GET http://user@example.com/ HTTP/1.1",
    ],
)
def test_targets_of_no_valid_form_are_400(serve: Serve, facts: Any, line: bytes) -> None:
    with serve(facts) as running:
        answer = exchange(running, line + b"\r\nHost: x\r\n\r\n")
    assert status_of(answer) == 400


def test_absolute_form_takes_path_query_and_host_from_the_target(serve: Serve, facts: Any) -> None:
    with serve(facts) as running:
        answer = exchange(
            running,
            b"GET http://example.com:8080/p%20q?a=1 HTTP/1.1\r\nHost: Example.COM:8080\r\n\r\n",
        )
    assert status_of(answer) == 200
    assert body_of(answer) == {
        "path": "/p q",
        "query": "a=1",
        "host": "example.com:8080",
        **(
            {"http": {"HTTP_HOST": "example.com:8080"}, "scheme": "http"}
            if facts is facts_wsgi
            else {"names": ["host"]}
        ),
    }


def test_absolute_form_naming_another_host_is_400(serve: Serve, facts: Any) -> None:
    # As under the adapters: a proxy routing by Host would see another host.
    with serve(facts) as running:
        answer = exchange(running, b"GET http://example.com/ HTTP/1.1\r\nHost: other\r\n\r\n")
    assert status_of(answer) == 400
    assert b"does not match the Host" in answer


def test_absolute_form_without_a_path_is_the_root(serve: Serve, facts: Any) -> None:
    with serve(facts) as running:
        answer = exchange(running, b"GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n")
    assert status_of(answer) == 200
    assert body_of(answer)["path"] == "/"


def test_absolute_form_still_needs_a_valid_host_header(serve: Serve, facts: Any) -> None:
    with serve(facts) as running:
        missing = exchange(running, b"GET http://example.com/ HTTP/1.1\r\n\r\n")
        invalid = exchange(running, b"GET http://example.com/ HTTP/1.1\r\nHost: a b\r\n\r\n")
    assert status_of(missing) == 400
    assert status_of(invalid) == 400


def test_asterisk_form_reaches_the_app_for_options_only(serve: Serve) -> None:
    with serve(facts_wsgi) as running:
        options = exchange(running, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
        get = exchange(running, b"GET * HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(options) == 200
    assert body_of(options)["path"] == "*"
    assert status_of(get) == 400


def test_connect_is_not_served(serve: Serve) -> None:
    calls = Calls()
    with serve(calls) as running:
        answer = exchange(running, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n")
    assert status_of(answer) == 501
    assert calls.count == 0


@pytest.mark.parametrize(
    "value",
    [b"a b", b"x/y", b"user@x", b"x:80:80", b"x:http", b"x:65536", b"[::1", b"[zz]", b"x%zz"],
)
def test_a_malformed_host_is_400(serve: Serve, facts: Any, value: bytes) -> None:
    with serve(facts) as running:
        answer = exchange(running, b"GET / HTTP/1.1\r\nHost: " + value + b"\r\n\r\n")
    assert status_of(answer) == 400


@pytest.mark.parametrize("value", [b"example.com", b"[::1]:8000", b"127.0.0.1:1", b"", b"x:"])
def test_a_valid_host_is_served(serve: Serve, facts: Any, value: bytes) -> None:
    with serve(facts) as running:
        answer = exchange(running, b"GET / HTTP/1.1\r\nHost: " + value + b"\r\n\r\n")
    assert status_of(answer) == 200
    assert body_of(answer)["host"] == value.decode()


def test_a_malformed_host_is_400_in_http_1_0_too(serve: Serve) -> None:
    with serve(facts_wsgi) as running:
        answer = exchange(running, b"GET / HTTP/1.0\r\nHost: a/b\r\n\r\n")
        two = exchange(running, b"GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n")
        without = exchange(running, b"GET / HTTP/1.0\r\n\r\n")
    assert status_of(answer) == 400
    assert status_of(two) == 400
    assert status_of(without) == 200


visible = st.binary(min_size=1, max_size=40).map(
    lambda data: bytes(0x21 + b % 0x5E for b in data)  # h11 admits only visible ASCII
)


def test_arbitrary_targets_and_hosts_get_a_200_or_a_400() -> None:
    with serving(facts_wsgi) as running:

        @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(
            method=st.sampled_from([b"GET", b"OPTIONS", b"CONNECT", b"POST"]),
            target=visible,
            host=visible,
        )
        def check(method: bytes, target: bytes, host: bytes) -> None:
            answer = exchange(
                running, b"%s %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (method, target, host)
            )
            assert status_of(answer) in (200, 400, 501)

        check()
        # The server is still serving.
        assert status_of(exchange(running, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")) == 200


# Header names with "_" under WSGI


def test_header_names_with_underscores_never_reach_the_environ(serve: Serve) -> None:
    with serve(facts_wsgi) as running:
        answer = exchange(
            running,
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\n"
            b"X-Forwarded_For: 203.0.113.66\r\nTransfer_Encoding: chunked\r\n"
            b"Content_Length: 5\r\nX_Custom: 1\r\n\r\n",
        )
    assert status_of(answer) == 200
    assert body_of(answer)["http"] == {"HTTP_HOST": "x", "HTTP_X_FORWARDED_FOR": "192.0.2.1"}


def test_asgi_sees_header_names_as_sent(serve: Serve) -> None:
    with serve(facts_asgi) as running:
        answer = exchange(
            running, b"GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded_For: 203.0.113.66\r\n\r\n"
        )
    assert body_of(answer)["names"] == ["host", "x-forwarded_for"]


# Versions, the HTTP/2 preface and empty lines


def test_http_2_request_lines_are_505(serve: Serve) -> None:
    calls = Calls()
    with serve(calls) as running:
        two = exchange(running, b"GET / HTTP/2.0\r\nHost: x\r\n\r\n")
        zero = exchange(running, b"GET / HTTP/0.9\r\nHost: x\r\n\r\n")
    assert status_of(two) == 505
    assert status_of(zero) == 505
    assert calls.count == 0


def test_the_http_2_preface_is_400(serve: Serve) -> None:
    calls = Calls()
    with serve(calls) as running:
        answer = exchange(running, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    assert status_of(answer) == 400
    assert calls.count == 0


@pytest.mark.parametrize("blank", [b"\r\n", b"\n", b"\r\n\r\n"])
def test_empty_lines_before_the_request_line_are_ignored(
    serve: Serve, echo: Any, blank: bytes
) -> None:
    with serve(echo) as running, running.connect() as sock:
        response, body = ask(sock, blank + b"GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        assert response.status_code == 200
        # After a body, as old clients send one.
        sock.sendall(b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi" + blank)
        sock.sendall(b"GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        (first, _), (second, second_body) = read_responses(sock, 2)
    assert b"/first" in body
    assert first.status_code == 200
    assert second.status_code == 200
    assert b"/second" in second_body


def test_a_cr_and_its_lf_may_arrive_apart(serve: Serve) -> None:
    with serve(echo_wsgi) as running, running.connect() as sock:
        sock.sendall(b"\r")
        # Whatever the timing, the CR is held until the LF decides it.
        response, body = ask(sock, b"\nGET /late HTTP/1.1\r\nHost: x\r\n\r\n")
    assert response.status_code == 200
    assert b"/late" in body


def test_a_bare_cr_before_the_request_line_is_400(serve: Serve) -> None:
    with serve(echo_wsgi) as running:
        answer = exchange(running, b"\rGET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(answer) == 400


def test_endless_empty_lines_are_400(serve: Serve) -> None:
    with serve(echo_wsgi, max_header_size=1024) as running:
        answer = exchange(running, b"\r\n" * 600 + b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(answer) == 400


# Response heads: 100 Continue and Date


def test_100_continue_has_its_reason_phrase(serve: Serve, echo: Any) -> None:
    with serve(echo) as running, running.connect() as sock:
        sock.sendall(
            b"POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        )
        interim = sock.recv(1024)
        sock.sendall(b"data")
        [(response, _)] = read_responses(sock, 1)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert response.status_code == 200


def dates(answer: bytes) -> list[bytes]:
    head = answer.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]
    return [line.split(b":", 1)[1].strip() for line in head if line.lower().startswith(b"date:")]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /crash HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET url HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/2.0\r\nHost: x\r\n\r\n",
    ],
    ids=["200", "500", "400", "505"],
)
def test_every_response_has_one_date(serve: Serve, echo: Any, request_bytes: bytes) -> None:
    with serve(echo) as running:
        answer = exchange(running, request_bytes)
    [value] = dates(answer)
    # An IMF-fixdate (RFC 9110 §5.6.7), in GMT.
    assert value.endswith(b" GMT")
    assert parsedate_to_datetime(value.decode()).tzinfo is not None


def test_the_applications_own_date_is_kept(serve: Serve) -> None:
    fixed = "Sun, 06 Nov 1994 08:49:37 GMT"

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("200 OK", [("Date", fixed), ("Content-Length", "0")])
        return []

    with serve(app) as running:
        answer = exchange(running, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert dates(answer) == [fixed.encode()]


def test_endless_empty_lines_after_a_body_are_400(serve: Serve) -> None:
    with serve(echo_wsgi, max_header_size=1024) as running:
        answer = exchange(
            running,
            b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
            + b"\r\n" * 600
            + b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        )
    assert [status_of(b"HTTP/1.1" + part) for part in answer.split(b"HTTP/1.1")[1:]] == [200, 400]


def test_an_empty_line_then_the_end_of_the_stream_closes_quietly(serve: Serve) -> None:
    with serve(echo_wsgi) as running:
        answer = exchange(
            running, b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi\r\n"
        )
    assert answer.count(b"HTTP/1.1 ") == 1
    assert status_of(answer) == 200


def test_a_target_past_the_limit_is_414(serve: Serve) -> None:
    with serve(echo_wsgi, max_target_size=100) as running:
        answer = exchange(running, b"GET /" + b"a" * 200 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(answer) == 414


def test_the_503_past_max_connections_has_a_date(serve: Serve) -> None:
    with serve(echo_wsgi, max_connections=1) as running, running.connect() as held:
        held.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        read_responses(held, 1)  # the first connection is now being served
        with running.connect() as sock:
            answer = recv_all(sock)
    assert status_of(answer) == 503
    [value] = dates(answer)
    assert value.endswith(b" GMT")


def test_absolute_form_keeps_the_connections_scheme(serve: Serve) -> None:
    with serve(facts_wsgi) as running:
        answer = exchange(
            running, b"GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"
        )
    assert body_of(answer)["scheme"] == "http"
