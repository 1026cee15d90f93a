"""One header field: the names and values that can be sent (RFC 9110 §5).

The checks that :class:`~sansio_http.MutableHeaders` applies to every field
it is given, and the encoding of field text, kept apart from the containers
in ``_headers`` so that they read as the grammar they are.
"""

from __future__ import annotations

import re

__all__ = ["HeaderValueError"]

# RFC 9110 §5.1: a field name is a token; §5.6.2 lists the token characters.
_is_token = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+").fullmatch
# RFC 9110 §5.5: CR, LF and NUL in a field value are "invalid and dangerous" (they split or
# truncate the header block when it is written out).
_has_forbidden = re.compile(rb"[\r\n\x00]").search


class HeaderValueError(ValueError):
    """A header name or value that cannot be sent was given to ``MutableHeaders``."""


def _not_text(name: object, what: str = "name") -> TypeError:
    return TypeError(
        f"a header {what} given by itself must be str, not {type(name).__name__} "
        "(raw bytes pairs go to the constructor or extend())"
    )


def _lookup_key(name: str) -> bytes | None:
    """Return the bytes a stored field name is compared with, or None if none can match."""
    try:
        # NOTE: bytes.lower() folds ASCII only, the same folding used for stored names.
        return name.encode("latin-1").lower()
    except UnicodeEncodeError:
        return None
    except AttributeError:
        raise _not_text(name) from None


def _encode(text: str | bytes, what: str) -> bytes:
    if isinstance(text, bytes):
        return text
    if not isinstance(text, str):
        raise TypeError(f"header {what} must be str or bytes, not {type(text).__name__}")
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise HeaderValueError(f"header {what} {text!r} is not latin-1 text") from exc


def _text(text: object, what: str = "name") -> str:
    if isinstance(text, str):
        return text
    raise _not_text(text, what)


def _checked_field(name: str | bytes, value: str | bytes) -> tuple[bytes, bytes]:
    """Encode one field for sending, refusing what RFC 9110 forbids."""
    raw_name = _encode(name, "name")
    if _is_token(raw_name) is None:
        raise HeaderValueError(f"header name {name!r} is not an RFC 9110 token")
    raw_value = _encode(value, "value")
    if _has_forbidden(raw_value) is not None:
        raise HeaderValueError(f"header value {value!r} contains CR, LF or NUL")
    return raw_name.lower(), raw_value
