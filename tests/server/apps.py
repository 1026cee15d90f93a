"""Small WSGI and ASGI applications that the server tests run."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

Environ = dict[str, Any]
StartResponse = Callable[..., Any]


def echo_wsgi(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
    """Answer with the method, path and body of the request."""
    path = environ["PATH_INFO"]
    if path == "/crash":
        raise RuntimeError("boom")
    if path == "/ignore-body":
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]
    if path == "/stream":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return (str(i).encode() for i in range(5))
    # wsgi.input_terminated: reading to the end is safe, even when chunked.
    body = b"".join(iter(lambda: environ["wsgi.input"].read(65536), b""))
    text = f"{environ['REQUEST_METHOD']} {path} {len(body)} ".encode() + body
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(text)))])
    return [text]


Scope = MutableMapping[str, Any]


async def echo_asgi(scope: Scope, receive: Callable[..., Any], send: Callable[..., Any]) -> None:
    """Answer with the path and body; echo websocket text."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                scope["state"]["greeting"] = "hello"
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            await send({"type": "websocket.send", "text": "echo:" + message.get("text", "")})
    if scope["path"] == "/crash":
        raise RuntimeError("boom")
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    text = f"{scope['path']} {scope['state'].get('greeting')} ".encode() + body
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/plain")],
        }
    )
    await send({"type": "http.response.body", "body": text})


def facts_wsgi(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
    """Answer with what the environ says of the request, as JSON."""
    facts = {
        "path": environ["PATH_INFO"],
        "query": environ["QUERY_STRING"],
        "host": environ.get("HTTP_HOST"),
        "scheme": environ["wsgi.url_scheme"],
        "http": {k: v for k, v in environ.items() if k.startswith("HTTP_")},
    }
    body = json.dumps(facts).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    start_response("200 OK", headers)
    return [body]


async def facts_asgi(scope: Scope, receive: Callable[..., Any], send: Callable[..., Any]) -> None:
    """Answer with what the scope says of the request, as JSON."""
    if scope["type"] == "lifespan":
        return
    hosts = [v.decode("latin-1") for n, v in scope["headers"] if n == b"host"]
    facts = {
        "path": scope["path"],
        "query": scope["query_string"].decode("latin-1"),
        "host": hosts[0] if len(hosts) == 1 else hosts,
        "names": [n.decode("latin-1") for n, _ in scope["headers"]],
    }
    body = json.dumps(facts).encode()
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
