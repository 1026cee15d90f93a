"""Set-Cookie serialisation (RFC 6265 §4.1, with SameSite and Partitioned).

:func:`dump_cookie` validates a cookie and its attributes and returns the value of
one ``Set-Cookie`` header field. Misuse (a name that is not a token, ``SameSite=None``
without ``Secure``, a control character in a path) raises ``ValueError`` when the
cookie is set, so a bad cookie never reaches the wire.

NOTE: ``max_age`` is sent as ``Max-Age`` alone, without a matching ``Expires``.
An ``Expires`` for it would need the current time, and the core never reads a
clock; every browser in use honours ``Max-Age`` (RFC 6265 §5.3 step 3 gives it
precedence over ``Expires``). Pass ``expires`` as well if very old clients matter.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Final, Literal
from urllib.parse import quote

from sansio_http.http import http_date
from sansio_http.http._hosts import idna_name

__all__ = ["SameSite", "dump_cookie"]

#: The values of the SameSite attribute (RFC 6265bis §4.1.2.7), any case.
SameSite = Literal["Strict", "Lax", "None", "strict", "lax", "none"]

# RFC 6265 §4.1.1: cookie-name is an RFC 2616 token (the RFC 9110 §5.6.2 tchar set).
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# RFC 6265 §4.1.1: cookie-octet excludes CTLs, whitespace, DQUOTE, comma, semicolon
# and backslash.
_COOKIE_OCTETS: Final = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")
# Attribute values: RFC 6265 §4.1.1 allows any CHAR except CTLs and ";".
_BAD_ATTRIBUTE: Final = re.compile(r"[\x00-\x1f\x7f;]")
# A host name in its ASCII form: letters, digits, hyphens and dots (plus "_", which
# real names use), or an IP literal's digits and dots.
_HOST: Final = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?")
_SAMESITE: Final = {"strict": "Strict", "lax": "Lax", "none": "None"}
# A cookie deleted by delete_cookie also expires at the epoch, for clients that
# predate Max-Age; a fixed past date needs no clock.
EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _escape_byte(byte: int) -> str:
    if byte == 0x22 or byte == 0x5C:
        return "\\" + chr(byte)
    if 0x21 <= byte <= 0x7E and byte not in b",;":
        return chr(byte)
    return f"\\{byte:03o}"


# PERF: the escape of each byte is computed once.
_ESCAPES: Final = tuple(_escape_byte(byte) for byte in range(256))


def _quote_value(value: str) -> str:
    """Return ``value`` as a cookie-value: as is, or quoted with escapes."""
    if _COOKIE_OCTETS.fullmatch(value):
        return value
    # Outside the cookie-octet set, send the quoted form that RFC 6265 §4.1.1 allows,
    # escaping DQUOTE and backslash with a backslash and any other byte of the UTF-8
    # encoding as "\ooo" (octal), the convention of Python's http.cookies that common
    # cookie parsers undo. The result holds no CTL, space, comma or semicolon.
    return '"' + "".join([_ESCAPES[byte] for byte in value.encode()]) + '"'


def _check_attribute(name: str, value: str) -> None:
    if _BAD_ATTRIBUTE.search(value):
        raise ValueError(f"cookie {name} must not contain control characters or ';': {value!r}")


def _domain(domain: str) -> str:
    # RFC 6265 §5.2.3: a leading dot is ignored; keep it, as older clients want it.
    dot = "." if domain.startswith(".") else ""
    # A browser matches domains by their ASCII form, mapped as it maps hosts (UTS #46):
    # the standard library's IDNA 2003 would name another domain ("faß.de" as "fass.de").
    ascii_domain = idna_name(domain[len(dot) :])
    if ascii_domain is None or not _HOST.fullmatch(ascii_domain):
        raise ValueError(f"cookie domain is not a valid host name: {domain!r}")
    return dot + ascii_domain


def dump_cookie(
    key: str,
    value: str = "",
    *,
    max_age: int | timedelta | None = None,
    expires: datetime | float | None = None,
    path: str | None = "/",
    domain: str | None = None,
    secure: bool = False,
    httponly: bool = False,
    samesite: SameSite | None = None,
    partitioned: bool = False,
) -> str:
    r"""Serialise a cookie and its attributes as a Set-Cookie field value.

    Args:
        key: The cookie name, an RFC 9110 token.
        value: The cookie value. A value outside the RFC 6265 cookie-octet set
            is sent double-quoted, with ``\"``, ``\\`` and ``\ooo`` (octal)
            escapes for its UTF-8 bytes.
        max_age: Seconds until the cookie expires (``0`` or less deletes it).
        expires: When the cookie expires: an aware ``datetime`` (a naive one
            is taken as UTC) or a POSIX timestamp.
        path: The path the cookie applies to; ``None`` omits the attribute.
            Non-ASCII characters are percent-encoded.
        domain: The domain the cookie applies to; ``None`` (the default) keeps
            the cookie to the host that set it. Internationalised names are
            sent in their IDNA form.
        secure: Send the cookie over HTTPS only.
        httponly: Hide the cookie from scripts.
        samesite: ``"Strict"``, ``"Lax"`` or ``"None"`` in any case.
        partitioned: Keep the cookie in a per-top-level-site jar (CHIPS).

    Returns:
        The field value, such as ``"sid=abc; Path=/; HttpOnly"``.

    Raises:
        ValueError: The name is not a token; an attribute holds a control
            character or ``;``; ``samesite`` is unknown; ``SameSite=None`` or
            ``partitioned`` is used without ``secure``; or a ``__Secure-`` or
            ``__Host-`` name breaks its prefix's rules.
    """
    if not _TOKEN.fullmatch(key):
        raise ValueError(f"cookie name must be a non-empty token: {key!r}")
    parts = [f"{key}={_quote_value(value)}"]
    if domain is not None:
        parts.append(f"Domain={_domain(domain)}")
    if expires is not None:
        parts.append(f"Expires={http_date(expires)}")
    if max_age is not None:
        if isinstance(max_age, timedelta):
            max_age = int(max_age.total_seconds())
        parts.append(f"Max-Age={int(max_age)}")
    if path is not None:
        _check_attribute("path", path)
        parts.append("Path=" + quote(path, safe="/!$&'()*+,:=@%~-._"))
    if secure:
        parts.append("Secure")
    if httponly:
        parts.append("HttpOnly")
    if samesite is not None:
        canonical = _SAMESITE.get(str(samesite).lower())
        if canonical is None:
            raise ValueError(f"samesite must be 'Strict', 'Lax' or 'None', not {samesite!r}")
        # RFC 6265bis §4.1.2.7 and browsers: SameSite=None cookies must be Secure.
        if canonical == "None" and not secure:
            raise ValueError("a cookie with SameSite=None must also be Secure")
        parts.append(f"SameSite={canonical}")
    if partitioned:
        # CHIPS (draft-cutler-httpbis-partitioned-cookies §2.1): Partitioned needs Secure.
        if not secure:
            raise ValueError("a Partitioned cookie must also be Secure")
        parts.append("Partitioned")
    # RFC 6265bis §4.1.3: the name prefixes are promises the browser enforces; refuse
    # cookies that it would drop silently.
    # Browsers match the prefixes without regard to case.
    prefix = key[:9].lower()
    if prefix.startswith(("__secure-", "__host-")) and not secure:
        raise ValueError(f"a cookie named {key!r} must be Secure")
    if prefix.startswith("__host-") and (domain is not None or path != "/"):
        raise ValueError(f"a cookie named {key!r} needs Path=/ and no Domain")
    return "; ".join(parts)
