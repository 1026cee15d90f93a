"""``WSGIRequest``: a core ``Request`` read from a WSGI environ, with its body.

The request's head comes from the environ without copying: paths are
decoded as PEP 3333 asks, and the headers are a view over the environ's
keys. The body is read from ``wsgi.input`` only when asked for, through
:attr:`WSGIRequest.stream`, :meth:`~WSGIRequest.get_data`,
:attr:`~WSGIRequest.form`, :attr:`~WSGIRequest.files` or
:attr:`~WSGIRequest.json`, within the request's limits. Uploaded files go to
spooled temporary files that :meth:`~WSGIRequest.close` releases.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Collection
from types import TracebackType
from typing import Any, Final

from typing_extensions import Self

from sansio_http._formdata import FormData, FormLimits, SpoolFile, UploadedFile
from sansio_http._forms import FormDecoder
from sansio_http._json import decode_json
from sansio_http._multidict import ImmutableMultiDict
from sansio_http._request import Request

from ._environ import EnvironHeaders, decode_path, query_bytes, server_address
from ._input import InputStream

__all__ = ["DEFAULT_SPOOL_MEMORY", "WSGIRequest"]

# An upload stays in memory up to this size, then moves to a temporary file.
# Starlette also rolls over at 1 MiB and Werkzeug at 500 KiB: a typical form
# upload (an avatar, a small document) never touches the disk, a large one
# never holds more than this in memory.
DEFAULT_SPOOL_MEMORY: Final = 1024 * 1024

# PERF: a form is read 256 KiB at a time: the multipart parser and the spool
# file cost per call, and in measurements on a 10 MiB upload 256 KiB reads
# took a fifth less time than 64 KiB ones, while 512 KiB gained nothing more.
_FORM_CHUNK_SIZE: Final = 256 * 1024

_EMPTY_FORM: Final[FormData] = FormData(ImmutableMultiDict(), ImmutableMultiDict())
_DEFAULT_FORM_LIMITS: Final = FormLimits()


class WSGIRequest(Request):
    """A :class:`~sansio_http.Request` read from a WSGI environ, with a body.

    Constructing one reads nothing from ``wsgi.input`` and copies nothing
    from the environ; each attribute is computed on first access.

    Args:
        environ: The WSGI environ, as the server passed it.
        max_content_length: The most body bytes accepted, or None for no
            limit; a larger Content-Length is refused with 413 before
            anything is read, and a chunked body is cut off after it.
        form_limits: The limits of :attr:`form` and :attr:`files`; the
            :class:`~sansio_http.FormLimits` defaults when omitted.
        spool: Makes the file that holds one uploaded file; by default a
            :class:`tempfile.SpooledTemporaryFile` that keeps up to
            1 MiB in memory before it moves to disk.
        trusted_hosts: As for :class:`~sansio_http.Request`.
    """

    #: The WSGI environ, as the server passed it.
    environ: dict[str, Any]
    #: The most body bytes accepted, or None for no limit.
    max_content_length: int | None = None
    #: The limits of :attr:`form` and :attr:`files`.
    form_limits: FormLimits = _DEFAULT_FORM_LIMITS

    # PERF: the body state lives in class defaults until it is first needed,
    # so that building a request sets as few attributes as possible.
    _spool_factory: Callable[[], SpoolFile] | None = None
    _spools: list[SpoolFile] | None = None
    _stream: InputStream | None = None
    _data: bytes | None = None
    _form_data: FormData | None = None

    def __init__(
        self,
        environ: dict[str, Any],
        *,
        max_content_length: int | None = None,
        form_limits: FormLimits | None = None,
        spool: Callable[[], SpoolFile] | None = None,
        trusted_hosts: Collection[str] | None = None,
    ) -> None:
        get = environ.get
        super().__init__(
            get("REQUEST_METHOD") or "GET",
            decode_path(get("PATH_INFO") or "/"),
            query_bytes(get("QUERY_STRING") or ""),
            EnvironHeaders(environ),
            get("wsgi.url_scheme") or "http",
            get("REMOTE_ADDR") or None,
            decode_path(get("SCRIPT_NAME") or ""),
            server_address(environ),
            trusted_hosts=trusted_hosts,
        )
        self.environ = environ
        if max_content_length is not None:
            self.max_content_length = max_content_length
        if form_limits is not None:
            self.form_limits = form_limits
        if spool is not None:
            self._spool_factory = spool

    # -- the body -------------------------------------------------------------

    @property
    def stream(self) -> InputStream:
        """The body as a file-like stream, read once, within the limits.

        After :meth:`get_data`, a new stream over the kept bytes.

        Raises:
            BadRequest: CONTENT_LENGTH is not a number.
            LengthRequired: The body is chunked and the server does not end
                ``wsgi.input`` itself (``wsgi.input_terminated``).
            RequestEntityTooLarge: CONTENT_LENGTH exceeds
                :attr:`max_content_length`.
        """
        if self._data is not None:
            return InputStream.over(self._data)
        stream = self._stream
        if stream is None:
            stream = self._stream = InputStream(
                self.environ, max_content_length=self.max_content_length
            )
        return stream

    @property
    def has_resources(self) -> bool:
        """Whether :meth:`close` has files to release."""
        return bool(self._spools)

    def get_data(self) -> bytes:
        """Read the whole body once and keep it.

        Returns:
            The body's bytes.

        Raises:
            HTTPError: As :attr:`stream` does; also
                :class:`~sansio_http.ClientDisconnected` (400) when the body
                ends before its Content-Length.
            RuntimeError: The body was already read through :attr:`stream`
                or by :attr:`form`, so it is no longer available whole.
        """
        data = self._data
        if data is None:
            stream = self.stream
            if stream.bytes_read:
                raise RuntimeError(
                    "the request body was already read from request.stream or by"
                    " request.form; call get_data() first to read it more than once"
                )
            data = self._data = stream.read()
        return data

    @property
    def form(self) -> ImmutableMultiDict[str, str]:
        """The text fields of a urlencoded or multipart body.

        Empty, without reading the body, for any other content type.

        Raises:
            HTTPError: 400 for a malformed body, 413 past a limit of
                :attr:`form_limits` or :attr:`max_content_length`, and what
                :attr:`stream` raises.
        """
        return self._load_form().form

    @property
    def files(self) -> ImmutableMultiDict[str, UploadedFile]:
        """The uploaded files of a multipart body, held by spool files.

        Raises:
            HTTPError: As :attr:`form` does.
        """
        return self._load_form().files

    @property
    def json(self) -> Any:
        """The body decoded as JSON.

        Raises:
            BadRequest: The body is not valid JSON (or not UTF-8).
            HTTPError: What :meth:`get_data` raises.
        """
        return decode_json(self.get_data())

    def _spool(self) -> SpoolFile:
        factory = self._spool_factory
        if factory is None:
            file: SpoolFile = tempfile.SpooledTemporaryFile(max_size=DEFAULT_SPOOL_MEMORY)
        else:
            file = factory()
        # Kept so that close() releases it even if decoding fails halfway.
        spools = self._spools
        if spools is None:
            spools = self._spools = []
        spools.append(file)
        return file

    def _load_form(self) -> FormData:
        form_data = self._form_data
        if form_data is not None:
            return form_data
        mimetype = self.mimetype
        if not FormDecoder.supports(mimetype):
            form_data = self._form_data = _EMPTY_FORM
            return form_data
        stream = self.stream
        decoder = FormDecoder(
            mimetype,
            self.mimetype_params,
            content_length=stream.content_length,
            limits=self.form_limits,
            spool=self._spool,
        )
        read = stream.read1
        while chunk := read(_FORM_CHUNK_SIZE):
            decoder.feed(chunk)
        form_data = self._form_data = decoder.close()
        return form_data

    # -- resources ------------------------------------------------------------

    def close(self) -> None:
        """Release the spool files of uploaded files; safe to call twice.

        The WSGI adapter calls it when the response is finished, so an
        application only needs to call it to release them earlier.
        """
        spools = self._spools
        if spools:
            self._spools = None
            for file in spools:
                file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
