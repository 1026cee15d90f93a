"""The request a view reads: one body API whatever the adapter.

:class:`BodyRequest` is what ``sansio_http.wsgi.WSGIRequest`` and
``sansio_http.asgi.ASGIRequest`` have in common, written once: the names a
view uses to read the body, and the facts about the request that are not
I/O (``http_version``, ``raw_path``, ``bytes_read``). Each name exists in two
spellings, one per kind of view: a ``def`` view calls ``get_data()``,
``iter_data()``, ``get_form()``, ``get_files()``, ``get_json()`` and
``check_disconnected()``; an ``async def`` view awaits ``body()``,
``form()``, ``files()``, ``json()`` and ``is_disconnected()``, and iterates
``stream()`` with ``async for``.

An adapter implements the primitives (the whole body, the chunks, the
decoded form and the disconnect check) in both spellings; it bridges the one
that does not match its own I/O. This module only declares them and derives
the rest, so it performs no I/O itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from functools import WRAPPER_ASSIGNMENTS, partial, update_wrapper
from typing import TYPE_CHECKING, Any, Concatenate, Final, Generic, ParamSpec, TypeVar, overload

from typing_extensions import Self

from sansio_http.bodies._formdata import FormData, UploadedFile
from sansio_http.bodies._json import decode_json
from sansio_http.http._multidict import ImmutableMultiDict, MultiDict
from sansio_http.messages._errors import BadRequest, UnsupportedMediaType
from sansio_http.messages._request import Request

__all__ = [
    "ALREADY_STREAMED",
    "EMPTY_FORM",
    "BodyMethodError",
    "BodyRequest",
    "blocking_read_error",
    "with_settings",
]

B = TypeVar("B", bound="BodyRequest")

#: The form of a body that is neither urlencoded nor multipart.
EMPTY_FORM: Final = FormData(ImmutableMultiDict(), ImmutableMultiDict())

#: The message of a second attempt to consume a body that was not kept.
ALREADY_STREAMED: Final = (
    "the request body was already streamed or decoded as a form; read it whole "
    "first (get_data() or await body()) to use it more than once"
)

# The awaited spelling of each blocking read, for the error that names it.
_ASYNC_SPELLING: Final = {
    "get_data": "await request.body()",
    "iter_data": "async for chunk in request.stream()",
    "get_form": "await request.form()",
    "get_files": "await request.files()",
    "get_json": "await request.json()",
    "check_disconnected": "await request.is_disconnected()",
}


# The Content-Type values that httpx, requests, axios, fetch() code and jQuery
# code usually send for JSON; is_json decides for any other.
_USUAL_JSON_TYPES: Final = frozenset(
    f"application/json{parameters}"
    for parameters in ("", ";charset=utf-8", "; charset=utf-8", ";charset=UTF-8", "; charset=UTF-8")
)

# RFC 9110 §12.5.1: Accept in a response says what a request's content may be.
_ACCEPT_JSON: Final = {"Accept": "application/json"}
_NOT_JSON: Final = (
    "The request body is not declared as JSON; send it with Content-Type: application/json."
)
_NO_TYPE: Final = (
    "The request body has no Content-Type; send JSON with Content-Type: application/json."
)


def blocking_read_error(name: str) -> RuntimeError:
    """Return the error for a blocking read on an event loop's thread.

    Args:
        name: The blocking method that was called, such as ``"get_data"``.

    Returns:
        A ``RuntimeError`` that names the awaited spelling to use instead.
    """
    return RuntimeError(
        f"request.{name}() blocks, and it was called on the thread of a running "
        f"event loop (from an async def view or hook); use "
        f"{_ASYNC_SPELLING[name]} there instead"
    )


P = ParamSpec("P")
T = TypeVar("T")

# The blocking spelling of each awaited read that Flask spells as a value.
_BLOCKING_SPELLING: Final = {"form": "get_form", "files": "get_files", "json": "get_json"}

# What a view written for Flask reaches for on request.form, request.files or
# request.json: the public methods of the multidict, dict or list each one is
# in Flask. Only these: introspection asks for other names, dunders above all.
_VALUE_METHODS: Final = frozenset(
    name
    for kind in (MultiDict, ImmutableMultiDict, dict, list)
    for name in dir(kind)
    if not name.startswith("_")
)


class BodyMethodError(RuntimeError):
    """A body read used as the value Flask has under its name.

    ``request.form``, ``request.files`` and ``request.json`` are awaited
    methods here; subscripting one, iterating it, testing it or calling a
    multidict method on it raises this error, whose message names the
    blocking and the awaited spelling to use instead.

    NOTE: a ``RuntimeError``, not a ``TypeError``: template engines turn
    ``TypeError``, ``AttributeError`` and ``LookupError`` from an item or an
    attribute into an undefined value, so ``{{ request.form['x'] }}`` would
    render empty, silently, in Jinja2.
    """


def _value_habit_error(name: str) -> BodyMethodError:
    return BodyMethodError(
        f"request.{name} is a method: in a def view call "
        f"request.{_BLOCKING_SPELLING[name]}(); in an async def view, await request.{name}()"
    )


class _BoundRead(partial[Coroutine[Any, Any, T]], Generic[P, T]):
    """An awaited read bound to its request, as a method would be.

    Calling it returns the coroutine, exactly as the bound method did. Used
    as the value Flask has under the same name (subscripted, iterated,
    tested, or asked for a multidict method), it raises a
    :class:`BodyMethodError` that names both of our spellings, instead of
    Python's "'method' object is not subscriptable", which names neither.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        # PERF: partial's own __call__, written in C, runs at run time; this
        # only gives it the method's parameters.
        def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, T]: ...

    @property
    def __self__(self) -> object:
        """The request the read is bound to."""
        return self.args[0]

    @property
    def __func__(self) -> Callable[..., Coroutine[Any, Any, T]]:
        """The ``async def`` method."""
        return self.func

    def __eq__(self, other: object) -> bool:
        # As bound methods compare: the same function of the same request.
        return (
            isinstance(other, _BoundRead)
            and self.args[0] is other.args[0]
            and self.func is other.func
        )

    def __hash__(self) -> int:
        return hash((id(self.args[0]), self.func))

    def __repr__(self) -> str:
        return f"<bound method {self.func.__qualname__} of {self.args[0]!r}>"

    # NOTE: mypy does not see these, so that it flags request.form["x"] as
    # an error of its own; at run time they explain it.
    if not TYPE_CHECKING:

        def __getitem__(self, key):
            raise _value_habit_error(self.func.__name__)

        def __contains__(self, item):
            raise _value_habit_error(self.func.__name__)

        def __iter__(self):
            raise _value_habit_error(self.func.__name__)

        def __len__(self):
            raise _value_habit_error(self.func.__name__)

        def __bool__(self):
            # `if request.json:` would otherwise always be true.
            raise _value_habit_error(self.func.__name__)

        def __getattr__(self, name):
            # hasattr() and getattr() with a default must keep answering
            # for any other name: they let only AttributeError through.
            if name in _VALUE_METHODS:
                raise _value_habit_error(self.func.__name__)
            raise AttributeError(
                f"request.{self.func.__name__} is a method and has no attribute {name!r}",
                name=name,
                obj=self,
            )


