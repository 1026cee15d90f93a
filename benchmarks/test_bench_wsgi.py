"""The WSGI adapter next to Werkzeug, Flask and Falcon, called in-process.

Three kinds of groups: building a request from an environ and reading what
a view reads; a hello-world application called as a server would call it;
and a 10 MiB multipart upload read through each framework's files API,
spooled to temporary files alike.

The hello world is two groups, so that each compares equal work:

- ``wsgi-hello-bare``: applications that answer every path without a
  router: ``wsgi_app`` around a handler (the reference), Werkzeug's
  ``Request.application`` and a raw WSGI callable (the floor);
- ``wsgi-hello`` (in ``test_bench_cycle_wsgi.py``): applications that route
  the path and method first: the :class:`~sansio_http.App` (the reference),
  Flask and Falcon.

Every application is called through :func:`benchmarks._drive.drive_wsgi`,
so the harness costs all of them the same.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

import falcon
import flask
import pytest
import werkzeug
import werkzeug.wrappers
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks._drive import drive_wsgi
from benchmarks.conftest import BROWSER_GET_RAW
from sansio_http.messages._response import Response
from sansio_http.wsgi import WSGIRequest, wsgi_app

PATH = "/catalogue/books/"
QUERY = "page=2&sort=price"
EXPECTED = (
    "GET",
    PATH,
    "2",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "7f3c9a1e5b2d4c6e8f0a1b2c3d4e5f60",
)


def browser_environ(
    method: str = "GET", path: str = PATH, query: str = QUERY, body: bytes = b""
) -> dict[str, Any]:
    """The environ gunicorn builds for the captured Firefox navigation."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "RAW_URI": f"{path}?{query}",
        "SERVER_NAME": "shop.example.com",
        "SERVER_PORT": "443",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "192.0.2.1",
        "REMOTE_PORT": "53122",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "https",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,
    }
    for name, value in BROWSER_GET_RAW:
        key = "HTTP_" + name.decode().upper().replace("-", "_")
        environ[key] = value.decode("latin-1")
    if body:
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ


ENVIRON = browser_environ()

# -- environ -> request, reading method, path, one arg, one header, one cookie -----


def read_ours(environ: dict[str, Any]) -> tuple[str, str, str, str | None, str]:
    request = WSGIRequest(environ)
    return (
        request.method,
        request.path,
        request.args["page"],
        request.headers.get("user-agent"),
        request.cookies["sessionid"],
    )


def read_werkzeug(environ: dict[str, Any]) -> tuple[str, str, str, str | None, str]:
    request = werkzeug.wrappers.Request(environ)
    return (
        request.method,
        request.path,
        request.args["page"],
        request.headers.get("user-agent"),
        request.cookies["sessionid"],
    )


@pytest.mark.benchmark(group="wsgi-request")
def test_environ_request_sansio_http(benchmark: BenchmarkFixture) -> None:
    # PERF: the target is at most half of Werkzeug's time.
    assert benchmark(lambda: read_ours(ENVIRON.copy())) == EXPECTED


@pytest.mark.benchmark(group="wsgi-request")
def test_environ_request_werkzeug(benchmark: BenchmarkFixture) -> None:
    assert benchmark(lambda: read_werkzeug(ENVIRON.copy())) == EXPECTED


# -- a hello-world application, called as a server calls it --------------------------

HELLO = b"Hello, World!"
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def hello_ours() -> WSGIApp:
    return wsgi_app(lambda request: Response("Hello, World!"))


def hello_raw() -> WSGIApp:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        start_response(
            "200 OK",
            [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(HELLO)))],
        )
        return [HELLO]

    return app


def hello_werkzeug() -> WSGIApp:
    @werkzeug.wrappers.Request.application
    def app(request: werkzeug.wrappers.Request) -> werkzeug.wrappers.Response:
        return werkzeug.wrappers.Response(HELLO, content_type="text/plain; charset=utf-8")

    return app


def hello_flask() -> WSGIApp:
    app = flask.Flask("hello")

    @app.route(PATH)
    def hello() -> flask.Response:
        return flask.Response(HELLO, content_type="text/plain; charset=utf-8")

    return app


