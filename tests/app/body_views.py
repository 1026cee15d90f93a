"""One App whose views read the body, each as a def and an async def view.

The same module is mounted with ``to_wsgi`` and ``to_asgi``, in process by
the test client and as real gunicorn, uvicorn and development-server
processes, so that every view runs with the same source under every adapter.
``/sync/<case>`` and ``/async/<case>`` answer the same way for the same body.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sansio_http import App, AppConfig, BodyRequest
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi

#: The body limit of the App: a larger body is a 413 under every adapter.
MAX_BODY = 64 * 1024

app = App("body-views", config=AppConfig(max_content_length=MAX_BODY))


def digest(data: bytes) -> dict[str, Any]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def describe_form(form: Any, files: Any) -> dict[str, Any]:
    return {
        "form": form.to_dict(flat=False),
        "files": {
            name: {"filename": upload.filename, **digest(upload.read())}
            for name, upload in files.items(multi=True)
        },
    }


# -- def views: the blocking spelling ----------------------------------------


@app.post("/sync/raw")
def sync_raw(request: BodyRequest) -> dict[str, Any]:
    return digest(request.get_data())


@app.post("/sync/stream")
def sync_stream(request: BodyRequest) -> dict[str, Any]:
    sizes = [len(chunk) for chunk in request.iter_data()]
    return {"size": sum(sizes), "empty_chunks": sizes.count(0), "read": request.bytes_read}


@app.post("/sync/form")
def sync_form(request: BodyRequest) -> dict[str, Any]:
    return describe_form(request.get_form(), request.get_files())


@app.post("/sync/json")
def sync_json(request: BodyRequest) -> dict[str, Any]:
    return {"json": request.get_json()}


@app.post("/sync/facts")
def sync_facts(request: BodyRequest) -> dict[str, Any]:
    request.state.seen = True
    return {
        "disconnected": request.check_disconnected(),
        "version": request.http_version,
        "raw_path": (request.raw_path or b"").decode("latin-1"),
        "state": dict(request.state),
    }


# -- async def views: the awaited spelling -----------------------------------


@app.post("/async/raw")
async def async_raw(request: BodyRequest) -> dict[str, Any]:
    return digest(await request.body())


@app.post("/async/stream")
async def async_stream(request: BodyRequest) -> dict[str, Any]:
    sizes = [len(chunk) async for chunk in request.stream()]
    return {"size": sum(sizes), "empty_chunks": sizes.count(0), "read": request.bytes_read}


@app.post("/async/form")
async def async_form(request: BodyRequest) -> dict[str, Any]:
    return describe_form(await request.form(), await request.files())


@app.post("/async/json")
async def async_json(request: BodyRequest) -> dict[str, Any]:
    return {"json": await request.json()}


@app.post("/async/facts")
async def async_facts(request: BodyRequest) -> dict[str, Any]:
    request.state.seen = True
    return {
        "disconnected": await request.is_disconnected(),
        "version": request.http_version,
        "raw_path": (request.raw_path or b"").decode("latin-1"),
        "state": dict(request.state),
    }


@app.post("/async/misuse")
async def async_misuse(request: BodyRequest) -> dict[str, Any]:
    # A blocking read inside a coroutine is refused the same way everywhere.
    try:
        request.get_data()
    except RuntimeError as exc:
        return {"error": str(exc)}
    return {"error": None}


wsgi_application = to_wsgi(app)
asgi_application = to_asgi(app)
