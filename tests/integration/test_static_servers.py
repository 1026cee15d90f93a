"""App.static under real gunicorn and uvicorn, over TCP.

The App of :mod:`tests.app.test_static_files` serves a temporary tree (its
folder comes in ``SANSIO_STATIC_ROOT``); this module is also the application
module the servers import (``wsgi_application``, ``asgi_application``).
Traversal attempts go over a raw socket, byte for byte, so that no client
library tidies them first. After each case the worker must hold no
descriptor of a file in the tree (``/proc/<pid>/fd``).
"""

from __future__ import annotations

import gzip
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from sansio_http import Request, Response
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi
from tests.app import servers
from tests.app.test_static_files import (
    BIG,
    BROTLI,
    DOCS,
    MISSING,
    SCRIPT,
    SECRET,
    build_tree,
    make_app,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not os.path.isdir("/proc/self/fd"), reason="counting open files needs /proc"
    ),
]

MODULE = "tests.integration.test_static_servers"


def _make_served_app() -> tuple[object, object]:
    app = make_app(os.environ.get("SANSIO_STATIC_ROOT", "/nonexistent"))

    @app.get("/pid")
    def pid(request: Request) -> Response:
        return Response(str(os.getpid()))

    return to_wsgi(app), to_asgi(app)


wsgi_application, asgi_application = _make_served_app()


@dataclass
class Served:
    name: str
    url: str
    port: int
    pid: int
    tree: Path


@pytest.fixture(scope="module", params=["gunicorn", "uvicorn"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    name: str = request.param
    root = tmp_path_factory.mktemp(f"static-{name}")
    build_tree(root)
    server = servers.start(name, MODULE, root / "server.log", env={"SANSIO_STATIC_ROOT": str(root)})
    try:
        port = int(server.url.rpartition(":")[2])
        pid = int(httpx.get(f"{server.url}/pid", timeout=10).text)
        yield Served(name, server.url, port, pid, root)
    finally:
        server.stop()


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        yield client
    assert wait_no_open_files(served) == []


def open_files(served: Served) -> list[str]:
    found = []
    real_root = os.path.realpath(served.tree)
    folder = f"/proc/{served.pid}/fd"
    for fd in os.listdir(folder):
        try:
            target = os.readlink(f"{folder}/{fd}")
        except OSError:
            continue
        if target.startswith(real_root + os.sep) and not target.endswith("server.log"):
            found.append(target)
    return found


def wait_no_open_files(served: Served) -> list[str]:
    # NOTE: a server may close the file a moment after the client read its
    # last byte (uvicorn's send returns before the adapter's finally runs);
    # a leak stays open for good, so waiting a little tells them apart.
    deadline = time.monotonic() + 20
    while (found := open_files(served)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def raw_get(served: Served, target: bytes, extra: bytes = b"") -> tuple[int, bytes]:
    """Send one request with ``target`` exactly as given; return status and all bytes."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(
            b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + extra + b"\r\n"
        )  # fmt: skip
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


def test_a_file_and_its_validators(client: httpx.Client) -> None:
    response = client.get("/static/big.bin")
    assert response.status_code == 200
    assert response.content == BIG
    assert response.headers["content-type"] == "application/octet-stream"
    head = client.head("/static/big.bin")
    assert head.headers["content-length"] == str(len(BIG))
    assert head.headers["etag"] == response.headers["etag"]


def test_conditional_answers(client: httpx.Client) -> None:
    first = client.get("/static/css/site.css")
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    assert client.get("/static/css/site.css", headers={"if-none-match": etag}).status_code == 304
    since = client.get("/static/css/site.css", headers={"if-modified-since": modified})
    assert since.status_code == 304


def test_ranges(client: httpx.Client) -> None:
    etag = client.head("/static/big.bin").headers["etag"]
    one = client.get("/static/big.bin", headers={"range": "bytes=100-199", "if-range": etag})
    assert one.status_code == 206
    assert one.content == BIG[100:200]
    several = client.get("/static/big.bin", headers={"range": "bytes=0-9, 50-59"})
    assert several.status_code == 206
    assert BIG[50:60] in several.content
    assert client.get("/static/big.bin", headers={"range": "bytes=9999999-"}).status_code == 416


def test_precompressed_siblings(client: httpx.Client) -> None:
    # httpx would decode the bodies; read them raw.
    with client.stream("GET", "/static/app.js", headers={"accept-encoding": "br, gzip"}) as br:
        assert br.headers["content-encoding"] == "br"
        assert b"".join(br.iter_raw()) == BROTLI
    with client.stream("GET", "/static/app.js", headers={"accept-encoding": "gzip"}) as gz:
        assert gz.headers["content-encoding"] == "gzip"
        assert gzip.decompress(b"".join(gz.iter_raw())) == SCRIPT
        assert gz.headers["vary"] == "Accept-Encoding"
    plain = client.get("/static/app.js", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.content == SCRIPT


def test_a_client_gone_mid_file_leaves_nothing_open(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(b"GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.recv(1024)
    assert wait_no_open_files(served) == []


RAW_TRAVERSALS = [
    b"/static/../secret.txt",
    b"/static/css/../../secret.txt",
    b"/static/%2e%2e/secret.txt",
    b"/static/..%2fsecret.txt",
    b"/static/..%2Fsecret.txt",
    b"/static/css%2F..%2F..%2Fsecret.txt",
    b"/static/..\\secret.txt",
    b"/static/..%5csecret.txt",
    b"/static/%00/../secret.txt",
    b"/static/C:%5Csecret.txt",
    b"/static//etc/passwd",
    b"/static/%2fetc/passwd",
    b"/static/.env",
    b"/static/out.txt",
    b"/static/out-dir/secret.txt",
    b"/static/css",
    b"/static/%252e%252e/secret.txt",
    b"/bp/files/../../secret.txt",
]


@pytest.mark.parametrize("target", RAW_TRAVERSALS)
def test_traversal_never_serves_the_secret(served: Served, target: bytes) -> None:
    status, data = raw_get(served, target)
    # A server may refuse a target itself (400); the App answers 404; never 200 or 500.
    assert status in (400, 404)
    assert SECRET not in data
    assert wait_no_open_files(served) == []


def test_a_static_site(client: httpx.Client) -> None:
    assert client.get("/site/docs/").content == DOCS
    redirect = client.get("/site/docs?lang=en")
    assert redirect.status_code == 308
    assert redirect.headers["location"] == "/site/docs/?lang=en"
    missing = client.get("/site/missing.html", headers={"range": "bytes=0-3"})
    assert missing.status_code == 404
    assert missing.content == MISSING
    head = client.head("/site/missing.html")
    assert head.status_code == 404
    assert head.headers["content-length"] == str(len(MISSING))


SITE_TRAVERSALS = [
    b"/site/../secret.txt",
    b"/site/../",
    b"/site/%2e%2e/",
    b"/site/..%2f",
    b"/site/out/",
    b"/site/out",
    b"/site//evil.com",
    b"/site/%2F%2Fevil.com",
    b"/site/%5Cevil.com",
    b"/site/\\evil.com/",
]


@pytest.mark.parametrize("target", SITE_TRAVERSALS)
def test_a_static_site_never_serves_the_secret_nor_leads_away(
    served: Served, target: bytes
) -> None:
    status, data = raw_get(served, target)
    # A server may refuse a target itself (400); the App answers 404 with its
    # page: never the secret, and never a redirect (the rules refuse first).
    assert status in (400, 404)
    assert SECRET not in data
    assert b"\r\nlocation:" not in data.lower()
    assert wait_no_open_files(served) == []
