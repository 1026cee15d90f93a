"""Encoding request bodies: JSON, urlencoded forms and multipart/form-data.

The client encodes forms the way browsers do (the HTML Standard's
"multipart/form-data encoding algorithm"), so an application sees in its
tests the bytes it will see in production: UTF-8 names, quotes and line
breaks in names and file names escaped as ``%22``, ``%0D`` and ``%0A``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any
from urllib.parse import urlencode

from sansio_http.messages._files import guess_content_type

__all__ = ["FileSpec", "FormData", "encode_form", "encode_json", "encode_multipart"]

#: A form: a mapping of names to a value or a list of values, or pairs.
FormData = (
    Mapping[str, str | int | float | Sequence[str | int | float]]
    | Sequence[tuple[str, str | int | float]]
)

#: A file to upload: its content (bytes, text or a binary file object), or a
#: ``(filename, content)`` or ``(filename, content, content_type)`` tuple.
FileSpec = (
    bytes
    | str
    | IO[bytes]
    | tuple[str | None, bytes | str | IO[bytes]]
    | tuple[str | None, bytes | str | IO[bytes], str | None]
)


def form_pairs(data: FormData | str | bytes) -> list[tuple[str, str]]:
    """Flatten a form into ``(name, value)`` text pairs, in order."""
    if isinstance(data, (str, bytes)):
        raise TypeError("data= takes a mapping or pairs; send raw bodies with content=")
    pairs: list[tuple[str, str]] = []
    items: Iterable[tuple[str, Any]] = data.items() if isinstance(data, Mapping) else data
    for name, value in items:
        if isinstance(value, (list, tuple)):
            pairs.extend((name, _text(item)) for item in value)
        else:
            pairs.append((name, _text(value)))
    return pairs


def _text(value: object) -> str:
    if isinstance(value, bool):
        # JSON's spelling, the one JavaScript's URLSearchParams would send.
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def encode_json(value: object) -> tuple[bytes, str]:
    """Encode a JSON body.

    Args:
        value: Anything ``json.dumps`` accepts.

    Returns:
        The UTF-8 body and its Content-Type.
    """
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return body, "application/json"


def encode_form(data: FormData) -> tuple[bytes, str]:
    """Encode an ``application/x-www-form-urlencoded`` body.

    Args:
        data: The fields; a list value sends the name once per item.

    Returns:
        The body and its Content-Type.
    """
    return urlencode(form_pairs(data)).encode("ascii"), "application/x-www-form-urlencoded"


def _escape(name: str) -> bytes:
    # HTML Standard, multipart/form-data encoding: LF, CR and '"' become %0A, %0D, %22.
    escaped = name.replace("\n", "%0A").replace("\r", "%0D").replace('"', "%22")
    return escaped.encode("utf-8")


def _file_parts(spec: FileSpec) -> tuple[str | None, bytes, str]:
    """Return ``(filename, content, content_type)`` for a file argument."""
    filename: str | None
    content_type: str | None = None
    if isinstance(spec, tuple):
        filename, content, *rest = spec
        content_type = rest[0] if rest else None
    else:
        content = spec
        # A file object names itself, as an <input type=file> would.
        name = getattr(spec, "name", None)
        filename = name.replace("\\", "/").rpartition("/")[2] if isinstance(name, str) else None
        filename = filename or "upload"
    if isinstance(content, str):
        data = content.encode("utf-8")
    elif isinstance(content, bytes):
        data = content
    else:
        data = content.read()
    if content_type is None:
        content_type = guess_content_type(filename) if filename else "application/octet-stream"
    return filename, data, content_type


def encode_multipart(
    data: FormData | None,
    files: Mapping[str, FileSpec] | Sequence[tuple[str, FileSpec]],
    *,
    boundary: str | None = None,
) -> tuple[bytes, str]:
    """Encode a ``multipart/form-data`` body, as a browser submits a form.

    Args:
        data: The text fields, sent first.
        files: The files by field name. A file object's own name gives the
            file name; the Content-Type is guessed from the file name unless
            given.
        boundary: The boundary; a random one by default.

    Returns:
        The body and its Content-Type (with the boundary).

    Example:
        >>> body, content_type = encode_multipart(
        ...     {"title": "Notes"}, {"doc": ("a.txt", b"hi")}, boundary="b"
        ... )
        >>> content_type
        'multipart/form-data; boundary=b'
        >>> body.splitlines()[5:8]
        [b'Content-Disposition: form-data; name="doc"; filename="a.txt"', \
b'Content-Type: text/plain; charset=utf-8', b'']
    """
    boundary = boundary or "sansio-http-" + secrets.token_hex(16)
    marker = b"--" + boundary.encode("ascii")
    chunks: list[bytes] = []
    for name, value in form_pairs(data or {}):
        chunks += [marker, b'Content-Disposition: form-data; name="' + _escape(name) + b'"', b""]
        chunks.append(value.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8"))
    items = files.items() if isinstance(files, Mapping) else files
    for name, spec in items:
        filename, content, content_type = _file_parts(spec)
        disposition = b'Content-Disposition: form-data; name="' + _escape(name) + b'"'
        if filename is not None:
            disposition += b'; filename="' + _escape(filename) + b'"'
        chunks += [marker, disposition, b"Content-Type: " + content_type.encode("latin-1"), b""]
        chunks.append(content)
    chunks += [marker + b"--", b""]
    return b"\r\n".join(chunks), f"multipart/form-data; boundary={boundary}"
