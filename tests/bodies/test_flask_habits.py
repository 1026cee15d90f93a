"""Flask habits on the request side: clear errors, and ``UploadedFile.save(path)``.

``request.form``, ``request.files`` and ``request.json`` are awaited methods
here. A view written the Flask way (``request.form["name"]``) gets a
``BodyMethodError`` (a ``RuntimeError``, which templates do not swallow)
that names both of our spellings, not Python's "'method' object is not
subscriptable"; awaiting the methods works as it always did. An upload
saves to a path as well as to a file object, as Flask's does.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Literal

import pytest
from typing_extensions import assert_type

from sansio_http import (
    App,
    AppConfig,
    BodyMethodError,
    BodyRequest,
    FormDecoder,
    ImmutableMultiDict,
    UploadedFile,
    current_request,
)
from sansio_http.bodies._formdata import Opener
from sansio_http.testing import Client

from .test_body import MemoryRequest

Interface = Literal["wsgi", "asgi"]

# Each awaited read, with the blocking spelling its message names.
READS = [("form", "get_form"), ("files", "get_files"), ("json", "get_json")]

# What a Flask habit does with request.form, request.files or request.json.
HABITS: dict[str, Callable[[Any], object]] = {
    "subscript": lambda read: read["x"],
    "get": lambda read: read.get("x"),
    "getlist": lambda read: read.getlist("x"),
    "items": lambda read: read.items(),
    "keys": lambda read: read.keys(),
    "to_dict": lambda read: read.to_dict(),
    "in": lambda read: "x" in read,
    "iterate": lambda read: list(read),
    "len": lambda read: len(read),
    "truth": lambda read: bool(read),
}


def message(name: str, blocking: str) -> str:
    return (
        f"request.{name} is a method: in a def view call request.{blocking}(); "
        f"in an async def view, await request.{name}()"
    )


def form_request() -> MemoryRequest:
    return MemoryRequest(b"x=1&x=2", "application/x-www-form-urlencoded")


# -- the error a habit gets, without a view -------------------------------------------


@pytest.mark.parametrize("habit", list(HABITS))
@pytest.mark.parametrize(("name", "blocking"), READS)
def test_a_flask_habit_names_both_spellings(name: str, blocking: str, habit: str) -> None:
    read = getattr(form_request(), name)
    with pytest.raises(BodyMethodError) as raised:
        HABITS[habit](read)
    assert str(raised.value) == message(name, blocking)


def test_awaiting_the_reads_works_as_before() -> None:
    async def main() -> None:
        request = form_request()
        form = await request.form()
        files = await request.files()
        assert_type(form, ImmutableMultiDict[str, str])
        assert_type(files, ImmutableMultiDict[str, UploadedFile])
        assert form.getlist("x") == ["1", "2"]
        assert len(files) == 0
        as_json = MemoryRequest(b'{"k": [1]}', "application/json")
        assert await as_json.json() == {"k": [1]}
        # Called through the class, as a plain method could be.
        assert (await BodyRequest.form(request)).getlist("x") == ["1", "2"]

    asyncio.run(main())


def test_a_read_is_still_a_bound_method_to_introspection() -> None:
    request = form_request()
    assert request.form == request.form
    assert request.form != request.files
    assert hash(request.form) == hash(request.form)
    assert request.form.__self__ is request
    assert "form" in repr(request.form)
    # Other attributes are missing, not errors: hasattr and getattr with a
    # default keep working on the bound read.
    assert not hasattr(request.form, "no_such_attribute")
    assert getattr(request.json, "__wrapped__", None) is None
    assert callable(request.form)


def test_the_class_attribute_documents_the_method() -> None:
    assert inspect.iscoroutinefunction(BodyRequest.form)
    assert inspect.iscoroutinefunction(form_request().json)
    assert str(inspect.signature(BodyRequest.json)) == (
        "(self, *, force: 'bool' = False, silent: 'bool' = False) -> 'Any'"
    )
    assert BodyRequest.form.__name__ == "form"
    assert "form body" in (BodyRequest.form.__doc__ or "")
    assert "force" in (BodyRequest.json.__doc__ or "")


# -- through the App, one view source under both adapters ------------------------------


def habits_app(**config: Any) -> App:
    app = App("habits", config=AppConfig(**config))

    @app.post("/sync/form")
    def sync_form(request: BodyRequest) -> str:
        habit: Any = request.form
        return str(habit["name"])

    @app.post("/async/json")
    async def async_json(request: BodyRequest) -> str:
        habit: Any = request.json
        return str(habit["name"])

    @app.post("/sync/current")
    def sync_current(request: BodyRequest) -> str:
        # Flask's `from flask import request`, spelled here.
        habit: Any = current_request.form
        return str(habit.get("name"))

    @app.post("/async/files")
    async def async_files(request: BodyRequest) -> str:
        habit: Any = request.files
        return str(habit.get("upload"))

    return app


CASES = [
    ("/sync/form", {"data": {"name": "x"}}, message("form", "get_form")),
    ("/sync/current", {"data": {"name": "x"}}, message("form", "get_form")),
    ("/async/json", {"json": {"name": "x"}}, message("json", "get_json")),
    ("/async/files", {"files": {"upload": ("a.txt", b"a")}}, message("files", "get_files")),
]


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize(("path", "body", "expected"), CASES)
def test_a_view_with_a_habit_raises_the_message(
    interface: Interface, path: str, body: dict[str, Any], expected: str
) -> None:
    client = Client(habits_app(), interface=interface)
    with pytest.raises(BodyMethodError) as raised:
        client.post(path, **body)
    assert str(raised.value) == expected


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize(("path", "body", "expected"), CASES)
def test_the_client_gets_a_plain_500_and_the_log_the_message(
    interface: Interface,
    path: str,
    body: dict[str, Any],
    expected: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR)
    client = Client(habits_app(), interface=interface, raise_app_exceptions=False)
    response = client.post(path, **body)
    assert response.status_code == 500
    assert "is a method" not in response.text
    assert expected in caplog.text


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_the_debug_page_shows_the_message(
    interface: Interface, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    client = Client(
        habits_app(debug=True),
        interface=interface,
        base_url="http://localhost:8000",
        raise_app_exceptions=False,
    )
    response = client.post("/sync/form", data={"name": "x"})
    assert response.status_code == 500
    # The page escapes the message's apostrophes; its words are there.
    assert "request.form is a method: in a def view call request.get_form()" in response.text


# -- UploadedFile.save ---------------------------------------------------------------


def open_for_writing(path: str | os.PathLike[str]) -> BinaryIO:
    return open(path, "wb")


def upload(data: bytes, opener: Opener | None = open_for_writing) -> UploadedFile:
    stream = io.BytesIO(data)
    stream.seek(len(data) // 2)  # save() copies from the start whatever the position
    return UploadedFile(
        "upload", "a.bin", "application/octet-stream", [], stream, len(data), opener=opener
    )


DATA = bytes(range(256)) * 300


@pytest.mark.parametrize("as_path", [str, Path])
def test_save_to_a_path_writes_and_closes_the_file(
    tmp_path: Path, as_path: Callable[[Path], str | Path]
) -> None:
    target = tmp_path / "saved.bin"
    target.write_bytes(b"an older, longer file" * 10_000)
    assert upload(DATA).save(as_path(target)) == len(DATA)
    # Truncated, not overwritten in place; and flushed, so closed.
    assert target.read_bytes() == DATA


class RecordingFile(io.BytesIO):
    def __init__(self) -> None:
        super().__init__()
        self.saved = b""

    def close(self) -> None:
        self.saved = self.getvalue()
        super().close()


def test_save_to_a_path_goes_through_the_opener_and_closes_its_file() -> None:
    opened: list[object] = []
    files: list[RecordingFile] = []

    def opener(path: str | os.PathLike[str]) -> RecordingFile:
        opened.append(path)
        files.append(RecordingFile())
        return files[-1]

    assert upload(DATA, opener).save("any/where.bin") == len(DATA)
    assert opened == ["any/where.bin"]
    assert files[0].closed
    assert files[0].saved == DATA


def test_save_to_a_path_without_an_opener_names_the_fix() -> None:
    # The core opens no file: an upload decoded without an adapter's opener
    # takes a file object only, and says so.
    with pytest.raises(TypeError, match="pass a file opened 'wb' instead"):
        upload(DATA, opener=None).save("where.bin")


def test_a_decoder_gives_its_uploads_its_opener(tmp_path: Path) -> None:
    body = (
        b"--b\r\ncontent-disposition: form-data; name=f; filename=a.bin\r\n\r\n"
        + DATA
        + b"\r\n--b--\r\n"
    )
    decoder = FormDecoder("multipart/form-data", {"boundary": "b"}, opener=open_for_writing)
    decoder.feed(body)
    _, files = decoder.close()
    files["f"].save(tmp_path / "f.bin")
    assert (tmp_path / "f.bin").read_bytes() == DATA


def test_save_to_a_file_object_leaves_it_open(tmp_path: Path) -> None:
    with (tmp_path / "saved.bin").open("wb") as file:
        assert upload(DATA).save(file) == len(DATA)
        assert not file.closed
    assert (tmp_path / "saved.bin").read_bytes() == DATA


class Recorder:
    def __init__(self) -> None:
        self.writes: list[int] = []

    def write(self, data: bytes) -> int:
        self.writes.append(len(data))
        return len(data)


def test_save_writes_in_buffer_size_chunks() -> None:
    recorder = Recorder()
    assert upload(DATA).save(recorder, buffer_size=10_000) == len(DATA)
    assert recorder.writes == [10_000] * 7 + [len(DATA) - 70_000]


def test_save_to_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        upload(DATA).save(tmp_path)


@pytest.mark.parametrize("size", [0, -1])
def test_save_refuses_a_buffer_size_below_one(size: int) -> None:
    with pytest.raises(ValueError, match="buffer_size must be an int >= 1"):
        upload(DATA).save(io.BytesIO(), buffer_size=size)


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_a_view_saves_an_upload_to_a_path(interface: Interface, tmp_path: Path) -> None:
    app = App("saves")

    @app.post("/sync")
    def sync_save(request: BodyRequest) -> str:
        return str(request.get_files()["upload"].save(tmp_path / "sync.bin"))

    @app.post("/async")
    async def async_save(request: BodyRequest) -> str:
        return str((await request.files())["upload"].save(str(tmp_path / "async.bin")))

    client = Client(app, interface=interface)
    for kind in ("sync", "async"):
        response = client.post(f"/{kind}", files={"upload": ("a.bin", DATA)})
        assert (response.status_code, response.text) == (200, str(len(DATA)))
        assert (tmp_path / f"{kind}.bin").read_bytes() == DATA


# -- in a template --------------------------------------------------------------------

TEMPLATES = {
    "subscript": "{{ request.form['name'] }}",
    "get": "{{ request.form.get('name') }}",
    "test": "{% if request.form %}yes{% endif %}",
    "loop": "{% for key in request.form %}{{ key }}{% endfor %}",
}


def test_the_error_is_not_one_a_template_swallows() -> None:
    # Jinja2 (and Django's templates) turn these into an undefined value.
    assert not issubclass(BodyMethodError, (TypeError, AttributeError, LookupError))
    assert issubclass(BodyMethodError, RuntimeError)


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize("source", list(TEMPLATES.values()), ids=list(TEMPLATES))
def test_a_habit_in_a_jinja2_template_is_an_error_not_empty(
    interface: Interface, source: str
) -> None:
    jinja2 = pytest.importorskip("jinja2")
    template = jinja2.Environment(autoescape=True).from_string(source)
    app = App("templates")

    @app.post("/")
    def page(request: BodyRequest) -> str:
        return str(template.render(request=request))

    client = Client(app, interface=interface)
    with pytest.raises(BodyMethodError, match=r"request\.form is a method"):
        client.post("/", data={"name": "x"})


# -- get_json(silent=True), Flask's way to get None ---------------------------------------


def silent_app() -> App:
    app = App("silent")

    @app.post("/sync")
    def sync_view(request: BodyRequest) -> dict[str, Any]:
        return {"value": request.get_json(silent=True)}

    @app.post("/async")
    async def async_view(request: BodyRequest) -> dict[str, Any]:
        return {"value": await request.json(silent=True)}

    @app.post("/strict")
    def strict(request: BodyRequest) -> dict[str, Any]:
        return {"value": request.get_json()}

    return app


SILENT_CASES = [
    ({"json": {"a": [1]}}, {"a": [1]}),
    ({"content": b"{", "headers": {"content-type": "application/json"}}, None),
    ({"content": b"", "headers": {"content-type": "application/json"}}, None),
    ({"content": b'{"a": 1}', "headers": {"content-type": "text/plain"}}, None),
    ({"content": b'{"a": 1}'}, None),
    ({"data": {"a": "1"}}, None),
]


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize("path", ["/sync", "/async"])
@pytest.mark.parametrize(("body", "expected"), SILENT_CASES)
def test_silent_returns_none_for_a_missing_bad_or_non_json_body(
    interface: Interface, path: str, body: dict[str, Any], expected: object
) -> None:
    response = Client(silent_app(), interface=interface).post(path, **body)
    assert response.status_code == 200
    assert response.json() == {"value": expected}


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_without_silent_a_non_json_type_is_415_and_bad_json_400(interface: Interface) -> None:
    client = Client(silent_app(), interface=interface, raise_app_exceptions=False)
    assert (
        client.post("/strict", content=b"{}", headers={"content-type": "text/plain"}).status_code
        == 415
    )
    assert (
        client.post(
            "/strict", content=b"{", headers={"content-type": "application/json"}
        ).status_code
        == 400
    )


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize("path", ["/sync", "/async"])
def test_silent_does_not_hide_a_body_too_large(interface: Interface, path: str) -> None:
    app = silent_app()
    app.config.max_content_length = 4
    client = Client(app, interface=interface, raise_app_exceptions=False)
    assert client.post(path, json={"a": "long enough"}).status_code == 413
