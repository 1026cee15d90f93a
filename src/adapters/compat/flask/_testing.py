"""``app.test_client()``: the project's test client with Flask's spellings."""

from __future__ import annotations

import contextvars
import json as json_module
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from sansio_http import Session
from sansio_http.compat.flask._globals import RequestContext
from sansio_http.testing import Client, ClientResponse

__all__ = ["FlaskClient", "TestResponse"]

# What Flask's client takes that maps onto the project's client's options.
_RAW = (str, bytes)


class TestResponse(ClientResponse):
    """A response of the test client, with Flask's names as well."""

    @property
    def data(self) -> bytes:
        """The body's bytes."""
        return self.content

    def get_data(self, as_text: bool = False) -> bytes | str:
        """Return the body, as bytes or text."""
        return self.text if as_text else self.content

    @property
    def status(self) -> str:
        """The status line, such as ``"200 OK"``."""
        return f"{self.status_code} {self.reason}"

    @property
    def mimetype(self) -> str | None:
        """The Content-Type without its parameters."""
        value = self.headers.get("content-type")
        return None if value is None else value.partition(";")[0].strip().lower()

    @property
    def location(self) -> str | None:
        """The Location field."""
        return self.headers.get("location")

    @property
    def is_json(self) -> bool:
        """Whether the body is JSON."""
        mimetype = self.mimetype or ""
        return mimetype == "application/json" or mimetype.endswith("+json")

    def get_json(self, force: bool = False, silent: bool = False) -> Any:
        """Decode a JSON body; None for another type, unless ``force``."""
        if not (force or self.is_json):
            return None
        try:
            return json_module.loads(self.content)
        except ValueError:
            if silent:
                return None
            raise

    @property
    def json(self) -> Any:
        """The decoded JSON body, as Flask's ``response.json``."""
        return self.get_json()


def _is_file(value: object) -> bool:
    return hasattr(value, "read") or (
        isinstance(value, tuple) and bool(value) and hasattr(value[0], "read")
    )


class FlaskClient(Client):
    """A test client for a :class:`~sansio_http.compat.flask.Flask` app.

    It takes Flask's spellings: ``data=`` as form fields (with files as file
    objects or ``(file, filename)`` tuples) or as a raw body,
    ``query_string=``, ``content_type=``, ``json=``, ``follow_redirects=``;
    responses have ``data``, ``get_json()`` and ``status``. Inside
    ``with client:``, the context of the last request stays current after
    it, for ``request``, ``session`` and ``g``.

    Args:
        app: The app.
        **kwargs: Options of :class:`~sansio_http.testing.Client`, such as
            ``interface="asgi"``.
    """

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.application = app
        self._token: contextvars.Token[RequestContext] | None = None
        self._preserving = False

    def __enter__(self) -> FlaskClient:
        if self._preserving:
            raise RuntimeError("Cannot nest client invocations")
        super().__enter__()
        self._preserving = True
        self.application._kept_contexts = []
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._preserving = False
        self.application._kept_contexts = None
        self._release()
        super().__exit__(exc_type, exc, traceback)

    def _release(self) -> None:
        if self._token is not None:
            RequestContext.pop(self._token)
            self._token = None

    def open(self, path: str = "/", method: str = "GET", **kwargs: Any) -> TestResponse:
        """Send a request (Flask's ``client.open``)."""
        return self.request(method, path, **kwargs)

    def request(self, method: str, url: str, **options: Any) -> TestResponse:
        """Send a request with Flask's or the project's options; read the whole response."""
        options = _translate(options)
        kept = self.application._kept_contexts
        if kept is not None:
            kept.clear()
        try:
            response = super().request(method, url, **options)
        finally:
            # Inside `with client:` the context of this request replaces the
            # last one, also when the request raised (as Flask keeps it for
            # inspection): the proxies never show an earlier request's data.
            if self._preserving and kept is not None:
                self._release()
                if kept:
                    self._token = kept[-1].push()
                kept.clear()
        response.__class__ = TestResponse
        for previous in response.history:
            previous.__class__ = TestResponse
        return response  # type: ignore[return-value]

    def get(self, url: str = "/", **options: Any) -> TestResponse:
        """Send a GET request."""
        return self.request("GET", url, **options)

    def post(self, url: str = "/", **options: Any) -> TestResponse:
        """Send a POST request."""
        return self.request("POST", url, **options)

    def put(self, url: str = "/", **options: Any) -> TestResponse:
        """Send a PUT request."""
        return self.request("PUT", url, **options)

    def patch(self, url: str = "/", **options: Any) -> TestResponse:
        """Send a PATCH request."""
        return self.request("PATCH", url, **options)

    def delete(self, url: str = "/", **options: Any) -> TestResponse:
        """Send a DELETE request."""
        return self.request("DELETE", url, **options)

    def head(self, url: str = "/", **options: Any) -> TestResponse:
        """Send a HEAD request."""
        return self.request("HEAD", url, **options)

    def options(self, url: str = "/", **options: Any) -> TestResponse:
        """Send an OPTIONS request."""
        return self.request("OPTIONS", url, **options)

    @contextmanager
    def session_transaction(self) -> Iterator[Session]:
        """Open the session the client's cookie holds, to read or change it in a test.

        Raises:
            RuntimeError: The app has no secret key.
        """
        app = self.application
        signer = app._signer()
        if signer is None:
            raise RuntimeError("Session backend did not open a session. Set a secret key.")
        url = self.base_url.rstrip("/") + "/"
        values = None
        for cookie in self.cookies.matching(url):
            if cookie.name == signer.cookie_name:
                values = signer.loads(cookie.raw_value)
                if values is not None:
                    break
        session = Session(values)
        yield session
        if not session.modified:
            return
        host = url.split("/")[2].rpartition("@")[2].partition(":")[0]
        self.cookies.set(
            signer.cookie_name, signer.dumps(session.to_dict()), domain=host, path=signer.path
        )


def _translate(options: dict[str, Any]) -> dict[str, Any]:
    """Map Flask's request options onto the project client's."""
    if "query_string" in options:
        options["params"] = options.pop("query_string")
    content_type = options.pop("content_type", None)
    if content_type is not None:
        headers = dict(options.get("headers") or {})
        headers["Content-Type"] = content_type
        options["headers"] = headers
    data = options.get("data")
    if isinstance(data, _RAW):
        options["content"] = options.pop("data")
    elif isinstance(data, Mapping) and any(_is_file(v) for v in data.values()):
        fields = {k: v for k, v in data.items() if not _is_file(v)}
        files = {}
        for name, value in data.items():
            if not _is_file(value):
                continue
            if isinstance(value, tuple):
                handle, filename = value[0], value[1] if len(value) > 1 else name
            else:
                handle, filename = value, getattr(value, "name", name)
            files[name] = (filename, handle.read())
        options["data"] = fields or None
        options["files"] = files
    return options
