"""The header fields a response starts with, and which responses carry content.

:class:`~sansio_http.Response` builds its first fields from these: the status
check, the ``Content-Length`` field of a sized body (made once for small
ones), the ``Content-Type`` field of a content type with its charset (each
distinct value checked and parsed once), the rule of RFC 9110 on which
statuses and methods have no content, which the adapters ask too
(:func:`content_allowed`), and which values are no body at all
(:func:`body_refused`).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Mapping
from types import AsyncGeneratorType, GeneratorType
from typing import Final

from sansio_http.http import parse_options_header
from sansio_http.http._headers import MutableHeaders
from sansio_http.http._status import PHRASES

__all__ = [
    "CONTENT_TYPES",
    "FRAMING_FIELDS",
    "JSON_FIELD",
    "NO_BODY_FIX",
    "SMALL_LENGTHS",
    "STATUS_LINES",
    "TEXT_PLAIN",
    "TEXT_PLAIN_FIELD",
    "VALID_STATUSES",
    "body_refused",
    "checked_status",
    "content_allowed",
    "content_refused",
    "content_type_field",
    "has_no_length",
    "length_field",
]

TEXT_PLAIN: Final = "text/plain; charset=utf-8"
TEXT_PLAIN_FIELD: Final = (b"content-type", b"text/plain; charset=utf-8")
JSON_FIELD: Final = (b"content-type", b"application/json")
# PERF: the status lines of registered codes are built once.
STATUS_LINES: Final = {code: f"{code} {phrase}" for code, phrase in PHRASES.items()}


#: The status codes a response may have (RFC 9110 §15). PERF: a constructor tells a
#: valid int status with one lookup; anything else goes to checked_status.
VALID_STATUSES: Final = frozenset(range(100, 600))


def checked_status(status: object) -> int:
    # The status is whatever the caller passed: typed ``object`` so that the
    # compiled build (mypyc checks each argument's type) raises the message below.
    # bool is an int subclass, and Response(True) is a bug, not a 1xx.
    if not isinstance(status, int) or isinstance(status, bool):
        raise TypeError(f"status must be an int, not {type(status).__name__}")
    # RFC 9110 §15: a status code is three digits, 100 to 599.
    if not 100 <= status <= 599:
        raise ValueError(f"status must be between 100 and 599, got {status}")
    return int(status)


# PERF: the Content-Length fields of small bodies, made once; formatting one per
# response costs more than the rest of a small response's fields.
SMALL_LENGTHS: Final = tuple((b"content-length", b"%d" % size) for size in range(1024))


def length_field(size: int) -> tuple[bytes, bytes]:
    return SMALL_LENGTHS[size] if size < 1024 else (b"content-length", b"%d" % size)


def has_no_length(status: int) -> bool:
    # RFC 9110 §8.6: no Content-Length in a 1xx or 204; in a 304 it would have to be
    # the length of the 200 that was not sent, which only the caller knows. The same
    # three have no content (RFC 9110 §15.2, §15.3.5, §15.4.5).
    return status < 200 or status == 204 or status == 304


def content_refused(status: int, fix: str) -> ValueError:
    section = "15.2" if status < 200 else "15.3.5" if status == 204 else "15.4.5"
    return ValueError(f"a {status} response has no content (RFC 9110 §{section}); {fix}")


NO_BODY_FIX: Final = "build it without a body, or with b''"
_BODY_TYPES: Final = "a body is bytes, str, an iterable or async iterable of bytes, or a FileBody"
# What a streamed body yields; text is checked (and refused) when it is sent.
_CHUNK_TYPES: Final = (bytes, bytearray, memoryview, str)
_GENERATORS: Final = (GeneratorType, AsyncGeneratorType)


def body_refused(body: object) -> TypeError | None:
    """Return the error for a body that is no body, or None for chunks.

    Called for a body that is not bytes, str or a FileBody. A mapping, or a
    list or tuple whose first item is not a chunk, is iterable, yet it is a
    value meant for JSON: sending it would fail far from the mistake, or
    send its keys. Only the first item is looked at, so that a long list of
    chunks costs nothing more; a later item that is not bytes is refused
    when it is sent.
    """
    if isinstance(body, _GENERATORS):
        return None  # PERF: the usual stream, before the slower checks of ABCs
    if isinstance(body, (list, tuple)):
        if not body or isinstance(body[0], _CHUNK_TYPES):
            return None
        # A view's tuple is (body, status[, headers]), never JSON.
        kind, back = ("list", "the list") if isinstance(body, list) else ("tuple", "a list")
        return TypeError(
            f"{_BODY_TYPES}, not a {kind} of {type(body[0]).__name__}: for JSON, use"
            f" JSONResponse([...]) or return {back} from a view"
        )
    if isinstance(body, Mapping):
        kind = type(body).__name__
        return TypeError(
            f"{_BODY_TYPES}, not {kind}: for JSON, use JSONResponse({{...}}) or return"
            f" the {kind} from a view"
        )
    if isinstance(body, (Iterable, AsyncIterable)):
        return None
    return TypeError(f"{_BODY_TYPES}, not {type(body).__name__}")


# RFC 9110 §8.6 and RFC 9112 §6.1: never in a 1xx or 204, whoever set them.
FRAMING_FIELDS: Final = (b"content-length", b"transfer-encoding")


def content_allowed(status: int, method: str) -> bool:
    """Tell whether a response may carry content (RFC 9110 §6.4.1).

    An adapter sends the body only when this is true, whatever the
    application built: a 1xx, 204 or 304 response never has content, nor
    does any answer to HEAD or a 2xx answer to CONNECT (which starts a
    tunnel). The header fields are sent either way.

    Args:
        status: The status code.
        method: The request method, as sent: methods are case-sensitive
            (RFC 9110 §9.1), and the core's requests hold them upper-cased.

    Returns:
        False when the body must not be sent.
    """
    if status < 200 or status == 204 or status == 304 or method == "HEAD":
        return False
    return method != "CONNECT" or status >= 300


def with_charset(content_type: str) -> str:
    if content_type[:5].lower() != "text/":
        return content_type  # PERF: only text types are parsed
    mimetype, params = parse_options_header(content_type)
    if mimetype.startswith("text/") and "charset" not in params:
        # A text type without a charset is read as US-ASCII or sniffed (RFC 2046 §4.1.2);
        # say that what we send is UTF-8.
        return content_type + "; charset=utf-8"
    return content_type


# The encoded Content-Type field and the charset of each content type given to a
# Response alone, so that each distinct value is checked and parsed once. Bounded:
# applications use a handful, and one that made them from input cannot grow it.
CONTENT_TYPES: dict[str, tuple[tuple[bytes, bytes], str]] = {}
MAX_CONTENT_TYPES: Final = 64


def content_type_field(content_type: str) -> tuple[tuple[bytes, bytes], str]:
    """Return the encoded Content-Type field of ``content_type``, and its charset.

    Raises:
        TypeError: ``content_type`` is not a ``str``.
        HeaderValueError: It cannot be sent (CR, LF, NUL, or not latin-1).
    """
    value = with_charset(content_type)
    checked = MutableHeaders()
    checked["content-type"] = value  # the checks of every header field
    charset = parse_options_header(value)[1].get("charset") or "utf-8"
    known = (checked.raw()[0], charset)
    if len(CONTENT_TYPES) < MAX_CONTENT_TYPES:
        CONTENT_TYPES[content_type] = known
    return known