_FUNCTION_FACTS: Final = ("__code__", "__defaults__", "__kwdefaults__")


class _AwaitedRead(Generic[P, T]):
    """An awaited read of the body, whose bound form explains Flask habits.

    It decorates an ``async def`` method of :class:`BodyRequest` and keeps
    its name, docstring and signature, so that the method reads, documents
    and type-checks as before (``await request.form()`` is an
    ``ImmutableMultiDict[str, str]``).
    """

    # Set by update_wrapper from the method.
    __name__: str
    __qualname__: str

    def __init__(self, function: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]]) -> None:
        self._function = function
        # NOTE: with the code and defaults too, inspect.iscoroutinefunction
        # (and so Sphinx, which marks the method async) reads this as the
        # async def function it wraps.
        update_wrapper(self, function, (*WRAPPER_ASSIGNMENTS, *_FUNCTION_FACTS))

    @overload
    def __get__(self, request: None, owner: type[Any] | None = None) -> Self: ...

    @overload
    def __get__(self, request: object, owner: type[Any] | None = None) -> _BoundRead[P, T]: ...

    def __get__(self, request: object, owner: type[Any] | None = None) -> Self | _BoundRead[P, T]:
        # PERF: the bound read is made at each access, as a bound method is;
        # building a request makes none, and keeping one on the request
        # would make a reference cycle that only the garbage collector frees.
        if request is None:
            return self
        return _BoundRead(self._function, request)

    def __call__(
        self, request: BodyRequest, /, *args: P.args, **kwargs: P.kwargs
    ) -> Coroutine[Any, Any, T]:
        """Call the read on ``request``, as ``BodyRequest.form(request)`` would."""
        return self._function(request, *args, **kwargs)


