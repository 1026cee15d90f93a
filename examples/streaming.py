"""Streaming tokens to a browser as server-sent events.

A fake language model writes an answer a token at a time; the page at ``/``
shows the tokens as they arrive, through the browser's ``EventSource``. Each
token is an event with an id: when the connection drops, the browser
reconnects by itself and sends the last id it got as ``Last-Event-ID``, and
the stream resumes after it. The same stream comes from an ``async def``
generator (``/tokens``) and from a ``def`` generator (``/tokens/sync``), and
the App is mounted under both interfaces::

    python -m sansio_http.server examples.streaming:asgi_application
    gunicorn --worker-class gthread --threads 8 examples.streaming:wsgi_application
    uvicorn examples.streaming:asgi_application

After each stream, work the client need not wait for runs: a record of what
was sent (:meth:`Response.call_on_close <sansio_http.Response.call_on_close>`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from sansio_http import App, EventStream, Request, Response, ServerSentEvent
from sansio_http.asgi import to_asgi
from sansio_http.wsgi import to_wsgi

#: The answer the fake model writes, a word at a time.
ANSWER = (
    "Server-sent events push text to the browser over one long response: "
    "each event is flushed as it is made, and the browser reconnects on its own."
).split()
#: Seconds between two tokens; ``STREAMING_DELAY=0`` for none.
DELAY = float(os.environ.get("STREAMING_DELAY", "0.08"))
#: What was sent, one record per stream, written after the stream ended.
SENT: list[dict[str, Any]] = []

app = App("streaming")

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Streaming tokens</title></head>
<body>
<h1>A fake model, token by token</h1>
<p><button id="async">Ask (async def)</button> <button id="sync">Ask (def)</button></p>
<p id="answer"></p>
<p><small>last event id: <span id="last">none</span>, connections: <span
  id="opened">0</span></small></p>
<script>
let source = null;
function ask(url) {
  if (source) source.close();
  document.getElementById("answer").textContent = "";
  source = new EventSource(url);
  source.addEventListener("open", () => {
    const opened = document.getElementById("opened");
    opened.textContent = Number(opened.textContent) + 1;
  });
  source.addEventListener("token", (event) => {
    document.getElementById("answer").textContent += JSON.parse(event.data).text + " ";
    document.getElementById("last").textContent = event.lastEventId;
  });
  // The answer is complete: stop, or the browser would reconnect.
  source.addEventListener("done", () => source.close());
}
document.getElementById("async").onclick = () => ask("/tokens");
document.getElementById("sync").onclick = () => ask("/tokens/sync");
</script>
</body>
</html>
"""


def _first(request: Request) -> int:
    """Return the index of the first token to send: after Last-Event-ID, if any."""
    last = request.last_event_id
    if last is not None and last.isdigit():
        return min(int(last) + 1, len(ANSWER))
    return 0


def _token(index: int) -> ServerSentEvent:
    return ServerSentEvent({"text": ANSWER[index]}, event="token", id=index)


async def tokens(first: int, sent: dict[str, Any]) -> AsyncIterator[ServerSentEvent]:
    """Write the answer from token ``first`` on, as an ``async def`` generator."""
    # Reconnect a second after a dropped connection (the browser's default is
    # about three).
    yield ServerSentEvent(retry=1000)
    for index in range(first, len(ANSWER)):
        await asyncio.sleep(DELAY)
        sent["last_id"] = index
        yield _token(index)
    yield ServerSentEvent({"tokens": len(ANSWER)}, event="done")
    sent["complete"] = True


def tokens_sync(first: int, sent: dict[str, Any]) -> Iterator[ServerSentEvent]:
    """Write the answer as :func:`tokens` does, from a ``def`` generator."""
    yield ServerSentEvent(retry=1000)
    for index in range(first, len(ANSWER)):
        time.sleep(DELAY)
        sent["last_id"] = index
        yield _token(index)
    yield ServerSentEvent({"tokens": len(ANSWER)}, event="done")
    sent["complete"] = True


@app.get("/")
def index(request: Request) -> Response:
    """Serve the page."""
    return Response(PAGE, content_type="text/html; charset=utf-8")


def _stream(request: Request, kind: str) -> Response:
    first = _first(request)
    sent: dict[str, Any] = {"producer": kind, "first_id": first, "last_id": None}
    producer = tokens(first, sent) if kind == "async" else tokens_sync(first, sent)
    response = EventStream(producer)

    # Runs once the stream has ended, finished or cut short by the client.
    @response.call_on_close
    def record() -> None:
        SENT.append(sent)

    return response


@app.get("/tokens")
def stream_async(request: Request) -> Response:
    """Stream the answer from an ``async def`` generator."""
    return _stream(request, "async")


@app.get("/tokens/sync")
def stream_sync(request: Request) -> Response:
    """Stream the answer from a ``def`` generator."""
    return _stream(request, "sync")


wsgi_application = to_wsgi(app)
asgi_application = to_asgi(app)
