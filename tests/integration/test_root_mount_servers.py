"""A real Flask application at the root of an App, under real gunicorn and uvicorn.

The servers run the applications of :mod:`tests.integration.test_root_mount_flask`
(``wsgi_application`` under gunicorn's gthread workers, ``asgi_application``
under uvicorn, where Flask runs on the App's mounts pool), one process per
server for the module: the App answers its routes, Flask every other path,
reads a chunked upload and streams a generator that waits for a second
request before its last chunk.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.app import servers

pytestmark = pytest.mark.integration

MODULE = "tests.integration.test_root_mount_flask"


@pytest.fixture(scope="module", params=["gunicorn", "uvicorn"])
def http(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    with servers.http_client(request.param, MODULE, tmp_path_factory) as client:
        yield client


def test_the_app_answers_its_routes_and_flask_every_other(http: httpx.Client) -> None:
    assert http.get("/new/7").json() == {"number": 7, "root_path": ""}
    assert http.get("/users").text == "users from the App"
    data = http.get("/").json()
    assert (data["script_root"], data["path"]) == ("", "/")
    assert data["self"] == f"{http.base_url}/old/a"
    assert http.get("/old/b").json() == {"name": "b", "script_root": ""}
    missing = http.get("/missing")
    assert missing.status_code == 404
    assert "The requested URL was not found on the server" in missing.text
    refused = http.post("/users")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD, OPTIONS")


def test_flask_reads_a_chunked_upload(http: httpx.Client) -> None:
    content = bytes(range(256)) * 4096  # 1 MiB
    pieces = [content[i : i + 65536] for i in range(0, len(content), 65536)]
    # An iterator: httpx sends it chunked, without a Content-Length.
    response = http.post("/echo", content=iter(pieces))
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in response.request.headers
    # Flask read the body as the server passed it on: chunked.
    assert response.json()["chunked"] == "chunked"
    assert response.json()["size"] == len(content)
    assert response.json()["sha256"] == hashlib.sha256(content).hexdigest()


def test_flask_streams_before_its_generator_ends(http: httpx.Client) -> None:
    token = uuid.uuid4().hex
    with http.stream("GET", f"/stream?token={token}") as response:
        assert response.status_code == 200
        chunks = response.iter_raw()
        assert next(chunks) == b"first;"
        # Only now may the generator finish; buffered whole, it would time out.
        assert http.post(f"/release?token={token}").text == "ok"
        assert b"".join(chunks) == b"released"
