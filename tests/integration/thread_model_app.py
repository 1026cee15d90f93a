"""One App whose ``def`` steps keep per-thread resources across a request.

The views under ``/lane`` have a ``def`` before_request hook that opens a
:mod:`sqlite3` connection (which refuses use from any other thread), keeps
it on ``g``, sets a :class:`threading.local` and notes its thread; the
``def`` view inserts and selects through the connection (read back as
``request.state.db``), reads the thread-local and notes its thread; a
``def`` teardown hook closes the connection and notes its thread and how
the close went, under the request's token, for ``GET /teardown/<token>``
to report once the response is out.

One source for every transport: the test client under ``to_wsgi`` and
``to_asgi`` (:mod:`tests.app.test_thread_model`), and uvicorn, gunicorn and
the development server in both modes (:mod:`tests.integration.test_thread_model`),
which import ``wsgi_application`` and ``asgi_application`` from here.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from sansio_http import App, Blueprint, Request, g
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi

app = App("thread-model")
lane = Blueprint("lane", url_prefix="/lane")

#: Set by the before_request hook, read by the view: per thread.
LOCAL = threading.local()
#: What each request's teardown hook saw, by token, until reported.
TEARDOWNS: dict[str, dict[str, Any]] = {}


@lane.before_request
def open_connection(request: Request) -> None:
    token = request.args["token"]
    g.token = token
    g.hook_thread = threading.get_ident()
    # NOTE: sqlite3 checks the thread by default: a connection used or closed
    # from another thread than the one that opened it raises ProgrammingError.
    g.db = sqlite3.connect(":memory:")
    g.db.execute("CREATE TABLE seen (token TEXT)")
    LOCAL.token = token


@lane.get("/")
def use_connection(request: Request) -> dict[str, Any]:
    token = request.state.token
    db = request.state.db
    db.execute("INSERT INTO seen VALUES (?)", (token,))
    rows = [row[0] for row in db.execute("SELECT token FROM seen")]
    return {
        "hook": request.state.hook_thread,
        "view": threading.get_ident(),
        "local": getattr(LOCAL, "token", None) == token,
        "rows": rows == [token],
    }


@lane.teardown_request
def close_connection(request: Request, exc: BaseException | None) -> None:
    token = request.state.get("token")
    if token is None:
        return
    record: dict[str, Any] = {"thread": threading.get_ident(), "error": repr(exc) if exc else None}
    db = request.state.get("db")
    try:
        if db is not None:
            db.close()
        record["closed"] = True
    except sqlite3.Error as error:
        record["closed"] = repr(error)
    TEARDOWNS[token] = record


@app.get("/teardown/<token>")
def teardown_report(request: Request, token: str) -> dict[str, Any]:
    return TEARDOWNS.pop(token, {})


app.register_blueprint(lane)

wsgi_application = to_wsgi(app)
asgi_application = to_asgi(app)
