"""wsgi_app: the request cycle, errors as responses, exc_info, logging, cleanup."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator
from typing import Any
from wsgiref.validate import validator

import pytest

from sansio_http.bodies._formdata import SpoolFile
from sansio_http.messages._errors import ClientDisconnected, MethodNotAllowed, NotFound
from sansio_http.messages._json_response import JSONResponse
from sansio_http.messages._response import Response
from sansio_http.wsgi import WSGIRequest, wsgi_app

from .conftest import ignore_start, make_environ, run
from .test_request import MULTIPART_TYPE, multipart


def test_handler_gets_a_wsgi_request() -> None:
    seen: list[WSGIRequest] = []

    def handler(request: WSGIRequest) -> Response:
        seen.append(request)
        return Response(f"{request.method} {request.path}?{request.args.get('a')}")

    result = run(wsgi_app(handler), make_environ("GET", "/x", "a=1"))
    assert result.body == b"GET /x?1"
    assert isinstance(seen[0], WSGIRequest)


def test_request_options_are_passed_on() -> None:
    class Custom(WSGIRequest):
        pass

    seen: list[WSGIRequest] = []

    def handler(request: WSGIRequest) -> Response:
        seen.append(request)
        return Response(request.get_data())

    app = wsgi_app(handler, request_class=Custom, max_content_length=3, trusted_hosts=["a"])
    result = run(app, make_environ("POST", body=b"abcd"))
    assert result.status_code == 413
    assert isinstance(seen[0], Custom)
    assert seen[0].max_content_length == 3
    assert seen[0].trusted_hosts == ["a"]


def test_name_and_doc_are_kept() -> None:
    def handler(request: WSGIRequest) -> Response:
        """Say hello."""
        return Response("hello")

    app = wsgi_app(handler)
    assert app.__name__ == "handler"
    assert app.__doc__ == "Say hello."


def test_http_error_becomes_its_response(caplog: pytest.LogCaptureFixture) -> None:
    def handler(request: WSGIRequest) -> Response:
        raise MethodNotAllowed(allowed=["GET"])

    result = run(wsgi_app(handler), make_environ("POST"))
    assert result.status == "405 Method Not Allowed"
    assert result.header("allow") == "GET"
    assert result.calls[0][2] is None
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_http_error_negotiates_json() -> None:
    def handler(request: WSGIRequest) -> Response:
        raise NotFound("no such thing")

    result = run(wsgi_app(handler), make_environ(headers=[("Accept", "application/json")]))
    assert result.status_code == 404
    assert result.header("content-type") == "application/json"
    assert b"no such thing" in result.body


def test_body_errors_become_responses() -> None:
    def handler(request: WSGIRequest) -> Response:
        return Response(request.get_data())

    result = run(wsgi_app(handler), make_environ("POST", body=b"ab", content_length="9"))
    assert result.status_code == 400
    chunked = make_environ(
        "POST",
        body=b"2\r\nab\r\n0\r\n\r\n",
        content_length=None,
        headers=[("Transfer-Encoding", "chunked")],
    )
    assert run(wsgi_app(handler), chunked).status_code == 411


def test_exception_becomes_a_500_with_exc_info(caplog: pytest.LogCaptureFixture) -> None:
    def handler(request: WSGIRequest) -> Response:
        raise ValueError("secret internal detail")

    with caplog.at_level(logging.ERROR, logger="sansio_http.wsgi"):
        result = run(wsgi_app(handler), make_environ("GET", "/boom"))
    assert result.status == "500 Internal Server Error"
    assert b"secret internal detail" not in result.body
    assert b"Traceback" not in result.body
    (call,) = result.calls
    exc_info = call[2]
    assert exc_info is not None
    assert isinstance(exc_info[1], ValueError)
    (record,) = [r for r in caplog.records if r.name == "sansio_http.wsgi"]
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
    assert "secret internal detail" in caplog.text
    assert "/boom" in record.getMessage()


def test_error_in_a_stream_before_the_first_chunk_is_a_500(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def chunks() -> Iterator[bytes]:
        yield b""
        raise RuntimeError("stream broke")

    app = wsgi_app(lambda request: Response(chunks(), content_type="text/plain"))
    result = run(app, make_environ())
    assert result.status_code == 500
    assert [call[0][:3] for call in result.calls] == ["200", "500"]
    assert result.calls[1][2] is not None
    assert "stream broke" in caplog.text


def test_error_in_a_stream_after_the_first_chunk_propagates() -> None:
    def chunks() -> Iterator[bytes]:
        yield b"partial"
        raise RuntimeError("stream broke")

    app = wsgi_app(lambda request: Response(chunks(), content_type="text/plain"))
    with pytest.raises(RuntimeError, match="stream broke"):
        run(app, make_environ())


def test_headers_already_sent_re_raise_from_start_response() -> None:
    # A server that sent the headers re-raises exc_info (PEP 3333).
    class Failing:
        def __iter__(self) -> Iterator[bytes]:
            return self

        def __next__(self) -> bytes:
            raise RuntimeError("late")

    app = validator(wsgi_app(lambda request: Response(Failing(), content_type="text/plain")))

    def start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])
        return lambda data: None

    iterable = app(make_environ(), start_response)
    with pytest.raises(RuntimeError, match="late"):
        list(iterable)
    iterable.close()  # type: ignore[attr-defined]


def test_a_failing_response_is_a_500(caplog: pytest.LogCaptureFixture) -> None:
    # The handler's response cannot even start: the file is missing.
    from sansio_http.messages._files import FileBody

    app = wsgi_app(lambda request: Response(FileBody("/nonexistent/file"), content_type="a/b"))
    result = run(app, make_environ())
    assert result.status_code == 500
    assert result.calls[-1][2] is not None


def test_a_failing_error_response_propagates() -> None:
    def handler(request: WSGIRequest) -> Response:
        raise KeyError("x")

    # A server whose start_response fails: the 500 cannot be sent either.
    def start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
        raise OSError("server gone")

    with pytest.raises(OSError, match="server gone"):
        validator(wsgi_app(handler))(make_environ(), start_response)


def test_base_exceptions_propagate_and_release_the_request() -> None:
    made: list[io.BytesIO] = []

    def spool() -> SpoolFile:
        made.append(io.BytesIO())
        return made[-1]

    def handler(request: WSGIRequest) -> Response:
        assert request.get_files()["f"].size == 3
        raise KeyboardInterrupt

    app = wsgi_app(handler, spool=spool)
    environ = make_environ("POST", body=multipart(("f", "a", b"abc")), content_type=MULTIPART_TYPE)
    with pytest.raises(KeyboardInterrupt):
        validator(app)(environ, ignore_start)
    assert made
    assert made[0].closed


@pytest.mark.parametrize("kind", ["bytes", "stream", "error"])
def test_uploads_are_released_at_the_end_of_the_request(kind: str) -> None:
    made: list[io.BytesIO] = []
    closed_at_return: list[bool] = []

    def spool() -> SpoolFile:
        made.append(io.BytesIO())
        return made[-1]

    def handler(request: WSGIRequest) -> Response:
        upload = request.get_files()["f"]
        if kind == "error":
            raise ClientDisconnected()
        if kind == "bytes":
            return Response(upload.read(), content_type="text/plain")

        def chunks() -> Iterator[bytes]:
            # The stream still reads the upload: it must stay open until close().
            yield upload.read()
            closed_at_return.append(made[0].closed)

        return Response(chunks(), content_type="text/plain")

    environ = make_environ("POST", body=multipart(("f", "a", b"abc")), content_type=MULTIPART_TYPE)
    result = run(wsgi_app(handler, spool=spool), environ)
    if kind != "error":
        assert result.body == b"abc"
    assert made
    assert all(file.closed for file in made)
    if kind == "stream":
        assert closed_at_return == [False]


def test_json_response() -> None:
    app = wsgi_app(lambda request: JSONResponse({"a": [1, 2]}))
    result = run(app, make_environ())
    assert result.header("content-type") == "application/json"
    assert result.body == b'{"a":[1,2]}'


def test_exc_info_is_not_kept_alive() -> None:
    def handler(request: WSGIRequest) -> Response:
        raise ValueError("x")

    run(wsgi_app(handler), make_environ())
    assert sys.exc_info() == (None, None, None)
