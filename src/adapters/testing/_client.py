"""``Client``: requests to a WSGI or ASGI application, in-process.

The client builds each request once (URL, headers, cookies from its jar,
an encoded body), hands it to the WSGI or the ASGI driver, stores the
cookies the response sets and, when asked, follows redirects. Used with
``with``, it also runs an ASGI application's lifespan around the requests.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, TypedDict, cast

from typing_extensions import Unpack

from sansio_http.app import App
from sansio_http.http._cookies import dump_cookie
from sansio_http.http._headers import Headers, MutableHeaders

from ._asgi import ASGIApp, EventLoop, Lifespan, run_asgi
from ._cookies import CookieJar
from ._multipart import FileSpec, FormData, encode_form, encode_json, encode_multipart
from ._request import ClientRequest, declared_length, resolve_url
from ._response import ClientResponse
from ._websocket import WebSocketSession
from ._wsgi import WSGIApp, run_wsgi

__all__ = ["Client", "Interface", "RequestOptions", "TooManyRedirects", "detect_interface"]

#: The two ways to call an application.
Interface = Literal["wsgi", "asgi"]

HeadersArg = Mapping[str, str] | Iterable[tuple[str, str]] | Headers
# Chrome and Firefox both stop after 20 redirects; so does httpx.
DEFAULT_MAX_REDIRECTS = 20
_BODY_HEADERS = ("content-type", "content-length", "transfer-encoding")


class TooManyRedirects(RuntimeError):
    """Following redirects went past ``max_redirects``."""


class RequestOptions(TypedDict, total=False):
    """The keyword arguments every request method takes.

    Attributes:
        params: Query parameters, added to those in the URL.
        headers: Header fields, replacing the client's fields of the same names.
        cookies: Cookies sent with this request only, over the jar's.
        content: A raw body: bytes, text (sent as UTF-8) or an iterable of
            bytes, sent with chunked transfer coding unless ``headers``
            give a Content-Length; a body shorter than a Content-Length
            given reaches the application as a client gone mid-body.
        data: Form fields, urlencoded (or multipart with ``files``).
        files: Files to upload as ``multipart/form-data``.
        json: A value sent as an ``application/json`` body.
        follow_redirects: Follow redirects for this request.
        root_path: Where the application is mounted (WSGI ``SCRIPT_NAME``).
        scheme: The URL scheme, such as ``"https"``, for this request.
        remote_addr: The client's address, or None for none.
    """

    params: FormData | None
    headers: HeadersArg | None
    cookies: Mapping[str, str] | None
    content: bytes | str | Iterable[bytes] | None
    data: FormData | None
    files: Mapping[str, FileSpec] | Sequence[tuple[str, FileSpec]] | None
    json: Any
    follow_redirects: bool
    root_path: str
    scheme: str
    remote_addr: str | None


def detect_interface(app: object) -> Interface:
    """Tell whether ``app`` is an ASGI or a WSGI application.

    An ASGI application is a coroutine function or an object whose
    ``__call__`` is one; anything else callable is taken for WSGI.

    Args:
        app: The application.

    Returns:
        ``"asgi"`` or ``"wsgi"``.

    Raises:
        TypeError: ``app`` is not callable.
    """
    if inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(
        getattr(app, "__call__", None)  # noqa: B004 (the method itself is inspected)
    ):
        return "asgi"
    if callable(app):
        return "wsgi"
    raise TypeError(f"not a WSGI or ASGI application: {app!r}")


def _mount(app: object, interface: Interface | None) -> tuple[Interface, Callable[..., Any]]:
    """Return the interface and the callable to drive for ``app``."""
    if isinstance(app, App):
        # Imported here: the adapters are optional for the core App, and the
        # client does not otherwise depend on them.
        if interface == "wsgi":
            from sansio_http.wsgi import to_wsgi  # type: ignore[attr-defined,unused-ignore]

            return "wsgi", cast("Callable[..., Any]", to_wsgi(app))
        from sansio_http.asgi import to_asgi  # type: ignore[attr-defined,unused-ignore]

        return "asgi", cast("Callable[..., Any]", to_asgi(app))
    if interface not in (None, "wsgi", "asgi"):
        raise ValueError(f"interface must be 'wsgi' or 'asgi', not {interface!r}")
    chosen = interface or detect_interface(app)
    return chosen, cast("Callable[..., Any]", app)


def _encode_body(
    options: RequestOptions,
) -> tuple[bytes | Iterable[bytes] | None, str | None]:
    """Return ``(body, content_type)`` from the body options; None when absent."""
    given = [key for key in ("content", "json", "data") if options.get(key) is not None]
    files = options.get("files")
    if len(given) > 1 or (files and given and given != ["data"]):
        raise TypeError("pass only one of content=, json= and data= (with files= if any)")
    if files:
        return encode_multipart(options.get("data"), files)
    if "json" in given:
        return encode_json(options["json"])
    if "data" in given:
        return encode_form(cast("FormData", options["data"]))
    content = options.get("content")
    if isinstance(content, str):
        return content.encode("utf-8"), None
    return content, None


class Client:
    """A test client driving a WSGI, ASGI or sansio-http App in-process.

    Args:
        app: A WSGI callable, an ASGI 3 callable or a ``sansio_http.App``.
        interface: ``"wsgi"`` or ``"asgi"`` to override the detection; an
            App is mounted with ``to_asgi`` unless ``"wsgi"`` is asked for.
        base_url: What relative URLs are resolved against.
        root_path: Where the application is mounted; request paths include it.
        remote_addr: The client's address; None for none.
        headers: Header fields sent with every request.
        cookies: Cookies to start the jar with, for the base URL's host.
        follow_redirects: Follow redirects by default.
        max_redirects: How many redirects to follow before giving up.
        raise_app_exceptions: Re-raise what the application raises, rather
            than answer 500 as a server would.
        clock: The jar's clock, a POSIX timestamp; ``time.time`` by default.

    Example:
        >>> def app(environ, start_response):
        ...     start_response("200 OK", [("Content-Type", "text/plain")])
        ...     return [b"Hello"]
        >>> Client(app).get("/").text
        'Hello'
    """

    def __init__(
        self,
        app: object,
        *,
        interface: Interface | None = None,
        base_url: str = "http://testserver",
        root_path: str = "",
        remote_addr: str | None = "127.0.0.1",
        headers: HeadersArg | None = None,
        cookies: Mapping[str, str] | None = None,
        follow_redirects: bool = False,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        raise_app_exceptions: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        #: ``"wsgi"`` or ``"asgi"``: how the application is called.
        self.interface: Interface
        self.interface, self.app = _mount(app, interface)
        self.base_url = base_url
        self.root_path = root_path.rstrip("/")
        self.remote_addr = remote_addr
        #: Header fields sent with every request.
        self.headers = MutableHeaders({"user-agent": "sansio-http-testclient", "accept": "*/*"})
        self.headers.update(Headers(headers))
        #: The cookie jar, kept across requests.
        self.cookies = CookieJar(clock)
        host = resolve_url(base_url, "/").split("/")[2].rpartition("@")[2].partition(":")[0]
        for name, value in (cookies or {}).items():
            self.cookies.set(name, value, domain=host)
        self.follow_redirects = follow_redirects
        self.max_redirects = max_redirects
        self.raise_app_exceptions = raise_app_exceptions
        self._loop: EventLoop | None = None
        self._lifespan: Lifespan | None = None

    # -- lifespan ---------------------------------------------------------------------

    def __enter__(self) -> Client:
        if self._loop is not None:
            raise RuntimeError("the client is already open")
        if self.interface == "asgi":
            self._loop = EventLoop()
            self._lifespan = Lifespan(self.app, self._loop)
            try:
                self._lifespan.startup()
            except BaseException:
                self._loop.close()
                self._loop = self._lifespan = None
                raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Run the lifespan shutdown, if started, and release the event loop."""
        loop, lifespan = self._loop, self._lifespan
        self._loop = self._lifespan = None
        if loop is not None:
            try:
                if lifespan is not None:
                    lifespan.shutdown()
            finally:
                loop.close()

    def _lease(self) -> tuple[EventLoop, Callable[[], None] | None]:
        """Return the loop to run on, and how to release it afterwards."""
        if self._loop is not None:
            return self._loop, None
        loop = EventLoop()
        return loop, loop.close

    @property
    def _state(self) -> dict[str, Any] | None:
        return self._lifespan.state if self._lifespan is not None else None

    # -- building requests ------------------------------------------------------------

    def _cookie_header(self, url: str, extra: Mapping[str, str] | None) -> str | None:
        pairs = [(c.name, c.raw_value) for c in self.cookies.matching(url)]
        if extra:
            pairs = [pair for pair in pairs if pair[0] not in extra]
            pairs += [
                (name, dump_cookie(name, value, path=None)[len(name) + 1 :])
                for name, value in extra.items()
            ]
        return "; ".join(f"{name}={value}" for name, value in pairs) or None

    def _prepare(
        self,
        method: str,
        url: str,
        headers: MutableHeaders,
        body: bytes | Iterable[bytes] | None,
        options: RequestOptions,
    ) -> ClientRequest:
        """Finish a request: Host, Cookie and the body's framing fields."""
        if "host" not in headers:
            headers["host"] = url.split("/")[2].rpartition("@")[2]
        cookie = self._cookie_header(url, options.get("cookies"))
        if cookie is not None:
            headers["cookie"] = cookie
        declared = declared_length(headers)
        if declared is not None:
            # NOTE: a Content-Length the caller gives is sent as given, as httpx
            # does; the drivers deliver the body as a server would read it.
            if isinstance(body, bytes) and len(body) > declared:
                raise ValueError(
                    f"the body has {len(body)} bytes but Content-Length says {declared}:"
                    " a server would read the bytes after it as the next request;"
                    " leave Content-Length out and the client sets it"
                )
        elif isinstance(body, bytes):
            headers["content-length"] = str(len(body))
        elif body is not None:
            # RFC 9112 §6.1: a body of unknown length goes chunked.
            headers["transfer-encoding"] = "chunked"
        elif method in ("POST", "PUT", "PATCH"):
            # RFC 9110 §8.6: a user agent sends Content-Length: 0 for an empty
            # body where the method expects one.
            headers["content-length"] = "0"
        root_path = options.get("root_path", self.root_path).rstrip("/")
        remote_addr = options.get("remote_addr", self.remote_addr)
        return ClientRequest(method, url, Headers(headers), body or b"", root_path, remote_addr)

    def build_request(
        self, method: str, url: str, **options: Unpack[RequestOptions]
    ) -> ClientRequest:
        """Build the request a call would send, without sending it.

        Args:
            method: The method.
            url: An absolute URL or a path resolved against ``base_url``.
            options: See :class:`RequestOptions`.

        Returns:
            The request, with the client's headers and the jar's cookies.
        """
        full_url = resolve_url(
            self.base_url, url, options.get("params"), scheme=options.get("scheme")
        )
        body, content_type = _encode_body(options)
        headers = self.headers.copy()
        for name in _BODY_HEADERS:
            headers.pop(name, None)
        if content_type is not None:
            headers["content-type"] = content_type
        given = Headers(options.get("headers"))
        for name in set(given.keys()):
            headers.pop(name, None)
        headers.extend(given)
        return self._prepare(method.upper(), full_url, headers, body, options)

    def _redirect(self, response: ClientResponse, options: RequestOptions) -> ClientRequest:
        """Build the request that follows a redirect (RFC 9110 §15.4)."""
        previous = response.request
        url = resolve_url(previous.url, response.headers["location"])
        method = previous.method
        body: bytes | Iterable[bytes] | None = previous.body
        headers = MutableHeaders(previous.headers)
        for name in ("host", "cookie"):
            headers.pop(name, None)
        # RFC 9110 §15.4.4: 303 means GET; §15.4.2-3: browsers also turn a
        # POST into a GET after 301 and 302.
        if (response.status_code == 303 and method != "HEAD") or (
            response.status_code in (301, 302) and method == "POST"
        ):
            method, body = "GET", None
            for name in _BODY_HEADERS:
                headers.pop(name, None)
        elif not isinstance(body, bytes):
            raise RuntimeError("cannot repeat a streamed body to follow a 307 or 308 redirect")
        else:
            headers.pop("content-length", None)
        if url.split("/")[:3] != previous.url.split("/")[:3]:
            # RFC 9110 §15.4: credentials are not sent to another origin.
            headers.pop("authorization", None)
        return self._prepare(method, url, headers, body, options)

    # -- sending ------------------------------------------------------------------------

    def _dispatch(self, request: ClientRequest) -> ClientResponse:
        if self.interface == "wsgi":
            return run_wsgi(
                cast("WSGIApp", self.app), request, raise_errors=self.raise_app_exceptions
            )
        loop, release = self._lease()
        try:
            response = run_asgi(
                cast("ASGIApp", self.app),
                request,
                loop,
                state=self._state,
                raise_errors=self.raise_app_exceptions,
            )
        except BaseException:
            if release is not None:
                release()
            raise
        if release is not None:
            response._on_close = _then(response._on_close, release)
        return response

    def _send(self, method: str, url: str, options: RequestOptions) -> ClientResponse:
        request = self.build_request(method, url, **options)
        follow = options.get("follow_redirects", self.follow_redirects)
        history: list[ClientResponse] = []
        while True:
            response = self._dispatch(request)
            self.cookies.extract(request.url, response.headers.getlist("set-cookie"))
            if not (follow and response.is_redirect):
                break
            response._read_raw()
            history.append(response)
            if len(history) > self.max_redirects:
                raise TooManyRedirects(f"more than {self.max_redirects} redirects")
            request = self._redirect(response, options)
        response.history = history
        return response

    def request(self, method: str, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a request and read the whole response.

        Args:
            method: The method.
            url: An absolute URL or a path resolved against ``base_url``.
            options: See :class:`RequestOptions`.

        Returns:
            The response, body read and application finished.

        Raises:
            Exception: What the application raised, if ``raise_app_exceptions``.
            TooManyRedirects: More redirects than ``max_redirects``.
        """
        response = self._send(method, url, options)
        response._read_raw()
        return response

    def stream(self, method: str, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a request and return as soon as the response started.

        Use it with ``with``: leaving the block closes the response, which
        disconnects from the application if the body was not all read.

        Args:
            method: The method.
            url: An absolute URL or a path resolved against ``base_url``.
            options: See :class:`RequestOptions`.

        Returns:
            The response; read it with ``iter_bytes()``, ``iter_text()`` or ``read()``.
        """
        return self._send(method, url, options)

    def get(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a GET request; see :meth:`request`."""
        return self.request("GET", url, **options)

    def head(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a HEAD request; see :meth:`request`."""
        return self.request("HEAD", url, **options)

    def options(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send an OPTIONS request; see :meth:`request`."""
        return self.request("OPTIONS", url, **options)

    def post(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a POST request; see :meth:`request`."""
        return self.request("POST", url, **options)

    def put(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a PUT request; see :meth:`request`."""
        return self.request("PUT", url, **options)

    def patch(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a PATCH request; see :meth:`request`."""
        return self.request("PATCH", url, **options)

    def delete(self, url: str, **options: Unpack[RequestOptions]) -> ClientResponse:
        """Send a DELETE request; see :meth:`request`."""
        return self.request("DELETE", url, **options)

    def websocket_connect(
        self,
        url: str,
        *,
        subprotocols: Sequence[str] = (),
        **options: Unpack[RequestOptions],
    ) -> WebSocketSession:
        """Open a websocket session with an ASGI application.

        Args:
            url: The URL; ``http`` and ``https`` become ``ws`` and ``wss``.
            subprotocols: The subprotocols to offer, in order of preference.
            options: ``params``, ``headers``, ``cookies``, ``root_path``,
                ``scheme`` and ``remote_addr`` apply.

        Returns:
            The session, to use with ``with``; entering it does the handshake.

        Raises:
            TypeError: The application is a WSGI one.
        """
        if self.interface != "asgi":
            raise TypeError("websockets need an ASGI application")
        request = self.build_request("GET", url, **options)
        scheme = {"http": "ws", "https": "wss"}.get(request.scheme, request.scheme)
        ws_url = scheme + request.url[len(request.scheme) :]
        headers = MutableHeaders(request.headers)
        for name in _BODY_HEADERS:
            headers.pop(name, None)
        headers["cookie"] = self._cookie_header(ws_url, options.get("cookies")) or ""
        if not headers["cookie"]:
            del headers["cookie"]
        headers.update(
            {
                "connection": "Upgrade",
                "upgrade": "websocket",
                "sec-websocket-version": "13",
                "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            }
        )
        if subprotocols:
            headers["sec-websocket-protocol"] = ", ".join(subprotocols)
        handshake = ClientRequest(
            "GET", ws_url, Headers(headers), b"", request.root_path, request.remote_addr
        )
        loop, release = self._lease()
        return WebSocketSession(
            cast("ASGIApp", self.app),
            handshake,
            loop,
            subprotocols=list(subprotocols),
            state=self._state,
            on_close=release,
            raise_errors=self.raise_app_exceptions,
        )


def _then(first: Callable[[], None] | None, second: Callable[[], None]) -> Callable[[], None]:
    def both() -> None:
        try:
            if first is not None:
                first()
        finally:
            second()

    return both
