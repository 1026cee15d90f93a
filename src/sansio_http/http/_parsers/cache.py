"""``Cache-Control`` in its request and response forms (RFC 9111 §5.2).

Both forms share one syntax, a list of ``name`` or ``name=value``
directives, but hold different directives; each form has its own typed
class. Directives this module does not know are kept as ``extensions``.
The request form is read-only; the response form is built by the
application and written with :meth:`ResponseCacheControl.to_header`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Final

from sansio_http.http._parsers.tokens import iter_pairs, quote

#: RFC 9111 §1.2.2: a delta-seconds value too large to hold is read as this
#: one (2**31, about 68 years), which every cache must be able to store.
MAX_DELTA_SECONDS: Final = 2**31
_MAX_DIGITS: Final = len(str(MAX_DELTA_SECONDS))


def _delta_seconds(text: str | None) -> int:
    """Read delta-seconds; RFC 9111 §4.2.1 advises reading junk as stale (0)."""
    if text is None or not text.isascii() or not text.isdigit():
        return 0
    # PERF: skip int() on long digit runs; they are all past the cap anyway.
    return MAX_DELTA_SECONDS if len(text) > _MAX_DIGITS else min(int(text), MAX_DELTA_SECONDS)


def _field_names(text: str | None) -> bool | list[str]:
    """Read ``no-cache`` or ``private``: bare, or qualified by field names."""
    names = [name.strip().lower() for name in (text or "").split(",")]
    return [name for name in names if name] or True


def _directives(value: str | None) -> dict[str, str | None]:
    """Collect the directives by lower-cased name; the first of each wins."""
    result: dict[str, str | None] = {}
    for name, text in iter_pairs(value or "", ","):
        # RFC 9111 §4.2.1: with duplicates, "the first occurrence should be used".
        result.setdefault(name.lower(), text)
    return result


def _written(name: str, value: object) -> str | None:
    """Return one typed attribute as a directive, or None when it is unset."""
    directive = name.replace("_", "-")
    if value is None or value is False:
        return None
    if value is True or (name == "max_stale" and value == MAX_DELTA_SECONDS):
        return directive
    if isinstance(value, list):
        # RFC 9111 §5.2.2.4: field names are sent in the quoted-string form.
        return f'{directive}="{", ".join(value)}"'
    return f"{directive}={value}"


def _attributes(instance: RequestCacheControl | ResponseCacheControl) -> str:
    written = [_written(item.name, getattr(instance, item.name)) for item in fields(instance)[:-1]]
    written += [
        name if text is None else f"{name}={quote(text)}"
        for name, text in instance.extensions.items()
    ]
    return ", ".join(item for item in written if item is not None)


@dataclass(frozen=True)
class RequestCacheControl:
    """The ``Cache-Control`` directives of a request (RFC 9111 §5.2.1).

    Durations are seconds. A bare ``max-stale`` (any staleness will do) reads
    as :data:`MAX_DELTA_SECONDS`; any malformed duration reads as 0.

    Attributes:
        max_age: The oldest response the client accepts.
        max_stale: How stale a response may be, or None if it may not be.
        min_fresh: How long a response must stay fresh.
        no_cache: Whether a stored response must be validated first.
        no_store: Whether nothing of this exchange may be stored.
        no_transform: Whether intermediaries must not transform the content.
        only_if_cached: Whether only a stored response will do.
        stale_if_error: How stale a response may be on error (RFC 5861).
        extensions: Other directives by lower-cased name; None when bare.
    """

    # NOTE: ``extensions`` stays the last field; the helpers above rely on it.
    max_age: int | None = None
    max_stale: int | None = None
    min_fresh: int | None = None
    no_cache: bool = False
    no_store: bool = False
    no_transform: bool = False
    only_if_cached: bool = False
    stale_if_error: int | None = None
    extensions: dict[str, str | None] = field(default_factory=dict, hash=False)

    def to_header(self) -> str:
        """Return the directives as a header value; ``""`` when none is set."""
        return _attributes(self)


@dataclass
class ResponseCacheControl:
    """The ``Cache-Control`` directives of a response (RFC 9111 §5.2.2).

    Build one, set its attributes, and write it with :meth:`to_header`.
    Durations are seconds; a malformed one reads as 0, so the response counts
    as stale (RFC 9111 §4.2.1).

    Attributes:
        max_age: How long the response stays fresh.
        s_maxage: ``max_age`` for shared caches only.
        no_cache: True, or the field names that must not be reused without
            validation.
        no_store: Whether caches must not store the response.
        no_transform: Whether intermediaries must not transform the content.
        must_revalidate: Whether a stale response must be validated.
        proxy_revalidate: ``must_revalidate`` for shared caches only.
        must_understand: Whether caches must know the status code to store.
        private: True, or the field names that shared caches must not store.
        public: Whether any cache may store the response.
        immutable: Whether the response never changes while fresh (RFC 8246).
        stale_while_revalidate: How long a stale response may be served
            while it is revalidated (RFC 5861).
        stale_if_error: How long a stale response may be served on error
            (RFC 5861).
        extensions: Other directives by lower-cased name; None when bare.
    """

    # NOTE: ``extensions`` stays the last field; the helpers above rely on it.
    max_age: int | None = None
    s_maxage: int | None = None
    no_cache: bool | list[str] = False
    no_store: bool = False
    no_transform: bool = False
    must_revalidate: bool = False
    proxy_revalidate: bool = False
    must_understand: bool = False
    private: bool | list[str] = False
    public: bool = False
    immutable: bool = False
    stale_while_revalidate: int | None = None
    stale_if_error: int | None = None
    extensions: dict[str, str | None] = field(default_factory=dict)

    def to_header(self) -> str:
        """Return the directives as a header value; ``""`` when none is set.

        A list of field names is written as a quoted string, as RFC 9111
        §5.2.2.4 requires: ``private="set-cookie"``.
        """
        return _attributes(self)


def _delta(directives: dict[str, str | None], name: str) -> int | None:
    return _delta_seconds(directives[name]) if name in directives else None


def _qualified(directives: dict[str, str | None], name: str) -> bool | list[str]:
    return _field_names(directives[name]) if name in directives else False


def _extensions(
    directives: dict[str, str | None], instance: RequestCacheControl | ResponseCacheControl
) -> dict[str, str | None]:
    known = {item.name.replace("_", "-") for item in fields(instance)[:-1]}
    return {name: text for name, text in directives.items() if name not in known}


def parse_cache_control(value: str | None) -> RequestCacheControl:
    """Parse the ``Cache-Control`` header of a request.

    Directive names are case-insensitive; the first of duplicate directives
    wins (RFC 9111 §4.2.1). A boolean directive given a value still counts.

    Args:
        value: The header value (all field lines joined by ``", "``), or None.

    Returns:
        The directives; an empty :class:`RequestCacheControl` for an absent or
        empty header. Never raises.
    """
    found = _directives(value)
    max_stale = _delta(found, "max-stale")
    if "max-stale" in found and found["max-stale"] is None:
        max_stale = MAX_DELTA_SECONDS
    control = RequestCacheControl(
        max_age=_delta(found, "max-age"),
        max_stale=max_stale,
        min_fresh=_delta(found, "min-fresh"),
        no_cache="no-cache" in found,
        no_store="no-store" in found,
        no_transform="no-transform" in found,
        only_if_cached="only-if-cached" in found,
        stale_if_error=_delta(found, "stale-if-error"),
    )
    control.extensions.update(_extensions(found, control))
    return control


def parse_response_cache_control(value: str | None) -> ResponseCacheControl:
    """Parse the ``Cache-Control`` header of a response.

    Directive names are case-insensitive; the first of duplicate directives
    wins (RFC 9111 §4.2.1). ``no-cache`` and ``private`` are True when bare
    and a list of lower-cased field names when qualified.

    Args:
        value: The header value (all field lines joined by ``", "``), or None.

    Returns:
        The directives; an empty :class:`ResponseCacheControl` for an absent or
        empty header. Never raises.
    """
    found = _directives(value)
    control = ResponseCacheControl(
        max_age=_delta(found, "max-age"),
        s_maxage=_delta(found, "s-maxage"),
        no_cache=_qualified(found, "no-cache"),
        no_store="no-store" in found,
        no_transform="no-transform" in found,
        must_revalidate="must-revalidate" in found,
        proxy_revalidate="proxy-revalidate" in found,
        must_understand="must-understand" in found,
        private=_qualified(found, "private"),
        public="public" in found,
        immutable="immutable" in found,
        stale_while_revalidate=_delta(found, "stale-while-revalidate"),
        stale_if_error=_delta(found, "stale-if-error"),
    )
    control.extensions.update(_extensions(found, control))
    return control
