"""The application and request contexts, and the proxies that read them.

Two context variables hold what Flask keeps on its context stacks: the
application context (the app and its ``g``) and the request context (the
request, its session and flashed messages). The App's drivers copy the
context into the thread that runs a ``def`` view under ASGI, so the proxies
work in ``def`` and ``async def`` views alike, under either adapter.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from sansio_http.compat.flask._request import Request

__all__ = [
    "AppContext",
    "RequestContext",
    "current_app",
    "g",
    "has_app_context",
    "has_request_context",
    "request",
    "session",
]

_app_var: contextvars.ContextVar[AppContext] = contextvars.ContextVar("sansio_http.flask.app")
_request_var: contextvars.ContextVar[RequestContext] = contextvars.ContextVar(
    "sansio_http.flask.request"
)

_NO_APP = (
    "Working outside of application context: this needs the current app. Use it "
    "in a view, a hook or a command, or inside 'with app.app_context():'"
)
_NO_REQUEST = (
    "Working outside of request context: this needs an active HTTP request. "
    "Use it in a view or a hook, or use app.test_request_context() in a test"
)


class _AppGlobals:
    """The namespace of ``g``: attributes for one application context."""

    def get(self, name: str, default: Any = None) -> Any:
        """Return an attribute, or ``default``."""
        return self.__dict__.get(name, default)

    def pop(self, name: str, *default: Any) -> Any:
        """Remove an attribute and return it, or ``default`` when given."""
        if default:
            return self.__dict__.pop(name, default[0])
        return self.__dict__.pop(name)

    def setdefault(self, name: str, default: Any = None) -> Any:
        """Return an attribute, setting it to ``default`` first if absent."""
        return self.__dict__.setdefault(name, default)

    def __contains__(self, name: str) -> bool:
        return name in self.__dict__

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dict__)

    def __repr__(self) -> str:
        return f"<flask.g of {self.__dict__!r}>"


class AppContext:
    """The application context: the app and its ``g``.

    A request pushes one for its time; ``with app.app_context():`` pushes one
    for commands and tests. Leaving it runs the ``teardown_appcontext``
    functions.

    Args:
        app: The application.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.g = _AppGlobals()
        self._tokens: list[contextvars.Token[AppContext]] = []

    def push(self) -> None:
        """Make this the current application context."""
        self._tokens.append(_app_var.set(self))

    def pop(self, exc: BaseException | None = None) -> None:
        """Run the teardown functions, then restore the context before."""
        try:
            if len(self._tokens) == 1:
                self.app.do_teardown_appcontext(exc)
        finally:
            _app_var.reset(self._tokens.pop())

    def __enter__(self) -> AppContext:
        self.push()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.pop(exc)


class RequestContext:
    """What a request holds for the proxies: the request, session and flashes.

    PERF: one object per request, set in one context variable; the Flask
    request, the application context and the session are made on first use.

    Args:
        app: The application.
        request: The adapter's request.
    """

    __slots__ = ("_app_context", "_request", "_session", "app", "flashes", "raw_request")

    def __init__(self, app: Any, request: Any) -> None:
        self.app = app
        #: The adapter's request.
        self.raw_request = request
        self._request: Request | None = None
        self._app_context: AppContext | None = None
        self._session: Any = None
        #: The flashed messages taken from the session by this request.
        self.flashes: list[tuple[str, Any]] | None = None

    @property
    def request(self) -> Request:
        """The Flask-style request, made on first use."""
        if self._request is None:
            self._request = Request(self.raw_request, self.app)
        return self._request

    @property
    def app_context(self) -> AppContext:
        """The request's application context, made on first use."""
        if self._app_context is None:
            self._app_context = AppContext(self.app)
        return self._app_context

    @property
    def session(self) -> Any:
        """The request's session, loaded from its cookie on first use."""
        if self._session is None:
            self._session = self.app.open_session(self.raw_request)
        return self._session

    def push(self) -> contextvars.Token[RequestContext]:
        """Make this the current request context; return the token."""
        return _request_var.set(self)

    @staticmethod
    def pop(token: contextvars.Token[RequestContext]) -> None:
        """Restore the context that ``push`` replaced."""
        _request_var.reset(token)


def app_context() -> AppContext:
    """Return the current application context: the request's, else the one pushed.

    Raises:
        RuntimeError: There is none.
    """
    found = _request_var.get(None)
    if found is not None:
        return found.app_context
    try:
        return _app_var.get()
    except LookupError:
        raise RuntimeError(_NO_APP) from None


def request_context() -> RequestContext:
    """Return the current request context.

    Raises:
        RuntimeError: There is none.
    """
    try:
        return _request_var.get()
    except LookupError:
        raise RuntimeError(_NO_REQUEST) from None


def has_app_context() -> bool:
    """Return whether an application context is active."""
    return _request_var.get(None) is not None or _app_var.get(None) is not None


def has_request_context() -> bool:
    """Return whether a request context is active."""
    return _request_var.get(None) is not None


class _Proxy:
    """A stand-in for an object of the current context."""

    __slots__ = ("_find",)

    def __init__(self, find: Any) -> None:
        object.__setattr__(self, "_find", find)

    def _get_current_object(self) -> Any:
        """Return the object this proxy stands for now."""
        return self._find()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._find(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._find(), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._find(), name)

    def __getitem__(self, key: Any) -> Any:
        return self._find()[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._find()[key] = value

    def __delitem__(self, key: Any) -> None:
        del self._find()[key]

    def __contains__(self, key: Any) -> bool:
        return key in self._find()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._find())

    def __len__(self) -> int:
        return len(self._find())

    def __bool__(self) -> bool:
        try:
            return bool(self._find())
        except RuntimeError:
            return False

    def __eq__(self, other: object) -> bool:
        return bool(self._find() == other)

    def __hash__(self) -> int:
        return hash(self._find())

    def __repr__(self) -> str:
        try:
            return repr(self._find())
        except RuntimeError:
            return "<unbound proxy>"


class _RequestProxy(_Proxy):
    """``request``: PERF: its attributes are read without a call to find it."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        context = _request_var.get(None)
        if context is None:
            raise RuntimeError(_NO_REQUEST)
        return getattr(context.request, name)


def _current_app() -> Any:
    return app_context().app


def _g() -> Any:
    return app_context().g


def _request() -> Any:
    return request_context().request


def _session() -> Any:
    return request_context().session


#: The application handling the current request or command.
current_app: Any = _Proxy(_current_app)
#: The current application context's namespace.
g: Any = _Proxy(_g)
#: The current request (see :class:`~sansio_http.compat.flask.Request`).
request: Any = _RequestProxy(_request)
#: The current request's session, a dict kept in a signed cookie.
session: Any = _Proxy(_session)
