"""``request``: Flask's attributes over the adapter's request.

In a ``def`` view (a worker thread under WSGI, the App's pool under ASGI)
the body reads block and return values, as in Flask: ``request.form``,
``request.files``, ``request.values``, ``request.json``, ``request.data``,
``request.get_json()`` and ``request.get_data()``. On an event loop's thread
(an ``async def`` view) the same names return awaitables, as in Quart:
``await request.form``, ``await request.get_json()``. Once a body has been
read, its value is kept: reading it again, or from a template, needs no await.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Iterator
from typing import Any, Final

from sansio_http import MultiDict
from sansio_http.bodies._body import BodyRequest
from sansio_http.bodies._formdata import _FormMultiDict

__all__ = ["Request"]

_FORM_TYPES: Final = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
_MISSING: Final = object()


class Pending:
    """A body read not done yet, in an ``async def`` view: await it.

    Once the value is read (awaited here or elsewhere), item access,
    ``get``, ``in``, iteration and ``len`` go to it, so that a template can
    use ``request.form['title']``. Before that they raise ``RuntimeError``
    naming the ``await``.
    """

    __slots__ = ("_name", "_owner", "_read")

    def __init__(self, owner: Request, name: str, read: Callable[[], Awaitable[Any]]) -> None:
        self._owner = owner
        self._name = name
        self._read = read

    def __await__(self) -> Generator[Any, None, Any]:
        return self._owner._awaited(self._name, self._read).__await__()

    def _value(self) -> Any:
        value = self._owner._kept.get(self._name, _MISSING)
        if value is _MISSING:
            # A body that is no form has empty fields, known without reading.
            value = self._owner._no_form(self._name)
        if value is _MISSING:
            raise RuntimeError(
                f"request.{self._name} is not read yet in this async def view: "
                f"write 'await request.{self._name}' first (in a def view it reads at once)"
            )
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._value()[key]

    def __contains__(self, key: Any) -> bool:
        return key in self._value()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._value())

    def __len__(self) -> int:
        return len(self._value())

    def get(self, key: Any, default: Any = None) -> Any:
        """Return ``value.get(key, default)`` of the read value."""
        return self._value().get(key, default)

    def getlist(self, key: Any) -> Any:
        """Return ``value.getlist(key)`` of the read value."""
        return self._value().getlist(key)

    def __repr__(self) -> str:
        return f"<request.{self._name} (await it)>"


class Request:
    """The request as Flask spells it, over a :class:`~sansio_http.BodyRequest`.

    Everything that is not listed here is read from the wrapped request
    (``request.headers``, ``request.args``, ``request.cookies``,
    ``request.accept_mimetypes``, ``request.authorization``...).

    Args:
        request: The adapter's request.
        app: The application.
    """

    def __init__(self, request: BodyRequest, app: Any) -> None:
        self._request = request
        self._app = app
        self._kept: dict[str, Any] = {}
        self._route: tuple[str | None, dict[str, Any] | None] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)

    def __repr__(self) -> str:
        return f"<Request {self._request.url!r} [{self._request.method}]>"

    # -- routing facts -----------------------------------------------------------

    def _routed(self) -> tuple[str | None, dict[str, Any] | None]:
        if self._route is None:
            self._route = self._app._route_of(self._request)
        return self._route

    @property
    def endpoint(self) -> str | None:
        """The endpoint the request is routed to, or None."""
        return self._routed()[0]

    @property
    def view_args(self) -> dict[str, Any] | None:
        """The route values the view is called with, or None."""
        return self._routed()[1]

    @property
    def blueprint(self) -> str | None:
        """The name of the blueprint of the endpoint, or None."""
        endpoint = self.endpoint
        if endpoint is None or "." not in endpoint:
            return None
        return endpoint.rpartition(".")[0]

    @property
    def url_root(self) -> str:
        """The scheme, host and root path, with a trailing slash."""
        return str(self._request.root_url)

    @property
    def host_url(self) -> str:
        """The scheme and host, with a trailing slash."""
        return f"{self._request.scheme}://{self._request.host}/"

    # -- the body ----------------------------------------------------------------

    def _blocking(self) -> bool:
        return self._request._running_loop() is None

    async def _awaited(self, name: str, read: Callable[[], Awaitable[Any]]) -> Any:
        value = self._kept.get(name, _MISSING)
        if value is _MISSING:
            value = self._kept[name] = await read()
        return value

    def _read(self, name: str, blocking: Callable[[], Any], awaited: Callable[[], Any]) -> Any:
        """The value under ``name``: read now in a def view, awaitable on a loop's thread."""
        if self._blocking():
            value = self._kept.get(name, _MISSING)
            if value is _MISSING:
                value = self._kept[name] = blocking()
            return value
        return Pending(self, name, awaited)

    def _has_form(self) -> bool:
        return self._request.mimetype in _FORM_TYPES

    def _no_form(self, name: str) -> Any:
        """The empty value of ``name`` for a body that is no form, else _MISSING."""
        if name in ("form", "files", "values") and not self._has_form():
            return self._combined(_FormMultiDict()) if name == "values" else _FormMultiDict()
        return _MISSING

    def _form(self, name: str) -> Any:
        empty = self._no_form(name)
        if empty is not _MISSING:
            return empty
        if name == "form":
            return self._request.get_form()
        return self._request.get_files()

    async def _form_async(self, name: str) -> Any:
        empty = self._no_form(name)
        if empty is not _MISSING:
            return empty
        if name == "form":
            return await self._request.form()
        return await self._request.files()

    @property
    def form(self) -> Any:
        """The form's text fields (``await request.form`` in an async view)."""
        return self._read("form", lambda: self._form("form"), lambda: self._form_async("form"))

    @property
    def files(self) -> Any:
        """The uploaded files (``await request.files`` in an async view)."""
        return self._read("files", lambda: self._form("files"), lambda: self._form_async("files"))

    def _combined(self, form: Any) -> Any:
        combined: MultiDict[str, str] = MultiDict()
        for key, value in self._request.args.items(multi=True):
            combined.add(key, value)
        for key, value in form.items(multi=True):
            combined.add(key, value)
        return _FormMultiDict(combined)

    @property
    def values(self) -> Any:
        """The query arguments and the form's fields together (awaited in an async view)."""

        async def awaited() -> Any:
            return self._combined(await self._awaited("form", lambda: self._form_async("form")))

        return self._read("values", lambda: self._combined(self.form), awaited)

    @property
    def data(self) -> Any:
        """The body's bytes (``await request.data`` in an async view)."""
        return self._read("data", self._request.get_data, self._request.body)

    def get_data(self, cache: bool = True, as_text: bool = False) -> Any:
        """Return the body, as bytes or text (a coroutine in an async view).

        As text, bytes that are not UTF-8 read as U+FFFD, as in Werkzeug:
        the client's body never makes the view fail.
        """
        if self._blocking():
            data = self._request.get_data()
            return data.decode("utf-8", "replace") if as_text else data

        async def read() -> Any:
            data = await self._request.body()
            return data.decode("utf-8", "replace") if as_text else data

        return read()

    @property
    def json(self) -> Any:
        """The decoded JSON body (``await request.json`` in an async view)."""
        return self.get_json()

    def get_json(self, force: bool = False, silent: bool = False, cache: bool = True) -> Any:
        """Decode a JSON body (a coroutine in an async view).

        Args:
            force: Decode whatever the Content-Type.
            silent: Return None for a body that is not JSON.
            cache: Ignored: the body is always kept.

        Raises:
            UnsupportedMediaType: The body is not declared as JSON (415).
            BadRequest: It is not valid JSON.
        """
        request = self._request
        if request._running_loop() is None:
            if force or silent:
                return request.get_json(force=force, silent=silent)
            return request.get_json()
        return request.json(force=force, silent=silent)

    @property
    def is_json(self) -> bool:
        """Whether the body is declared as JSON."""
        return bool(self._request.is_json)

    @property
    def environ(self) -> Any:
        """The WSGI environ under WSGI, the ASGI scope under ASGI."""
        found = getattr(self._request, "environ", None)
        return found if found is not None else getattr(self._request, "scope", {})
