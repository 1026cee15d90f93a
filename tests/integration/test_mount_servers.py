"""Mounted applications under real gunicorn and uvicorn, over TCP.

The servers run the applications of :mod:`tests.integration.test_mount_flask`
(``wsgi_application`` under gunicorn, ``asgi_application`` under uvicorn),
one process per server for the module. Flask streams a generator that
waits for a second request before its last chunk, so the first chunk must
reach the client while the generator still runs.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.app import servers

pytestmark = pytest.mark.integration

MODULE = "tests.integration.test_mount_flask"


@pytest.fixture(scope="module", params=["gunicorn", "uvicorn"])
def http(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    with servers.http_client(request.param, MODULE, tmp_path_factory) as client:
        client.headers["x-server"] = request.param
        yield client


def test_a_mounted_app_and_url_for(http: httpx.Client) -> None:
    assert http.get("/").json() == {"admin": "/admin/"}
    assert http.get("/admin/").json() == {
        "root_path": "/admin",
        "path": "/",
        "self": f"{http.base_url}/admin/",
    }
    assert http.get("/administrator").text == "outer"
    assert http.get("/admin/outer").json() == {"home": "/", "admin": "/admin/"}
    for kind in ("sync", "async"):
        assert http.get("/admin/stream", params={"kind": kind}).text == "/admin/"
    redirect = http.get("/admin?x=1")
    assert (redirect.status_code, redirect.headers["location"]) == (308, "/admin/?x=1")


def test_flask_under_the_prefix(http: httpx.Client) -> None:
    data = http.get("/flask/").json()
    assert data["script_root"] == "/flask"
    assert data["self"] == "/flask/"
    assert data["form"] == f"{http.base_url}/flask/form"


def test_flask_reads_a_form_and_an_upload(http: httpx.Client) -> None:
    content = bytes(range(256)) * 8192  # 2 MiB, several receive() chunks
    response = http.post(
        "/flask/form",
        data={"name": "Zoë"},
        files={"upload": ("data.bin", content, "application/octet-stream")},
    )
    assert response.json() == {
        "name": "Zoë",
        "filename": "data.bin",
        "size": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
    }


def test_flask_reads_a_chunked_upload(http: httpx.Client) -> None:
    content = bytes(range(256)) * 4096  # 1 MiB
    pieces = [content[i : i + 65536] for i in range(0, len(content), 65536)]
    # An iterator: httpx sends it chunked, without a Content-Length.
    response = http.post("/flask/echo", content=iter(pieces))
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert response.json() == {
        "size": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
    }


def test_flask_streams_before_its_generator_ends(http: httpx.Client) -> None:
    token = uuid.uuid4().hex
    with http.stream("GET", f"/flask/stream?token={token}") as response:
        chunks = response.iter_raw()
        assert next(chunks) == b"first;"
        # Only now may the generator finish; buffered whole, it would time out.
        assert http.post(f"/flask/release?token={token}").text == "ok"
        assert b"".join(chunks) == b"released"


# A Starlette app is mounted only where ASGI serves the App: uvicorn's.
@pytest.mark.parametrize("http", ["uvicorn"], indirect=True)
def test_the_starlette_lifespan_ran_once(http: httpx.Client) -> None:
    assert http.get("/star/started").json() == {"startups": 1, "root_path": "/star"}
