"""File bodies: a reference to (parts of) a file that an adapter sends.

The core never opens, stats or reads a file. A :class:`FileBody` names a path
and the byte regions to send; the WSGI, ASGI and h11 adapters open the file
and copy only those regions. :func:`~sansio_http.file_response` (in
``_file_response``, above the responses) builds a complete ``Response`` from
a path plus the size and modification time the adapter read with
``os.stat``; :func:`safe_join` maps a URL path onto a directory
without leaving it; :func:`content_disposition` names a download.
"""

from __future__ import annotations

import mimetypes
import os
import posixpath
import unicodedata
from collections.abc import Iterable
from typing import Final, NamedTuple
from urllib.parse import quote

__all__ = [
    "FileBody",
    "FileRegion",
    "content_disposition",
    "guess_content_type",
    "safe_join",
]


class FileRegion(NamedTuple):
    """A run of bytes of a file: ``length`` bytes from ``offset``.

    A ``length`` of ``None`` means "up to the end of the file"; only a
    :class:`FileBody` built without a length holds such a region.
    """

    offset: int
    length: int | None


#: One piece of a :class:`FileBody`: literal bytes or a region of the file.
Segment = bytes | FileRegion


def _check_region(offset: int, length: int | None) -> None:
    # bool is an int subclass; FileBody(path, offset=True) is a caller bug.
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ValueError(f"offset must be an int >= 0, not {offset!r}")
    if length is not None and (
        not isinstance(length, int) or isinstance(length, bool) or length < 0
    ):
        raise ValueError(f"length must be None or an int >= 0, not {length!r}")


class FileBody:
    """A response body read from a file by the adapter, never by the core.

    The body is the concatenation of :attr:`segments`, in order. Each
    segment is either ``bytes`` to send as they are (the part headers and
    boundaries of a ``multipart/byteranges`` body) or a :class:`FileRegion`
    of the file at :attr:`path`. An adapter sends it like this::

        with open(body.path, "rb") as file:
            for segment in body.segments:
                if isinstance(segment, bytes):
                    send(segment)
                    continue
                file.seek(segment.offset)
                remaining = segment.length      # None: up to end of file
                while remaining is None or remaining > 0:
                    size = CHUNK if remaining is None else min(CHUNK, remaining)
                    chunk = file.read(size)
                    if not chunk:
                        break
                    send(chunk)
                    if remaining is not None:
                        remaining -= len(chunk)
                if remaining:                   # the file shrank since stat()
                    abort_connection()

    The contract for adapters:

    - Open :attr:`path` once, in binary mode, and read only the regions.
    - If a region ends early because the file shrank after it was stat'ed,
      the response already promised ``Content-Length`` bytes: close the
      connection instead of padding or sending a short body silently.
    - :attr:`content_length` is the total number of bytes, or ``None`` when
      the last region runs to the end of the file (then the adapter stats
      the file or streams without a length).
    - A WSGI adapter may hand a single-region body to ``wsgi.file_wrapper``;
      an ASGI adapter may use the ``http.response.zerocopysend`` extension.

    Args:
        path: The file to read, as ``str`` or ``os.PathLike[str]``.
        offset: Where the region starts, in bytes.
        length: How many bytes to send, or ``None`` for up to the end.

    Raises:
        TypeError: ``path`` is not text (a bytes path).
        ValueError: ``offset`` or ``length`` is negative or not an int.
    """

    __slots__ = ("_content_length", "_path", "_segments")

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        offset: int = 0,
        length: int | None = None,
    ) -> None:
        _check_region(offset, length)
        self._path = text_path(path)
        self._segments: tuple[Segment, ...] = (FileRegion(offset, length),)
        self._content_length = length

    @classmethod
    def from_segments(cls, path: str | os.PathLike[str], segments: Iterable[Segment]) -> FileBody:
        """Build a body from literal byte strings and regions of one file.

        Args:
            path: The file the regions refer to.
            segments: ``bytes`` and :class:`FileRegion` items, sent in order.
                Every region but the last must have a length.

        Returns:
            A new :class:`FileBody`.

        Raises:
            TypeError: A segment is neither ``bytes`` nor a region.
            ValueError: A region is invalid, or an open-ended region is
                followed by more segments.
        """
        parts: list[Segment] = []
        total: int | None = 0
        for segment in segments:
            if total is None:
                raise ValueError("only the last segment may run to the end of the file")
            if isinstance(segment, FileRegion):
                _check_region(segment.offset, segment.length)
                total = None if segment.length is None else total + segment.length
            elif isinstance(segment, bytes):
                total += len(segment)
            else:
                raise TypeError(f"a segment is bytes or FileRegion, not {type(segment).__name__}")
            parts.append(segment)
        body = cls.__new__(cls)
        body._path = text_path(path)
        body._segments = tuple(parts)
        body._content_length = total
        return body

    @property
    def path(self) -> str:
        """The file to open, as text (``os.fspath`` of the given path)."""
        return self._path

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The pieces of the body, in the order they are sent."""
        return self._segments

    @property
    def content_length(self) -> int | None:
        """The body's size in bytes, or ``None`` if it runs to end of file."""
        return self._content_length

    def slice(self, start: int, stop: int) -> FileBody:
        """Return the body's bytes ``[start, stop)`` as a new body.

        Literal segments are cut as bytes and regions are narrowed, so the
        result still reads only what it sends.

        Args:
            start: The first byte position, counted from 0.
            stop: One past the last byte position; at most the length.

        Returns:
            A new :class:`FileBody` of ``stop - start`` bytes.

        Raises:
            ValueError: The length is unknown, or ``0 <= start <= stop <=
                content_length`` does not hold.
        """
        length = self._content_length
        if length is None:
            raise ValueError("cannot slice a file body of unknown length")
        if not 0 <= start <= stop <= length:
            raise ValueError(f"slice [{start}, {stop}) is outside a body of {length} bytes")
        parts: list[Segment] = []
        position = 0
        for segment in self._segments:
            # A known content_length means every region has a length: "or 0" never applies.
            size = len(segment) if isinstance(segment, bytes) else segment.length or 0
            low, high = max(start, position), min(stop, position + size)
            if low < high:
                if isinstance(segment, bytes):
                    parts.append(segment[low - position : high - position])
                else:
                    parts.append(FileRegion(segment.offset + low - position, high - low))
            position += size
        return FileBody.from_segments(self._path, parts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileBody):
            return NotImplemented
        return self._path == other._path and self._segments == other._segments

    def __hash__(self) -> int:
        return hash((self._path, self._segments))

    def __repr__(self) -> str:
        if len(self._segments) == 1 and isinstance(self._segments[0], FileRegion):
            offset, length = self._segments[0]
            return f"FileBody({self._path!r}, offset={offset}, length={length})"
        return f"FileBody.from_segments({self._path!r}, {list(self._segments)!r})"


