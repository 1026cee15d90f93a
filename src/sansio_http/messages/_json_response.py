"""``JSONResponse``: a value sent as ``application/json``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Final

from sansio_http.messages._response import HeadersInput, Response
from sansio_http.messages._response_fields import (
    JSON_FIELD,
    SMALL_LENGTHS,
    VALID_STATUSES,
    checked_status,
    content_refused,
    has_no_length,
    length_field,
)

__all__ = ["JSONResponse"]


# PERF: json.dumps builds a new encoder for every call that passes options; these two
# are built once. Compact separators and UTF-8 text, as RFC 8259 §8.1 asks of JSON
# exchanged between systems. RFC 8259 §6 has no NaN or infinity: the standard library
# would write them as NaN and Infinity, which no JSON parser accepts.
_JSON_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_ASCII_JSON_ENCODER: Final = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


# PERF: JSONEncoder.encode makes the C encoder of the standard library anew on each
# call, through two Python calls (encode, then iterencode); _encode makes it directly,
# with the arguments iterencode gives it for _JSON_ENCODER's options. None where the
# C accelerator is missing; a str, which encode() escapes on its own, goes there too.
_C_MAKE_ENCODER: Final[Callable[..., Callable[[Any, int], Iterable[str]]] | None] = getattr(
    json.encoder, "c_make_encoder", None
)
_ESCAPE: Final = json.encoder.encode_basestring
_DEFAULT: Final = _JSON_ENCODER.default


def _encode(data: Any) -> str:
    if _C_MAKE_ENCODER is None or type(data) is str:
        return _JSON_ENCODER.encode(data)
    # markers (a new dict: circular references are refused), default, the string
    # encoder, indent, the key and item separators, sort_keys, skipkeys, allow_nan.
    encoder = _C_MAKE_ENCODER({}, _DEFAULT, _ESCAPE, None, ":", ",", False, False, False)
    return "".join(encoder(data, 0))


def _dump_json(data: Any) -> bytes:
    try:
        text = _encode(data)
    except ValueError as exc:
        # The encoder's own words for a float out of range; a circular reference, the
        # other ValueError it raises, goes on as it is.
        if not str(exc).startswith("Out of range float"):
            raise
        raise ValueError(
            "JSON has no NaN or infinity (RFC 8259 §6): replace them before encoding,"
            " with None or a string"
        ) from exc
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8; as an escape it is still valid JSON text.
        return _ASCII_JSON_ENCODER.encode(data).encode()


class JSONResponse(Response):
    """A response whose body is ``data`` as JSON, sent as application/json.

    Args:
        data: What to serialise.
        status: The status code.
        headers: Initial header fields.
        dumps: A function that serialises ``data`` to ``str`` or ``bytes``
            (for example ``orjson.dumps``); by default the standard library's
            ``json.dumps`` with compact separators, keeping non-ASCII text.
            What it writes is sent as it is.

    Raises:
        TypeError: ``data`` cannot be serialised by the default ``dumps``.
        ValueError: ``data`` holds NaN or an infinity, which JSON cannot
            (RFC 8259 §6), or a circular reference; or the status is 1xx, 204
            or 304, which have no content.
    """

    __slots__ = ()

    def __init__(
        self,
        data: Any,
        status: int = 200,
        headers: HeadersInput | None = None,
        *,
        dumps: Callable[[Any], str | bytes] | None = None,
    ) -> None:
        if status.__class__ is not int or status not in VALID_STATUSES:
            status = checked_status(status)
        # PERF: a 200 without the call.
        if status != 200 and has_no_length(status):
            # Even null is four bytes of content.
            raise content_refused(status, "use Response(status=...) without a body")
        if dumps is None:
            body = _dump_json(data)
        else:
            text = dumps(data)
            body = text.encode() if isinstance(text, str) else text
        if headers is not None or type(body) is not bytes:
            # RFC 8259 §11: application/json has no charset parameter; it is UTF-8.
            super().__init__(body, status, headers, "application/json")
            return
        # PERF: without headers, the fields are known to be valid: store them encoded, as
        # Response does for text.
        self._status = status
        self._body = body
        self._headers = None
        size = len(body)
        self._fields = [JSON_FIELD, SMALL_LENGTHS[size] if size < 1024 else length_field(size)]