class BodyRequest(Request):
    """A :class:`~sansio_http.Request` with a body, as both adapters build it.

    Annotate a view's request with this class to use the body API under
    ``to_wsgi`` and ``to_asgi`` alike. Every read has the same limits and
    errors under both adapters: 400 for a malformed body or a client that
    sent less than it announced, 411 for a body the server cannot frame,
    413 past ``max_content_length`` or a form limit.

    :meth:`get_json` and :meth:`json` decode only a body declared as JSON
    and answer 415 to any other (``force=True`` accepts any type). ``form``,
    ``files`` and ``json`` are awaited methods: Flask's
    ``request.form["name"]`` raises a :class:`BodyMethodError` naming both
    spellings.

    The body can be read whole more than once; streamed, only once (and not
    after a form read). A blocking read called on the thread of a running
    event loop raises ``RuntimeError`` naming the awaited spelling, under
    both adapters, rather than stall every other request on that loop.

    An adapter's subclass implements the blocking primitives
    (``_read_body``, ``_read_chunks``, ``_read_form``, ``_poll_disconnect``),
    the awaited ones (:meth:`body`, :meth:`stream`, ``_decode_form``,
    :meth:`is_disconnected`) and the properties :attr:`http_version`,
    :attr:`raw_path` and :attr:`bytes_read`; the rest is written here once.
    """

    # -- facts that are not I/O ------------------------------------------

    @property
    def http_version(self) -> str:
        """The HTTP version, such as ``"1.1"`` or ``"2"``."""
        raise NotImplementedError

    @property
    def raw_path(self) -> bytes | None:
        """The request target's path as the client sent it, if the server says."""
        raise NotImplementedError

    @property
    def bytes_read(self) -> int:
        """How many body bytes were read so far: the upload's progress."""
        raise NotImplementedError

    # -- blocking reads, for def views -----------------------------------

    @staticmethod
    def _running_loop() -> object | None:
        """Return the event loop running in the calling thread, or None.

        The core has no event loop; the adapters install
        ``asyncio._get_running_loop`` here.
        """
        return None

    def _check_blocking(self, name: str) -> None:
        # A blocking read on a loop's own thread would stall every request on
        # that loop, and deadlock where the body comes through that loop.
        if self._running_loop() is not None:
            raise blocking_read_error(name)

    def get_data(self) -> bytes:
        """Read the whole body once and keep it; blocks until it has arrived.

        Returns:
            The body's bytes.

        Raises:
            HTTPError: 400 when the client sent less than it announced, 411
                or 413 as described on the class.
            RuntimeError: The body was already streamed, or this was called
                on an event loop's thread.
        """
        self._check_blocking("get_data")
        return self._read_body()

    def iter_data(self) -> Iterator[bytes]:
        """Return the body as an iterator of non-empty chunks, read as they come.

        Returns:
            An iterator over the body, once; over the kept bytes after
            :meth:`get_data`.

        Raises:
            RuntimeError: The body was already streamed or decoded as a form
                (raised here, at the call), or this was called on an event
                loop's thread.
        """
        self._check_blocking("iter_data")
        return self._read_chunks()

    def get_form(self) -> ImmutableMultiDict[str, str]:
        """Read and decode a form body; return its text fields.

        A body that is neither ``application/x-www-form-urlencoded`` nor
        ``multipart/form-data`` gives an empty form and stays unread.

        Returns:
            The text fields, each name's values in body order.

        Raises:
            HTTPError: 400 for a malformed body, 413 past a limit.
            RuntimeError: Called on an event loop's thread.
        """
        self._check_blocking("get_form")
        return self._read_form().form

    def get_files(self) -> ImmutableMultiDict[str, UploadedFile]:
        """Read and decode a form body; return its uploaded files.

        The adapter closes the files when the response is finished.

        Returns:
            The uploaded files, each name's values in body order.

        Raises:
            HTTPError: As :meth:`get_form` does.
            RuntimeError: Called on an event loop's thread.
        """
        self._check_blocking("get_files")
        return self._read_form().files

    def get_json(self, *, force: bool = False, silent: bool = False) -> Any:
        """Read a JSON body and decode it.

        The body is decoded when its Content-Type is ``application/json`` or
        an ``application/*+json`` type, with any parameters, in any case.
        Any other type, or none, is refused with 415 before the body is
        read (see :doc:`/security`).

        Args:
            force: Decode the body whatever its Content-Type, or without one.
            silent: Return None instead of raising for a body not declared
                as JSON (the 415) or not valid JSON (the 400), an empty
                one included, as Flask's ``silent=True`` does. A body that
                cannot be read (too large, the client gone) still raises.

        Returns:
            The decoded value, or None for a body ``silent`` passes over.

        Raises:
            UnsupportedMediaType: The body is not declared as JSON (415),
                unless ``force`` or ``silent`` is true. NOTE: not a
                ``BadRequest``: catch ``HTTPError`` for both.
            BadRequest: The body is not valid JSON, unless ``silent``.
            HTTPError: What :meth:`get_data` raises.
            RuntimeError: Called on an event loop's thread.
        """
        self._check_blocking("get_json")
        # PERF: the usual JSON Content-Type passes with one set lookup.
        if not force and self.content_type not in _USUAL_JSON_TYPES:
            if silent and not self.is_json:
                return None
            self._check_json()
        if silent:
            return _decode_or_none(self._read_body())
        return decode_json(self._read_body())

    def _declares_json(self) -> bool:
        return self.content_type in _USUAL_JSON_TYPES or self.is_json

    def _check_json(self) -> None:
        # SECURITY: a cross-site form or fetch() may POST text/plain (and the
        # two form types) without a CORS preflight (the Fetch Standard's
        # CORS-safelisted request headers), so decoding any type would let
        # another site post JSON that a JSON view takes for its client's.
        # Werkzeug's get_json also refuses other types, and no type, with 415.
        # PERF: the values clients usually send are known from the raw field,
        # without parsing it (is_json), which costs more than the rest of a
        # small JSON read.
        if self._declares_json():
            return
        raise UnsupportedMediaType(
            _NO_TYPE if self.content_type is None else _NOT_JSON, headers=_ACCEPT_JSON
        )

    def check_disconnected(self) -> bool:
        """Return whether the client is known to have gone, without waiting.

        Returns:
            True once the adapter has seen the client go away.

        Raises:
            RuntimeError: Called on an event loop's thread.
        """
        self._check_blocking("check_disconnected")
        return self._poll_disconnect()

    # The blocking primitives, unguarded: each adapter implements them.

    def _read_body(self) -> bytes:
        raise NotImplementedError

    def _read_chunks(self) -> Iterator[bytes]:
        raise NotImplementedError

    def _read_form(self) -> FormData:
        raise NotImplementedError

    def _poll_disconnect(self) -> bool:
        raise NotImplementedError

    # -- awaited reads, for async def views ------------------------------

    async def body(self) -> bytes:
        """Read the whole body once and keep it.

        Returns:
            The body's bytes.

        Raises:
            HTTPError: As :meth:`get_data` does.
            RuntimeError: The body was already streamed.
        """
        raise NotImplementedError

    def stream(self) -> AsyncIterator[bytes]:
        """Return the body as an async iterator of non-empty chunks.

        Returns:
            An async iterator over the body, once; over the kept bytes
            after :meth:`body`.

        Raises:
            RuntimeError: The body was already streamed or decoded as a form
                (raised here, at the call).
        """
        raise NotImplementedError

    @_AwaitedRead
    async def form(self) -> ImmutableMultiDict[str, str]:
        """Read and decode a form body; return its text fields.

        Returns:
            The text fields, as :meth:`get_form` does.

        Raises:
            HTTPError: As :meth:`get_form` does.
        """
        return (await self._decode_form()).form

    @_AwaitedRead
    async def files(self) -> ImmutableMultiDict[str, UploadedFile]:
        """Read and decode a form body; return its uploaded files.

        Returns:
            The uploaded files, as :meth:`get_files` does.

        Raises:
            HTTPError: As :meth:`get_form` does.
        """
        return (await self._decode_form()).files

    @_AwaitedRead
    async def json(self, *, force: bool = False, silent: bool = False) -> Any:
        """Read a JSON body and decode it.

        The body must be declared as JSON, as :meth:`get_json` says.

        Args:
            force: Decode the body whatever its Content-Type, or without one.
            silent: Return None instead of raising for a body not declared
                as JSON or not valid JSON, as :meth:`get_json` says.

        Returns:
            The decoded value, or None for a body ``silent`` passes over.

        Raises:
            UnsupportedMediaType: The body is not declared as JSON (415),
                unless ``force`` or ``silent`` is true.
            BadRequest: The body is not valid JSON, unless ``silent``.
            HTTPError: What :meth:`body` raises.
        """
        if not force and self.content_type not in _USUAL_JSON_TYPES:
            if silent and not self.is_json:
                return None
            self._check_json()
        if silent:
            return _decode_or_none(await self.body())
        return decode_json(await self.body())

    async def is_disconnected(self) -> bool:
        """Return whether the client is known to have gone, without waiting.

        Returns:
            True once the adapter has seen the client go away.
        """
        raise NotImplementedError

    async def _decode_form(self) -> FormData:
        """Decode the form body; the same object on every call."""
        raise NotImplementedError


def _decode_or_none(data: bytes) -> Any:
    """Return ``data`` decoded as JSON, or None where it is not valid JSON."""
    try:
        return decode_json(data)
    except BadRequest:
        return None


def with_settings(request_class: type[B], settings: Mapping[str, object]) -> type[B]:
    """Return a subclass of ``request_class`` with ``settings`` as class attributes.

    An adapter's application makes it once, so that its settings (limits,
    spool, trusted hosts) are not keyword arguments of every request's
    constructor (PERF). Settings that are None are left to the class.

    Args:
        request_class: The request class the application builds.
        settings: Class attribute values by name.

    Returns:
        The subclass, named as ``request_class``; ``request_class`` itself
        when every setting is None.
    """
    chosen = {name: value for name, value in settings.items() if value is not None}
    if not chosen:
        return request_class
    return type(request_class.__name__, (request_class,), chosen)