def hello_falcon() -> WSGIApp:
    class Hello:
        def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
            resp.data = HELLO
            resp.content_type = "text/plain; charset=utf-8"

    app = falcon.App()
    app.add_route(PATH, Hello())
    return app


#: Applications without a router, by test id: the name in the report and the maker.
BARE: dict[str, tuple[str, Callable[[], WSGIApp]]] = {
    "sansio_http": ("sansio-http, no router", hello_ours),
    "raw": ("raw callable", hello_raw),
    "werkzeug": ("werkzeug, no router", hello_werkzeug),
}

#: Applications that route the request first; the App joins them in test_bench_cycle_wsgi.py.
ROUTED: dict[str, Callable[[], WSGIApp]] = {"flask": hello_flask, "falcon": hello_falcon}


@pytest.mark.benchmark(group="wsgi-hello-bare")
@pytest.mark.parametrize("name", BARE)
def test_hello_world_bare(benchmark: BenchmarkFixture, name: str) -> None:
    label, make = BARE[name]
    app = make()
    benchmark.extra_info["implementation"] = label
    assert benchmark(drive_wsgi(app, ENVIRON)) == ("200 OK", HELLO)


@pytest.mark.benchmark(group="wsgi-hello")
@pytest.mark.parametrize("name", ROUTED)
def test_hello_world(benchmark: BenchmarkFixture, name: str) -> None:
    # PERF: the target is for the App (test_bench_cycle_wsgi.py) to beat these.
    app = ROUTED[name]()
    benchmark.extra_info["implementation"] = name
    assert benchmark(drive_wsgi(app, ENVIRON)) == ("200 OK", HELLO)


# -- a 10 MiB multipart upload through the files API ----------------------------------

BOUNDARY = "----geckoformboundary4f1c0d3a9b8e7f6a"
UPLOAD_SIZE = 10 * 1024 * 1024
# Spool like the frameworks do by default: in memory up to 1 MiB, then on disk.
SPOOL_MEMORY = 1024 * 1024


def _upload_body() -> bytes:
    block = bytes(range(256)) * 256
    data = (block * (UPLOAD_SIZE // len(block) + 1))[:UPLOAD_SIZE]
    return (
        (
            f"--{BOUNDARY}\r\n"
            'Content-Disposition: form-data; name="title"\r\n\r\n'
            "holiday pictures\r\n"
            f"--{BOUNDARY}\r\n"
            'Content-Disposition: form-data; name="file"; filename="photos.tar"\r\n'
            "Content-Type: application/x-tar\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


UPLOAD_BODY = _upload_body()


def upload_environ() -> dict[str, Any]:
    environ = browser_environ("POST", "/upload", "", UPLOAD_BODY)
    environ["CONTENT_TYPE"] = f"multipart/form-data; boundary={BOUNDARY}"
    return environ


def upload_ours() -> tuple[str | None, int]:
    with WSGIRequest(upload_environ()) as request:
        upload = request.get_files()["file"]
        return request.get_form().get("title"), upload.size


def upload_werkzeug() -> tuple[str | None, int]:
    request = werkzeug.wrappers.Request(upload_environ())
    try:
        upload = request.files["file"]
        upload.stream.seek(0, io.SEEK_END)
        return request.form.get("title"), upload.stream.tell()
    finally:
        request.close()


def upload_falcon() -> tuple[str | None, int]:
    request = falcon.Request(upload_environ())
    title = None
    size = 0
    for part in request.get_media():
        if part.filename:
            with tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY) as file:
                part.stream.pipe(file)
                size = file.tell()
        else:
            title = part.text
    return title, size


@pytest.mark.benchmark(group="wsgi-upload")
@pytest.mark.parametrize(
    "upload",
    [upload_ours, upload_werkzeug, upload_falcon],
    ids=["sansio_http", "werkzeug", "falcon"],
)
def test_multipart_upload(
    benchmark: BenchmarkFixture, upload: Callable[[], tuple[str | None, int]]
) -> None:
    # PERF: the target is to beat Falcon and to take at most a third of Werkzeug's time.
    assert benchmark(upload) == ("holiday pictures", UPLOAD_SIZE)