def text_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"path must be str or os.PathLike[str], not {type(text).__name__}")
    return text


# Windows opens these devices whatever the directory or extension ("nul.txt"
# is NUL), so a request for one must never reach open() there.
_WINDOWS_DEVICES: Final = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{name}{digit}" for name in ("com", "lpt") for digit in "0123456789¹²³"}
)


def safe_join(base: str | os.PathLike[str], *parts: str) -> str | None:
    """Join URL path parts onto a directory, or None if that would leave it.

    Each part is a ``/``-separated, already percent-decoded path such as
    ``request.path`` below a mount point. Empty and ``.`` segments are
    skipped. The join is refused (``None``) when a part is absolute or has a
    ``..`` segment (even one that would stay inside), a backslash, a NUL, a
    colon (a Windows drive letter or NTFS stream such as ``file::$DATA``) or
    a Windows device name (``con``, ``nul.txt``, ``com1``...). Those checks
    are made on every platform so that an app behaves the same everywhere.

    SECURITY: this is string work only; it cannot see the file system. An
    adapter that opens the result must also refuse a symlink that leads
    outside ``base`` (compare ``os.path.realpath`` of both), since only it
    can resolve links; and it must treat a directory as "not found".

    Args:
        base: The directory to serve from, trusted and not checked.
        *parts: Untrusted path parts to join below ``base``.

    Returns:
        ``base`` joined with the parts' segments by ``os.path.join``, or
        ``None`` when a part is refused.
    """
    segments: list[str] = []
    for part in parts:
        # SECURITY: "\\" is a separator on Windows, and NUL ends the name at the OS.
        if "\\" in part or "\x00" in part or ":" in part or part.startswith("/"):
            return None
        for segment in part.split("/"):
            if segment in ("", "."):
                continue
            if segment == ".." or _is_windows_device(segment):
                return None
            segments.append(segment)
    if not segments:
        return os.path.join(text_path(base))
    # PERF: one join of the segments, not os.path.join(base, *segments), which
    # adds them one by one, O(k²) for k segments. The same result: no segment
    # holds a separator, a drive or a leading "/" (all refused above).
    return os.path.join(text_path(base), os.sep.join(segments))


