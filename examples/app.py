"""The example application that ``make serve`` runs.

It shows the toolkit end to end: an HTML page, a JSON endpoint, an upload
form that reports what it received, an ``async`` view, and the built-in
middleware: CORS for the JSON endpoints, gzip, and a signed-cookie session
that counts visits. The dev server serves it through the ASGI adapter;
``sansio_http.wsgi.to_wsgi(app)`` serves the same App, with the same views
and middleware, under gunicorn.

Settings come from the environment: ``EXAMPLE_SECRET_KEY`` signs the session
cookie (a random key otherwise, so sessions end when the server restarts),
and ``EXAMPLE_CORS_ORIGINS`` lists, separated by spaces, the origins whose
pages may call the API (``http://localhost:3000`` otherwise).
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import os
import secrets
from typing import Any

from sansio_http import (
    App,
    BodyRequest,
    CORSMiddleware,
    GZipMiddleware,
    Request,
    Response,
    SessionMiddleware,
)

SECRET_KEY = os.environ.get("EXAMPLE_SECRET_KEY") or secrets.token_urlsafe(32)
CORS_ORIGINS = os.environ.get("EXAMPLE_CORS_ORIGINS", "http://localhost:3000").split()

app = App("example")
# Outermost first: CORS answers preflights before anything else runs, and
# its fields reach every response; the session cookie is set on the way out.
app.add_middleware(
    CORSMiddleware(CORS_ORIGINS, allow_methods=["GET", "POST"], allow_credentials=True)
)
app.add_middleware(GZipMiddleware())
app.add_middleware(SessionMiddleware(SECRET_KEY))

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>sansio-http example</title></head>
<body>
<h1>sansio-http</h1>
<p>This page comes from <code>examples/app.py</code>, served by the h11
development server through the ASGI adapter.</p>
<ul>
  <li><a href="/api/hello?name=visitor">/api/hello?name=visitor</a>: a JSON endpoint</li>
  <li><a href="/later">/later</a>: an <code>async def</code> view</li>
  <li><a href="/api/visits">/api/visits</a>: visits counted in a signed-cookie session</li>
</ul>
<h2>Upload</h2>
<form id="upload" method="post" action="/upload" enctype="multipart/form-data">
  <p><label>Your name <input name="name" value=""></label></p>
  <p><label>A file <input type="file" name="file"></label></p>
  <p><button type="submit">Send</button></p>
</form>
</body>
</html>
"""


@app.get("/")
def index(request: Request) -> Response:
    """Serve the HTML page."""
    return Response(PAGE, content_type="text/html; charset=utf-8")


@app.get("/api/hello")
def hello(request: Request) -> dict[str, Any]:
    """Greet the ``name`` query argument as JSON."""
    return {"hello": request.args.get("name", "world"), "path": request.path}


@app.get("/api/visits")
def visits(request: Request) -> dict[str, int]:
    """Count this browser's visits in its session."""
    session = request.state.session
    session["visits"] = session.get("visits", 0) + 1
    return {"visits": session["visits"]}


@app.get("/later")
async def later(request: Request) -> str:
    """Wait a little without blocking the server, then answer."""
    await asyncio.sleep(0.05)
    return "This answer came from an async view.\n"


@app.post("/upload")
async def upload(request: BodyRequest) -> Response:
    """Report the fields and files of the submitted form."""
    # An async view awaits the body under both adapters; a def view would
    # call request.get_form() and request.get_files() instead.
    form = await request.form()
    files = await request.files()
    rows = [
        f"<li>field <b>{html.escape(name)}</b> = {html.escape(value)!s}</li>"
        for name, value in form.items(multi=True)
    ]
    for name, upload in files.items(multi=True):
        data = upload.read()
        rows.append(
            f"<li>file <b>{html.escape(name)}</b>: "
            f"<span class='filename'>{html.escape(upload.filename or '')}</span>, "
            f"<span class='size'>{len(data)}</span> bytes, "
            f"{html.escape(upload.content_type or '')}, "
            f"sha256 <code class='sha256'>{hashlib.sha256(data).hexdigest()}</code></li>"
        )
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<title>Received</title></head><body><h1>Received</h1><ul id='received'>"
        + "".join(rows)
        + "</ul><p><a href='/'>Back</a></p></body></html>"
    )
    return Response(page, content_type="text/html; charset=utf-8")
