"""The ``Authorization`` request header (RFC 9110 §11.6.2).

Credentials are a scheme followed by a token68 or by ``name=value``
parameters (RFC 9110 §11.4). ``Basic`` (RFC 7617) is decoded into a user
name and password, ``Bearer`` (RFC 6750) keeps its token, and other schemes
(``Digest``, ``Negotiate``...) keep whichever form they used. Checking the
credentials is the application's business.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Final

from sansio_http.http._parsers.tokens import is_token, iter_pairs, quote

# RFC 9110 §11.2: token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
_TOKEN68_RE: Final = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_SCHEME_NAMES: Final = {"basic": "Basic", "bearer": "Bearer", "digest": "Digest"}


@dataclass(frozen=True)
class Authorization:
    """The credentials of an ``Authorization`` header.

    Attributes:
        scheme: The scheme, lower-cased (``"basic"``, ``"bearer"``...).
        username: The Basic user name, else None.
        password: The Basic password, else None.
        token: The token68 of Bearer and similar schemes, else None.
        params: The ``name=value`` parameters of schemes such as Digest,
            with lower-cased names (RFC 9110 §11.2); empty otherwise.
    """

    scheme: str
    username: str | None = None
    password: str | None = None
    token: str | None = None
    params: dict[str, str] = field(default_factory=dict, hash=False)

    def to_header(self) -> str:
        """Return the credentials as an ``Authorization`` header value.

        Basic credentials are encoded as UTF-8 (RFC 7617 §2.1).
        """
        scheme = _SCHEME_NAMES.get(self.scheme, self.scheme)
        if self.username is not None:
            pair = f"{self.username}:{self.password or ''}".encode()
            return f"{scheme} {base64.b64encode(pair).decode('ascii')}"
        if self.token is not None:
            return f"{scheme} {self.token}"
        if self.params:
            return f"{scheme} " + ", ".join(f"{k}={quote(v)}" for k, v in self.params.items())
        return scheme


def _basic(credentials: str) -> Authorization | None:
    """Decode RFC 7617 ``user:password`` credentials."""
    # Some clients drop the base64 padding; it carries no information.
    padded = credentials + "=" * (-len(credentials) % 4)
    try:
        data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # RFC 7617 §2.1: without a charset parameter the encoding is
        # unspecified; clients predating it send ISO-8859-1.
        text = data.decode("latin-1")
    username, colon, password = text.partition(":")
    return Authorization("basic", username, password) if colon else None


def parse_authorization(value: str | None) -> Authorization | None:
    """Parse an ``Authorization`` header.

    The scheme is case-insensitive. ``Basic`` credentials are base64 (padding
    optional) of ``user:password``, read as UTF-8, or as ISO-8859-1 when they
    are not valid UTF-8. ``Bearer`` needs a token68. Other schemes keep a
    token68 as ``token``, or their parameters as ``params`` (the first of
    duplicate names wins); a bare scheme has neither.

    Args:
        value: The header value, or None.

    Returns:
        The credentials, or None when the header is absent or malformed: no
        scheme, Basic that is not base64 of a ``user:password`` pair, Bearer
        without a token68, or other credentials that are neither a token68 nor
        parameters. Never raises.
    """
    parts = (value or "").split(None, 1)
    if not parts or not is_token(parts[0]):
        return None
    scheme = parts[0].lower()
    credentials = parts[1].strip() if len(parts) == 2 else ""
    # RFC 9110 §11.4: a token68 is tried first, since "a=" is both one and a parameter.
    token = credentials if _TOKEN68_RE.fullmatch(credentials) else None
    if scheme == "basic":
        return _basic(token) if token is not None else None
    if token is not None:
        return Authorization(scheme, token=token)
    if scheme == "bearer":
        return None
    params: dict[str, str] = {}
    for name, text in iter_pairs(credentials, ","):
        if text is None or not is_token(name):
            return None
        params.setdefault(name.lower(), text)
    if credentials and not params:
        return None
    return Authorization(scheme, params=params)