def _is_windows_device(segment: str) -> bool:
    # Windows ignores anything from the first dot and trailing spaces: "NUL .txt" is NUL.
    return segment.split(".", 1)[0].rstrip(" ").lower() in _WINDOWS_DEVICES


# RFC 5987 attr-char besides ALPHA / DIGIT ("-", ".", "_" and "~" are always safe for quote()).
_ATTR_CHARS: Final = "!#$&+-.^_`|~"


def content_disposition(filename: str | None = None, *, as_attachment: bool = True) -> str:
    r"""Build a Content-Disposition value that names a file (RFC 6266).

    An ASCII filename that needs no escaping is sent as ``filename="..."``
    alone. Any other name is sent twice: as ``filename*=UTF-8''...`` (RFC
    8187 percent-encoding, which every current browser prefers) and as an
    ASCII ``filename`` fallback for older clients, with accents stripped and
    other unsafe characters (non-ASCII, control characters, ``"`` and
    ``\``) replaced by ``_``.

    Args:
        filename: The name the client should save the file under, or
            ``None`` for no name.
        as_attachment: ``True`` to ask for a download (``attachment``),
            ``False`` to display it in the browser (``inline``).

    Returns:
        The header value, e.g. ``attachment; filename="report.pdf"``.
    """
    disposition = "attachment" if as_attachment else "inline"
    if filename is None:
        return disposition
    fallback = _ascii_fallback(filename)
    # NOTE: some clients percent-decode a plain filename, so "%" also gets filename*.
    if fallback == filename and "%" not in filename:
        return f'{disposition}; filename="{filename}"'
    encoded = quote(filename, safe=_ATTR_CHARS, encoding="utf-8", errors="replace")
    return f"{disposition}; filename=\"{fallback}\"; filename*=UTF-8''{encoded}"


def _ascii_fallback(filename: str) -> str:
    decomposed = unicodedata.normalize("NFKD", filename)
    return "".join(
        char if " " <= char <= "~" and char not in '"\\' else "_"
        for char in decomposed
        # Drop the accents that NFKD split off: "é" becomes "e", not "e_".
        if not unicodedata.combining(char)
    )


# PERF/NOTE: our own table for the types a web app serves, so that the answer
# does not depend on the Python version (3.12 changed ".js") or on the host's
# /etc/mime.types. Text types name UTF-8, as Go's net/http and Caddy do;
# pass content_type to file_response for files in another charset.
_WEB_TYPES: Final[dict[str, str]] = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".xml": "application/xml",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".pdf": "application/pdf",
    ".zip": "application/zip",
    ".gz": "application/gzip",
    ".tgz": "application/gzip",
    ".br": "application/octet-stream",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".svg": "image/svg+xml",
    ".ico": "image/vnd.microsoft.icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".wav": "audio/wav",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
}

#: The type sent when the file name's extension is not known.
DEFAULT_CONTENT_TYPE: Final = "application/octet-stream"


def guess_content_type(filename: str) -> str:
    """Guess a file's Content-Type from its name, reading no file.

    Common web extensions come from a built-in table; others from the
    standard library's ``mimetypes.types_map``, read as a dict. NOTE:
    ``mimetypes.guess_type`` and ``mimetypes.MimeTypes()`` would call
    ``mimetypes.init()``, which reads the host's ``mime.types`` files: the
    core calls neither. Compression suffixes are not treated as encodings:
    ``x.tar.gz`` is ``application/gzip``, which is what its bytes are.

    Args:
        filename: A file name or path; only the extension is looked at.

    Returns:
        A media type, ``text/*`` ones with ``charset=utf-8``, or
        ``application/octet-stream`` when the extension is unknown.
    """
    extension = posixpath.splitext(filename.replace("\\", "/"))[1].lower()
    known = _WEB_TYPES.get(extension)
    if known is not None:
        return known
    guessed = mimetypes.types_map.get(extension)
    if guessed is None:
        return DEFAULT_CONTENT_TYPE
    return f"{guessed}; charset=utf-8" if guessed.startswith("text/") else guessed
