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

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Final, TypeVar

from sansio_http.bodies._formdata import FormData, UploadedFile
from sansio_http.bodies._json import decode_json
from sansio_http.http._multidict import ImmutableMultiDict
from sansio_http.messages._request import Request

__all__ = [
    "ALREADY_STREAMED",
    "EMPTY_FORM",
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


class BodyRequest(Request):
    """A :class:`~sansio_http.Request` with a body, as both adapters build it.

    Annotate a view's request with this class to use the body API under
    ``to_wsgi`` and ``to_asgi`` alike. Every read has the same limits and
    errors under both adapters: 400 for a malformed body or a client that
    sent less than it announced, 411 for a body the server cannot frame,
    413 past ``max_content_length`` or a form limit.

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

    def get_json(self) -> Any:
        """Read the body and decode it as JSON, whatever its Content-Type.

        Returns:
            The decoded value.

        Raises:
            BadRequest: The body is not valid JSON.
            HTTPError: What :meth:`get_data` raises.
            RuntimeError: Called on an event loop's thread.
        """
        self._check_blocking("get_json")
        return decode_json(self._read_body())

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

    async def form(self) -> ImmutableMultiDict[str, str]:
        """Read and decode a form body; return its text fields.

        Returns:
            The text fields, as :meth:`get_form` does.

        Raises:
            HTTPError: As :meth:`get_form` does.
        """
        return (await self._decode_form()).form

    async def files(self) -> ImmutableMultiDict[str, UploadedFile]:
        """Read and decode a form body; return its uploaded files.

        Returns:
            The uploaded files, as :meth:`get_files` does.

        Raises:
            HTTPError: As :meth:`get_form` does.
        """
        return (await self._decode_form()).files

    async def json(self) -> Any:
        """Read the body and decode it as JSON, whatever its Content-Type.

        Returns:
            The decoded value.

        Raises:
            BadRequest: The body is not valid JSON.
            HTTPError: What :meth:`body` raises.
        """
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
