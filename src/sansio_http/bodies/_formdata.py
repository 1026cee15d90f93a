"""What a decoded form is made of: limits, events, uploaded files and ``FormData``.

The decoders in ``_forms`` and ``_multipart`` produce the events defined here; the collector
turns them into a :class:`FormData`. Nothing here parses bytes or performs I/O: an
:class:`UploadedFile` wraps a file object that the adapter's ``spool`` factory made.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeAlias, TypeVar

from sansio_http.http._headers import Headers
from sansio_http.http._multidict import ImmutableMultiDict
from sansio_http.messages._errors import BadRequestKeyError

if TYPE_CHECKING:
    from types import TracebackType

    from typing_extensions import Self

__all__ = [
    "EndOfForm",
    "Field",
    "FileData",
    "FileEnd",
    "FileStart",
    "FormData",
    "FormEvent",
    "FormLimits",
    "SpoolFile",
    "UploadedFile",
    "safe_filename",
]

_KiB = 1024
_MiB = 1024 * _KiB


@dataclass(frozen=True)
class FormLimits:
    """The limits a form decoder enforces while it is fed.

    Each limit is checked as the bytes arrive, so a body that breaks one is
    refused before it has been read whole. ``None`` turns a limit off. The
    defaults suit a public web application; raise them for known clients.

    Attributes:
        max_content_length: Bytes in the whole body, files included (413).
        max_form_memory_size: Bytes of non-file field names and values held
            in memory, summed over the form; for a urlencoded body, the body
            without its ``&`` separators (413).
        max_form_parts: Multipart parts, or urlencoded fields (413).
        max_part_header_size: Bytes in the header section of one part, and
            in any one header line of it (413).
        max_part_headers: Header lines in one part (413).
    """

    # Flask's upload guide suggests 16 MB for MAX_CONTENT_LENGTH; nginx stops at 1 MiB and
    # Apache at 1 GiB. Files are spooled by the adapter, so this bounds disk use per request.
    max_content_length: int | None = 16 * _MiB
    # Werkzeug 3.1 keeps 500 kB per field, Django 2.5 MiB for all non-file data, Starlette
    # 1 MiB per part. 1 MiB for the whole form bounds memory however the fields are split.
    max_form_memory_size: int | None = 1 * _MiB
    # Werkzeug (max_form_parts, since CVE-2023-25577), Django (DATA_UPLOAD_MAX_NUMBER_FIELDS)
    # and Starlette (max_fields, max_files) all stop at 1000.
    max_form_parts: int | None = 1000
    # h11 allows 16 KiB for a whole request head and multipart 4 KiB per part header line.
    # A part needs two or three short lines; 8 KiB leaves room for a 255-byte file name
    # percent-encoded several times over.
    max_part_header_size: int | None = 8 * _KiB
    # RFC 7578 §4.8 names only Content-Disposition, Content-Type and
    # Content-Transfer-Encoding; multipart defaults to 8 as well.
    max_part_headers: int | None = 8

    def __post_init__(self) -> None:
        for name in (
            "max_content_length",
            "max_form_memory_size",
            "max_form_parts",
            "max_part_header_size",
            "max_part_headers",
        ):
            value = getattr(self, name)
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 0
            ):
                raise ValueError(f"{name} must be None or an int >= 0, not {value!r}")


@dataclass(slots=True)
class Field:
    """A complete non-file field: a urlencoded pair or a multipart part.

    Attributes:
        name: The field name.
        value: The value, decoded as text.
    """

    name: str
    value: str


@dataclass(slots=True)
class FileStart:
    """The header section of a file part; its bytes follow as ``FileData``.

    A part is a file when its Content-Disposition has a ``filename``
    parameter, even an empty one (what a browser sends for an empty file
    input).

    Attributes:
        name: The field name.
        filename: The file name as the client sent it, HTML5-decoded but with
            any path kept: pass it through :func:`safe_filename` before using
            it as a path.
        content_type: The part's Content-Type header, or None if absent.
        headers: Every header line of the part as ``(name, value)`` pairs,
            names lower-cased, in order.
    """

    name: str
    filename: str
    content_type: str | None
    headers: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class FileData:
    """Some bytes of the current file part; never empty.

    How a file is cut into ``FileData`` events depends on how the body was
    cut into chunks; their concatenation does not.

    Attributes:
        data: The bytes.
    """

    data: bytes


@dataclass(slots=True)
class FileEnd:
    """The end of the current file part.

    Attributes:
        size: The size of the file in bytes.
    """

    size: int


@dataclass(slots=True)
class EndOfForm:
    """The body ended and was complete; always the last event."""


#: Any event a :class:`~sansio_http.FormEventDecoder` emits.
FormEvent: TypeAlias = Field | FileStart | FileData | FileEnd | EndOfForm


class SpoolFile(Protocol):
    """A writable, readable and seekable binary file that holds one upload.

    ``io.BytesIO`` and ``tempfile.SpooledTemporaryFile`` both qualify.
    """

    def write(self, data: bytes, /) -> object:
        """Append bytes."""

    def read(self, size: int = -1, /) -> bytes:
        """Read up to ``size`` bytes; all of the rest when negative."""

    def seek(self, offset: int, whence: int = 0, /) -> int:
        """Move to a position and return it."""

    def tell(self) -> int:
        """Return the current position."""

    def close(self) -> None:
        """Release the storage."""


class _Writable(Protocol):
    def write(self, data: bytes, /) -> object: ...


class WritableFile(Protocol):
    """A binary file open for writing, as an :data:`Opener` returns it."""

    def write(self, data: bytes, /) -> object:
        """Write all of ``data``."""

    def close(self) -> None:
        """Flush and close the file."""


#: Makes one empty :class:`SpoolFile` per uploaded file.
SpoolFactory: TypeAlias = Callable[[], SpoolFile]

#: Opens a path for writing (``"wb"``), for :meth:`UploadedFile.save`: the
#: core never opens a file, so the adapters supply it with the spool.
Opener: TypeAlias = Callable[["str | os.PathLike[str]"], WritableFile]


class UploadedFile:
    """A file sent in a multipart form, its bytes held by a spool file.

    Attributes:
        name: The form field name.
        filename: The file name as sent (see :class:`FileStart`); never use
            it as a path without :func:`safe_filename`.
        content_type: The part's Content-Type header, or None if absent.
        size: The size in bytes.
        stream: The spool file holding the bytes.

    Args:
        name: The form field name.
        filename: The file name as sent.
        content_type: The part's Content-Type header, or None if absent.
        headers: The part's header fields: a :class:`~sansio_http.Headers`, kept as
            it is, or text pairs or a mapping of text as a multipart parser decodes
            them from UTF-8, which :attr:`headers` encodes back to the bytes sent.
        stream: The spool file holding the bytes, positioned at its start.
        size: The size in bytes.
        opener: Opens a path for :meth:`save`; the adapters' decoders pass
            one, and without it ``save`` takes only a file object.
    """

    __slots__ = (
        "_headers",
        "_opener",
        "_pairs",
        "content_type",
        "filename",
        "name",
        "size",
        "stream",
    )

    def __init__(
        self,
        name: str,
        filename: str,
        content_type: str | None,
        headers: Headers | Mapping[str, str] | Iterable[tuple[str, str]],
        stream: SpoolFile,
        size: int,
        *,
        opener: Opener | None = None,
    ) -> None:
        self.name = name
        self.filename = filename
        self.content_type = content_type
        self._pairs: Mapping[str, str] | Iterable[tuple[str, str]] = ()
        self._headers: Headers | None = None
        if isinstance(headers, Headers):
            self._headers = headers
        else:
            self._pairs = headers
        self.stream = stream
        self.size = size
        self._opener = opener

    @property
    def headers(self) -> Headers:
        """The part's header fields, read-only, names compared case-insensitively.

        A :class:`~sansio_http.Headers` like a request's: ``headers["Content-Type"]``
        and ``headers.get("content-type")`` find the same field. As in any
        ``Headers``, values read as latin-1 text of the bytes sent and ``raw()``
        gives those bytes: part headers travel in UTF-8 (RFC 7578 §5.1), so a
        non-ASCII value reads as ``value.encode("latin-1").decode()`` shows it.
        :attr:`filename` holds the file name already decoded. Built on first use.
        """
        headers = self._headers
        if headers is None:
            pairs = self._pairs
            items = pairs.items() if isinstance(pairs, Mapping) else pairs
            # NOTE: a multipart parser hands over text it decoded from UTF-8; encoding it
            # back gives the bytes sent, which Headers keeps (surrogateescape restores any
            # byte that a lenient decoding kept that way).
            headers = self._headers = Headers(
                [
                    (
                        name.encode("utf-8", "surrogateescape"),
                        value.encode("utf-8", "surrogateescape"),
                    )
                    for name, value in items
                ]
            )
        return headers

    @property
    def mimetype(self) -> str:
        """The lower-cased media type without parameters.

        RFC 7578 §4.4 makes ``text/plain`` the default of a part without a
        Content-Type.
        """
        if self.content_type is None:
            return "text/plain"
        return self.content_type.partition(";")[0].strip().lower()

    def read(self, size: int = -1) -> bytes:
        """Read up to ``size`` bytes from the current position; all when negative."""
        return self.stream.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        """Move the read position, as ``io.IOBase.seek`` does, and return it."""
        return self.stream.seek(offset, whence)

    def tell(self) -> int:
        """Return the read position."""
        return self.stream.tell()

    def save(self, dst: str | os.PathLike[str] | _Writable, buffer_size: int = 64 * _KiB) -> int:
        """Copy the whole file to a path or into a writable binary file.

        The copy starts at the beginning whatever the read position; the
        position is at the end afterwards. A path is opened for writing
        (``"wb"``: an existing file is replaced) and closed before this
        returns; a file object is written to and left open.

        Args:
            dst: A path (``str`` or :class:`os.PathLike`), or any object with
                a ``write(bytes)`` method, such as a file opened ``"wb"``.
                Never build the path from :attr:`filename` without
                :func:`safe_filename`.
            buffer_size: Bytes copied at a time.

        Returns:
            The number of bytes written.

        Raises:
            ValueError: ``buffer_size`` is below 1.
            TypeError: ``dst`` is a path and the upload has no opener (it
                was decoded by the core alone, not through an adapter).
            OSError: The path cannot be opened for writing, such as
                ``IsADirectoryError`` for a directory.
        """
        if not isinstance(buffer_size, int) or buffer_size < 1:
            raise ValueError(f"buffer_size must be an int >= 1, not {buffer_size!r}")
        if isinstance(dst, (str, os.PathLike)):
            opener = self._opener
            if opener is None:
                raise TypeError(
                    "this upload was decoded without an opener (FormDecoder(opener=...)), "
                    "so it cannot open a path: pass a file opened 'wb' instead"
                )
            file = opener(dst)
            try:
                return self._copy_to(file, buffer_size)
            finally:
                file.close()
        return self._copy_to(dst, buffer_size)

    def _copy_to(self, dst: _Writable, buffer_size: int) -> int:
        self.stream.seek(0)
        written = 0
        read = self.stream.read
        while chunk := read(buffer_size):
            dst.write(chunk)
            written += len(chunk)
        return written

    def close(self) -> None:
        """Close the spool file, which releases its memory or disk space."""
        self.stream.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<UploadedFile {self.name!r}: {self.filename!r} "
            f"({self.content_type or 'no content type'}, {self.size} bytes)>"
        )


V = TypeVar("V")


class _FormMultiDict(ImmutableMultiDict[str, V]):
    """The fields or files of a decoded form, where an absent key is a 400."""

    __slots__ = ()

    # NOTE: a view that indexes a field the client left out gets an error that is both a
    # KeyError and a 400, so it answers 400 naming the key, as Flask does, not 500.
    key_error = BadRequestKeyError


def _as_form(data: ImmutableMultiDict[str, V]) -> ImmutableMultiDict[str, V]:
    """Return ``data`` as a form multidict: a read-only one shares its lists, no copy."""
    return data if isinstance(data, _FormMultiDict) else _FormMultiDict(data)


class _FormParts(NamedTuple):
    form: ImmutableMultiDict[str, str]
    files: ImmutableMultiDict[str, UploadedFile]


class FormData(_FormParts):
    """A decoded form: its text fields and its uploaded files.

    Unpacks as ``form, files = data``. ``form`` holds the text fields and
    ``files`` the :class:`UploadedFile` objects, each name's values in body
    order. The events keep the order across names.

    Both are read-only multidicts in which ``form[name]`` and ``files[name]``
    raise :class:`~sansio_http.BadRequestKeyError` for a name the body lacks:
    a ``KeyError`` that is also a 400 error, so a view that lets it escape
    answers 400 naming the field, not 500. ``get()`` and ``in`` never raise.

    Args:
        form: The text fields; any multidict, which a form's own replaces.
        files: The uploaded files, likewise.
    """

    __slots__ = ()

    def __new__(
        cls, form: ImmutableMultiDict[str, str], files: ImmutableMultiDict[str, UploadedFile]
    ) -> Self:
        return super().__new__(cls, _as_form(form), _as_form(files))

    def close(self) -> None:
        """Close every uploaded file."""
        for _, upload in self.files.items(multi=True):
            upload.close()


# Characters that no common file system accepts in a name, or that a shell or a Windows
# API reads specially: path separators, Windows reserved characters, C0/C1 controls, DEL;
# and lone surrogates, which are no characters at all and cannot be encoded as UTF-8.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f-\x9f<>:"/\\|?*\ud800-\udfff]')
# Device names that Windows opens as devices in every directory, with any extension.
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789¹²³"]
)
# Linux, macOS and Windows all cap a name at 255 bytes (or UTF-16 units).
_MAX_NAME_BYTES = 255


def safe_filename(filename: str, default: str = "upload") -> str:
    r"""Return a version of a client's file name that is safe as one path part.

    Keeps only the part after the last ``/`` or ``\``, normalises Unicode
    to NFC, drops control and Windows-reserved characters, strips leading and
    trailing dots and spaces (no hidden files, nothing Windows would trim),
    prefixes Windows device names such as ``CON`` with ``_``, and keeps the
    result within 255 UTF-8 bytes, extension included. Non-ASCII letters
    stay; lone surrogates (left by ``surrogateescape`` decoding) go. The
    result never contains a path separator and is never ``.`` or ``..``; it
    is not guaranteed to be unique.

    Args:
        filename: The name the client sent, such as ``UploadedFile.filename``.
        default: Returned when nothing usable is left; it is not checked.

    Returns:
        A non-empty name to join onto a directory the application chose.
    """
    name = filename.replace("\\", "/").rpartition("/")[2]
    name = _UNSAFE.sub("", unicodedata.normalize("NFC", name)).strip(" .")
    if not name:
        return default
    # Windows reserves the device names whatever follows the first dot: "CON.tar.gz".
    if name.partition(".")[0].upper().rstrip(" ") in _RESERVED:
        name = "_" + name
    encoded = name.encode()
    if len(encoded) > _MAX_NAME_BYTES:
        stem, dot, suffix = name.rpartition(".")
        tail = (dot + suffix).encode() if stem and len(suffix) <= 16 else b""
        head = encoded[: _MAX_NAME_BYTES - len(tail)].decode(errors="ignore")
        name = head.rstrip(" .") + tail.decode()
    return name
