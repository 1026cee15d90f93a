"""Drive the example micro-framework and its notes service under WSGI and ASGI.

Each test runs twice, through ``wsgi_application`` and ``asgi_application``,
with the in-process test client; the WSGI side also passes ``wsgiref.validate``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from wsgiref.validate import validator

import pytest

from examples import microframework, notes
from sansio_http import BadRequest, FormLimits, NotFound, ProxyPolicy, Request, Response
from sansio_http.testing import Client

EXAMPLES = Path(microframework.__file__).resolve().parent


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def client_for(app: microframework.Micro, interface: str, *, raise_errors: bool = True) -> Client:
    if interface == "wsgi":
        return Client(validator(app.as_wsgi()), interface="wsgi", raise_app_exceptions=raise_errors)
    return Client(app.as_asgi(), interface="asgi", raise_app_exceptions=raise_errors)


@pytest.fixture
def client(interface: str) -> Iterator[Client]:
    notes.NOTES.clear()
    with client_for(notes.notes, interface) as client:
        yield client


def test_the_framework_stays_under_150_lines() -> None:
    lines = (EXAMPLES / "microframework.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150


def test_the_module_level_applications_are_the_two_adapters() -> None:
    wsgi = Client(notes.wsgi_application, interface="wsgi")
    asgi = Client(notes.asgi_application, interface="asgi")
    assert wsgi.get("/").text == asgi.get("/").text
    assert wsgi.get("/").status_code == asgi.get("/").status_code == 200


def test_index_is_text(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.text.startswith("POST text to /notes")


def test_head_is_answered_by_the_get_view_without_a_body(client: Client) -> None:
    response = client.head("/")
    assert response.status_code == 200
    assert response.content == b""


def test_a_form_note_is_created_then_read(client: Client) -> None:
    created = client.post("/notes", data={"text": "buy milk"})
    assert created.status_code == 201
    assert created.headers["content-type"] == "application/json"
    note = created.json()
    assert note["text"] == "buy milk"
    assert created.headers["location"] == f"/notes/{note['id']}"
    read = client.get(created.headers["location"])
    assert read.status_code == 200
    assert read.json() == note


def test_a_json_note_is_created(client: Client) -> None:
    created = client.post("/notes", json={"text": "café"})
    assert created.status_code == 201
    assert created.json()["text"] == "café"


@pytest.mark.parametrize(
    "options",
    [
        {"data": {"other": "x"}},
        {"data": {"text": ""}},
        {"json": {"text": 3}},
        {"json": ["text"]},
        {"content": b"{not json", "headers": {"content-type": "application/json"}},
    ],
    ids=["no-field", "empty", "not-text", "not-an-object", "invalid-json"],
)
def test_a_bad_note_is_a_400(client: Client, options: dict[str, Any]) -> None:
    response = client.post("/notes", **options)
    assert response.status_code == 400


def test_a_malformed_multipart_body_is_a_400_not_a_415(client: Client) -> None:
    response = client.post(
        "/notes",
        content=b"--b\r\nContent-Disposition: form-data; name=text\r\n\r\nhi\r\n",  # cut off
        headers={"content-type": "multipart/form-data; boundary=b"},
    )
    assert response.status_code == 400


def test_a_missing_note_goes_to_the_404_handler(client: Client) -> None:
    response = client.get("/notes/999")
    assert response.status_code == 404
    assert response.json() == {"error": "There is no note 999."}


def test_an_unknown_path_goes_to_the_404_handler_too(client: Client) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.json() == {"error": NotFound.description}


def test_a_converter_mismatch_is_a_404(client: Client) -> None:
    assert client.get("/notes/abc").status_code == 404


def test_a_wrong_method_is_a_405_with_allow(client: Client) -> None:
    response = client.get("/notes")
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]


def test_an_upload_is_spooled_and_its_name_made_safe(client: Client) -> None:
    data = b"x" * 70_000
    response = client.post(
        "/attachments",
        files={"file": ("../../etc/passwd", io.BytesIO(data), "text/plain")},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["size"] == len(data)
    assert body["name"] == "passwd"


def test_an_upload_without_a_file_is_a_400(client: Client) -> None:
    response = client.post("/attachments", data={"file": "not a file"})
    assert response.status_code == 400


def test_a_body_over_the_limit_is_a_413(client: Client) -> None:
    response = client.post("/notes", data={"text": "x" * (1024 * 1024 + 1)})
    assert response.status_code == 413


def test_a_raw_body_over_the_limit_is_a_413(client: Client) -> None:
    big = json.dumps({"text": "x" * (1024 * 1024)}).encode()
    response = client.post("/notes", content=big, headers={"content-type": "application/json"})
    assert response.status_code == 413


# -- the framework's pieces on an application of the test's own -------------------------


def make_app() -> microframework.Micro:
    app = microframework.Micro(FormLimits(max_form_parts=2))

    @app.route("/echo/<path:rest>", methods=["GET", "POST"])
    def echo(context: microframework.Context, rest: str) -> Any:
        return {"rest": rest, "form": context.form.to_dict(flat=False), "body": len(context.body)}

    @app.route("/bytes")
    def raw(context: microframework.Context) -> bytes:
        return b"\x00\x01"

    @app.route("/response")
    def response(context: microframework.Context) -> Response:
        return Response("made", 202)

    @app.route("/teapot")
    def teapot(context: microframework.Context) -> tuple[str, int]:
        return "short and stout", 418

    @app.route("/refuse")
    def refuse(context: microframework.Context) -> str:
        raise BadRequest("No.")

    @app.route("/crash")
    def crash(context: microframework.Context) -> str:
        raise RuntimeError("boom")

    @app.route("/dir/")
    def directory(context: microframework.Context) -> str:
        return "dir"

    def bad_request(request: Request, error: BadRequest) -> Any:
        return {"bad": error.detail, "path": request.path}, 400

    app.error_handlers[400] = bad_request
    return app


@pytest.fixture
def own(interface: str) -> Iterator[Client]:
    with client_for(make_app(), interface) as client:
        yield client


def test_return_values_become_responses(own: Client) -> None:
    assert own.get("/bytes").content == b"\x00\x01"
    made = own.get("/response")
    assert (made.status_code, made.text) == (202, "made")
    teapot = own.get("/teapot")
    assert (teapot.status_code, teapot.text) == (418, "short and stout")


def test_path_values_and_form_fields_reach_the_view(own: Client) -> None:
    response = own.post("/echo/a/b", data={"x": "1"})
    assert response.json() == {"rest": "a/b", "form": {"x": ["1"]}, "body": 0}


def test_a_raw_body_reaches_the_view(own: Client) -> None:
    response = own.post("/echo/r", content=b"abc", headers={"content-type": "text/plain"})
    assert response.json()["body"] == 3


def test_a_view_error_goes_to_the_handler_of_its_status(own: Client) -> None:
    response = own.get("/refuse")
    assert response.json() == {"bad": "No.", "path": "/refuse"}


def test_a_broken_form_limit_is_mapped_while_feeding(own: Client) -> None:
    response = own.post("/echo/x", data={"a": "1", "b": "2", "c": "3"})
    assert response.status_code == 413


def test_a_crash_is_a_bare_500(interface: str) -> None:
    app = make_app()
    with client_for(app, interface, raise_errors=False) as client:
        response = client.get("/crash")
    assert response.status_code == 500
    assert "boom" not in response.text


def test_a_crash_is_raised_in_the_test(interface: str) -> None:
    with client_for(make_app(), interface) as client, pytest.raises(RuntimeError, match="boom"):
        client.get("/crash")


def test_a_missing_slash_is_a_308(own: Client) -> None:
    response = own.get("/dir")
    assert response.status_code == 308
    assert response.headers["location"] == "/dir/"


def test_a_proxy_policy_is_applied_before_routing() -> None:
    app = microframework.Micro(proxy=ProxyPolicy(x_prefix=1))

    @app.route("/where")
    def where(context: microframework.Context) -> Any:
        return {"root": context.request.root_path, "url": context.request.url}

    response = Client(app.as_wsgi()).get("/where", headers={"x-forwarded-prefix": "/api"})
    assert response.json() == {"root": "/api", "url": "http://testserver/api/where"}
