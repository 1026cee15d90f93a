"""A notes service built with the micro-framework of ``examples/microframework.py``.

Run it with any of::

    gunicorn examples.notes:wsgi_application
    uvicorn examples.notes:asgi_application
    python -m sansio_http.server examples.notes:asgi_application
"""

from __future__ import annotations

import itertools
from typing import Any

from examples.microframework import Context, Micro
from sansio_http import BadRequest, FormLimits, HTTPError, NotFound, Request, safe_filename

# NOTE: kept in memory for the example; a real service keeps state in a database.

notes = Micro(FormLimits(max_content_length=1024 * 1024))
NOTES: dict[int, str] = {}
NEXT_ID = itertools.count(1)


@notes.route("/")
def index(context: Context) -> str:
    return "POST text to /notes, then GET /notes/<id>.\n"


@notes.route("/notes", methods=["POST"])
def add_note(context: Context) -> Any:
    if context.request.is_json:
        data = context.json()
        text = data.get("text") if isinstance(data, dict) else None
    else:
        text = context.form.get("text")
    if not isinstance(text, str) or not text:
        raise BadRequest("Send a non-empty 'text' field.")
    note_id = next(NEXT_ID)
    NOTES[note_id] = text
    location = notes.url_for("get_note", id=note_id)
    return {"id": note_id, "text": text}, 201, {"Location": location}


@notes.route("/notes/<int:id>")
def get_note(context: Context, id: int) -> Any:
    if id not in NOTES:
        raise NotFound(f"There is no note {id}.")
    return {"id": id, "text": NOTES[id]}


@notes.route("/attachments", methods=["POST"])
def attach(context: Context) -> Any:
    upload = context.files.get("file")
    if upload is None:
        raise BadRequest("Send a file in the 'file' field.")
    return {"name": safe_filename(upload.filename), "size": upload.size}


def not_found(request: Request, error: HTTPError) -> Any:
    return {"error": error.detail}, 404


notes.error_handlers[404] = not_found


wsgi_application = notes.as_wsgi()
asgi_application = notes.as_asgi()
