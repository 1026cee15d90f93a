"""One small application written twice, as WSGI and as ASGI.

Both call `handle`, which sees the request as plain values and answers with
plain values, so every test runs the same behaviour under both interfaces.
The WSGI side reads ``wsgi.input`` in small pieces (``wsgiref.validate``
wants ``read(size)``); the ASGI side sends each body chunk as its own
message, so streamed responses really stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from sansio_http.asgi._types import Message, Receive, Scope, Send


@dataclass
class Seen:
    """What the application observed, for tests to inspect afterwards."""

    chunks_produced: int = 0
    closed: bool = False
    disconnected: bool = False
    body_messages: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Incoming:
    method: str
    path: str
    root_path: str
    query: str
    scheme: str
    server: tuple[str, int]
    client: str | None
    headers: list[tuple[str, str]]
    body: bytes


Answer = tuple[int, list[tuple[str, str]], Iterator[bytes]]


class Boom(Exception):
    """The error the /error routes raise."""


def _json(value: object, status: int = 200) -> Answer:
    body = json.dumps(value).encode()
    return status, [("Content-Type", "application/json")], iter([body])


def handle(request: Incoming, seen: Seen) -> Answer:
    args = dict(parse_qsl(request.query, keep_blank_values=True))
    path = request.path
    if path.endswith("/set-cookie"):
        headers = [("Content-Type", "text/plain")]
        headers += [("Set-Cookie", value) for _, value in parse_qsl(request.query)]
        return 200, headers, iter([b"set"])
    if path == "/echo" or path.startswith("/echo/"):
        return _json(
            {
                "method": request.method,
                "path": path,
                "root_path": request.root_path,
                "query": request.query,
                "scheme": request.scheme,
                "server": list(request.server),
                "client": request.client,
                "headers": [list(pair) for pair in request.headers],
                "body": request.body.decode("latin-1"),
            }
        )
    if path == "/redirect":
        location = args.get("to", "/echo")
        status = int(args.get("status", "302"))
        return status, [("Location", location), ("Content-Type", "text/plain")], iter([b"moved"])
    if path == "/loop":
        return 302, [("Location", "/loop"), ("Content-Type", "text/plain")], iter([b""])
    if path == "/stream":

        def chunks() -> Iterator[bytes]:
            for number in range(int(args.get("n", "3"))):
                seen.chunks_produced += 1
                yield f"chunk{number};".encode()
            if "fail" in args:
                raise Boom("failed mid-body")

        return 200, [("Content-Type", "text/plain")], chunks()
    if path == "/text":
        charset = args.get("charset", "utf-8")
        return (
            200,
            [("Content-Type", f"text/plain; charset={charset}")],
            iter(["café".encode(charset)]),
        )
    if path == "/error":
        raise Boom("failed before the response")
    if path == "/status":
        return int(args["code"]), [("Content-Type", "text/plain")], iter([b""])
    return 404, [("Content-Type", "text/plain")], iter([b"not found"])


def make_wsgi_app(seen: Seen) -> Any:
    def app(environ: dict[str, Any], start_response: Any) -> Any:
        stream = environ["wsgi.input"]
        body = b"".join(iter(lambda: stream.read(3), b""))
        headers = []
        for key, value in environ.items():
            if key.startswith("HTTP_"):
                headers.append((key[5:].replace("_", "-").lower(), value))
            elif key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                headers.append((key.replace("_", "-").lower(), value))
        request = Incoming(
            method=environ["REQUEST_METHOD"],
            path=environ["PATH_INFO"].encode("latin-1").decode("utf-8") or "/",
            root_path=environ["SCRIPT_NAME"].encode("latin-1").decode("utf-8"),
            query=environ["QUERY_STRING"],
            scheme=environ["wsgi.url_scheme"],
            server=(environ["SERVER_NAME"], int(environ["SERVER_PORT"])),
            client=environ.get("REMOTE_ADDR"),
            headers=sorted(headers),
            body=body,
        )
        status, fields, chunks = handle(request, seen)
        start_response(f"{status} Custom Reason", fields)
        return _Body(chunks, seen)

    return app


class _Body:
    """A WSGI iterable that records its close()."""

    def __init__(self, chunks: Iterator[bytes], seen: Seen) -> None:
        self.chunks = chunks
        self.seen = seen

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks

    def close(self) -> None:
        self.seen.closed = True


def make_asgi_app(seen: Seen) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError("this application does not do lifespan")
        body = b""
        while True:
            message = await receive()
            seen.body_messages += 1
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        root_path = scope["root_path"]
        path = scope["path"][len(root_path) :] or "/"
        client = scope.get("client")
        request = Incoming(
            method=scope["method"],
            path=path,
            root_path=root_path,
            query=scope["query_string"].decode("latin-1"),
            scheme=scope["scheme"],
            server=tuple(scope["server"]),
            client=client[0] if client else None,
            headers=sorted(
                (name.decode("latin-1"), value.decode("latin-1"))
                for name, value in scope["headers"]
            ),
            body=body,
        )
        status, fields, chunks = handle(request, seen)
        if request.method == "HEAD":
            chunks = iter(())  # the checker holds us to RFC 9110 §9.3.2
        headers = [(name.lower().encode(), value.encode("latin-1")) for name, value in fields]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        try:
            for chunk in chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except OSError:
            # ASGI 2.4: the client is gone; the next receive() says so.
            seen.disconnected = (await receive())["type"] == "http.disconnect"
            return
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def drain(receive: Receive) -> list[Message]:
    """Receive messages until the body ends."""
    messages = []
    while True:
        message = await receive()
        messages.append(message)
        if not message.get("more_body", False):
            return messages
