"""Answering a revalidation (304) and a range request (206), next to Werkzeug.

Each benchmark builds the 200 response a view returns (a 64 KiB body with an ETag and
Last-Modified) and turns it into the answer to a browser's conditional request. Werkzeug's
``make_conditional`` reads a WSGI environ, built once outside the timing; Starlette and
Falcon have no equivalent that works on a response value (Starlette answers ranges only
inside ``FileResponse``, while it reads the file).
"""

from __future__ import annotations

from dataclasses import dataclass

import werkzeug.wrappers
from pytest_benchmark.fixture import BenchmarkFixture

from sansio_http import Headers, Response, make_conditional

BODY = bytes(range(256)) * 256  # 64 KiB
ETAG = '"5f3c-10000"'
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
HEADERS = {"Content-Type": "application/octet-stream", "ETag": ETAG, "Last-Modified": LAST_MODIFIED}


@dataclass
class Head:
    method: str
    headers: Headers


REVALIDATE = Head("GET", Headers({"If-None-Match": ETAG, "If-Modified-Since": LAST_MODIFIED}))
RANGE = Head("GET", Headers({"Range": "bytes=1000-1999", "If-Range": ETAG}))


def environ(**fields: str) -> dict[str, object]:
    base: dict[str, object] = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/data.bin",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
    }
    base.update({f"HTTP_{name.upper()}": value for name, value in fields.items()})
    return base


REVALIDATE_ENVIRON = environ(if_none_match=ETAG, if_modified_since=LAST_MODIFIED)
RANGE_ENVIRON = environ(range="bytes=1000-1999", if_range=ETAG)


def ours(head: Head) -> Response:
    return make_conditional(Response(BODY, 200, HEADERS), head)


def werkzeugs(env: dict[str, object]) -> werkzeug.wrappers.Response:
    response = werkzeug.wrappers.Response(BODY, 200, HEADERS)
    return response.make_conditional(env, accept_ranges=True, complete_length=len(BODY))


def test_not_modified_sansio_http(benchmark: BenchmarkFixture) -> None:
    answer = benchmark(ours, REVALIDATE)
    assert (answer.status, answer.body) == (304, b"")
    assert answer.headers["etag"] == ETAG


def test_not_modified_werkzeug(benchmark: BenchmarkFixture) -> None:
    answer = benchmark(werkzeugs, REVALIDATE_ENVIRON)
    assert answer.status_code == 304
    assert answer.headers["ETag"] == ETAG


def test_range_sansio_http(benchmark: BenchmarkFixture) -> None:
    answer = benchmark(ours, RANGE)
    assert (answer.status, answer.body) == (206, BODY[1000:2000])
    assert answer.headers["content-range"] == "bytes 1000-1999/65536"


def test_range_werkzeug(benchmark: BenchmarkFixture) -> None:
    answer = benchmark(werkzeugs, RANGE_ENVIRON)
    assert answer.status_code == 206
    assert answer.get_data() == BODY[1000:2000]
    assert answer.headers["Content-Range"] == "bytes 1000-1999/65536"
