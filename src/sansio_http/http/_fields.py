"""One header field: the names and values that can be sent (RFC 9110 §5).

The checks that :class:`~sansio_http.MutableHeaders` applies to every field
it is given, and the encoding of field text, kept apart from the containers
in ``_headers`` so that they read as the grammar they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, cast

__all__ = ["HeaderValueError"]

# RFC 9110 §5.1: a field name is a token; §5.6.2 lists the token characters.
_is_token = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+").fullmatch
# RFC 9110 §5.5: CR, LF and NUL in a field value are "invalid and dangerous" (they split or
# truncate the header block when it is written out).
_has_forbidden = re.compile(rb"[\r\n\x00]").search
# How much of a wrong argument an error message repeats: enough to recognise it.
_SHOWN_LENGTH = 60


class HeaderValueError(ValueError):
    """A header name or value that cannot be sent was given to ``MutableHeaders``."""


def _shown(given: object) -> str:
    """Describe a wrong argument by its type and a short repr, for an error message."""
    text = repr(given)
    if len(text) > _SHOWN_LENGTH:
        text = text[: _SHOWN_LENGTH - 3] + "..."
    return f"{type(given).__name__} ({text})"


def _subject(what: str, name: object) -> str:
    """Say which name or value an error message is about."""
    return f"a header {what}" if name is None else f"header {name!r}: the {what}"


def _not_text(given: object, what: str = "name", name: object = None) -> TypeError:
    return TypeError(
        f"{_subject(what, name)} given by itself must be str, not {_shown(given)}; "
        "raw bytes pairs go to the constructor or extend()"
    )


def _not_fields(given: object) -> TypeError:
    return TypeError(
        "header fields must be a mapping or an iterable of (name, value) pairs, "
        f"not {_shown(given)}"
    )


def _not_pair(given: object) -> TypeError:
    return TypeError(f"a header field must be a (name, value) pair, not {_shown(given)}")


def _lookup_key(name: str) -> bytes | None:
    """Return the bytes a stored field name is compared with, or None if none can match."""
    try:
        # NOTE: bytes.lower() folds ASCII only, the same folding used for stored names.
        return name.encode("latin-1").lower()
    except UnicodeEncodeError:
        return None
    except AttributeError:
        raise _not_text(name) from None


def _encode(text: str | bytes, what: str, name: object = None) -> bytes:
    if isinstance(text, bytes):
        return text
    if not isinstance(text, str):
        # NOTE: no silent str(): None, a number or a list where text belongs is a bug in
        # the caller (None would go out as the word "None"), so it is named here, at the call.
        raise TypeError(f"{_subject(what, name)} must be str or bytes, not {_shown(text)}")
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise HeaderValueError(f"header {what} {text!r} is not latin-1 text") from exc


def _text(text: object, what: str = "name", name: object = None) -> str:
    if isinstance(text, str):
        return text
    raise _not_text(text, what, name)


def _pair(field: object) -> tuple[object, object]:
    """Return the name and value of one field of an iterable, refusing other shapes."""
    # A str of two characters would unpack into a name and a value: refuse it by type.
    if isinstance(field, (str, bytes, bytearray)):
        raise _not_pair(field)
    try:
        name, value = cast("Iterable[object]", field)
    except (TypeError, ValueError):
        raise _not_pair(field) from None
    return name, value


def _field_iterator(raw: object) -> Iterator[Any]:
    """Iterate over the fields of ``raw``, refusing what holds no fields (a str, a number)."""
    # A str is iterable too, but its characters are no fields.
    if isinstance(raw, (str, bytes, bytearray)):
        raise _not_fields(raw)
    try:
        return iter(cast("Iterable[Any]", raw))
    except TypeError:
        raise _not_fields(raw) from None


def _checked_field(name: str | bytes, value: str | bytes) -> tuple[bytes, bytes]:
    """Encode one field for sending, refusing what RFC 9110 forbids."""
    raw_name = _encode(name, "name")
    if _is_token(raw_name) is None:
        raise HeaderValueError(f"header name {name!r} is not an RFC 9110 token")
    raw_value = _encode(value, "value", name)
    if _has_forbidden(raw_value) is not None:
        raise HeaderValueError(f"header value {value!r} contains CR, LF or NUL")
    return raw_name.lower(), raw_value


def _encoded_pair(field: object) -> tuple[bytes, bytes]:
    """Encode one ``(name, value)`` field of an iterable as it is stored, unchecked."""
    name, value = _pair(field)
    return _encode(name, "name").lower(), _encode(value, "value", name)  # type: ignore[arg-type]


def _checked_pair(field: object) -> tuple[bytes, bytes]:
    """Check one ``(name, value)`` field of an iterable and encode it for sending."""
    # PERF: a tuple of two is the usual shape; anything else takes the careful path.
    if type(field) is tuple and len(field) == 2:
        return _checked_field(field[0], field[1])
    name, value = _pair(field)
    return _checked_field(name, value)  # type: ignore[arg-type]
