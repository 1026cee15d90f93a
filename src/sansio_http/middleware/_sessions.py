"""``SessionMiddleware``: a dict-like session kept in a signed cookie.

The session's values travel as JSON in a cookie, with the time it was
written, signed with HMAC-SHA256. The client can read them (they are not
encrypted) but not change them. A cookie that fails any check (format,
size, signature, age, JSON) is dropped and the request starts a new, empty
session: a client's bad cookie is never an error.

The cookie value is ``<payload>.<timestamp>.<signature>``: the payload is
the JSON, base64url-encoded without padding; the timestamp is decimal
seconds since the epoch; the signature is the base64url HMAC-SHA256 of
the cookie name, a NUL, the payload, a dot and the timestamp.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import (
    Callable,
    ItemsView,
    Iterator,
    KeysView,
    MutableMapping,
    Sequence,
    ValuesView,
)
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Final

from sansio_http.app._middleware import Middleware, add_vary
from sansio_http.http._cookies import SameSite

if TYPE_CHECKING:
    from sansio_http.messages._request import Request
    from sansio_http.messages._response import Response

__all__ = ["MAX_COOKIE_SIZE", "Session", "SessionMiddleware"]

#: The largest cookie read or written, in bytes of its name and value
#: together. Browsers drop a bigger cookie without a word: Chromium and
#: Firefox count the name and the value and stop at 4096 bytes, the floor
#: RFC 6265 §6.1 sets, and the draft revision of RFC 6265 (rfc6265bis) makes
#: that its Set-Cookie parsing rule. The attributes are not counted: there,
#: each attribute value is held to 1024 bytes on its own, and a longer one
#: is ignored while the cookie is kept.
MAX_COOKIE_SIZE: Final = 4096
# 32 bytes: the output size of SHA-256, the key size HMAC-SHA256 is built for
# (RFC 2104 §3); secrets.token_urlsafe(32) gives 43 characters of it.
_MIN_SECRET_SIZE: Final = 32
# Ten decimal digits carry timestamps up to the year 2286.
_MAX_TIMESTAMP_DIGITS: Final = 10
# The deepest nesting of lists and dicts a session holds, its own dict being the first
# level. Python's json recurses once per level and raises RecursionError near 1000 levels,
# which 4096 bytes of "[" reach; a session has no use for more than a few levels.
_MAX_DEPTH: Final = 32
# A JSON string, escapes included; one left open runs to the end. Each match starts where
# the last one ended and cannot backtrack, so removing them all takes linear time.
_STRING: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?')
_BRACKETS: Final = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS: Final = bytes(sorted(set(range(256)) - set(b"[]{}")))
_BASE64URL: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class Session(MutableMapping[str, Any]):
    """The values of one client's session, read and set like a dict.

    Setting, deleting, ``clear()``, ``pop()`` and ``update()`` mark it
    changed. Changing a value in place (``session["cart"].append(item)``)
    does not: set ``session.modified = True`` after such a change.

    Every read marks it accessed: an item, ``get()``, ``in``, ``len()``,
    truth, iteration, ``keys()``, ``values()``, ``items()``, ``==``,
    ``to_dict()``, ``copy()``, ``repr()``, and ``copy.copy()`` or pickling.

    Args:
        values: The values read from the cookie.

    Attributes:
        modified: Whether the cookie must be written back.
        accessed: Whether anything read or changed it: the response then
            depends on the cookie, and gets ``Vary: Cookie``.
    """

    __slots__ = ("_values", "accessed", "modified")

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = values if values is not None else {}
        self.modified = False
        self.accessed = False

    def __getitem__(self, key: str) -> Any:
        self.accessed = True
        return self._values[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.accessed = self.modified = True
        self._values[key] = value

    def __delitem__(self, key: str) -> None:
        self.accessed = self.modified = True
        del self._values[key]

    def __iter__(self) -> Iterator[str]:
        self.accessed = True
        return iter(self._values)

    def __len__(self) -> int:
        self.accessed = True
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        self.accessed = True
        return key in self._values

    def clear(self) -> None:
        """Remove every value; the cookie is deleted on the way out."""
        self.accessed = self.modified = True
        self._values.clear()

    # SECURITY: every way of reading the values sets `accessed`, so that the
    # response gets Vary: Cookie and a shared cache does not hand one client's
    # session-dependent answer to another (RFC 9111 §4.1). The Mapping mixins
    # read through the methods above; the methods below read `_values` directly.

    def keys(self) -> KeysView[str]:
        """Return a view of the names."""
        self.accessed = True
        return self._values.keys()

    def values(self) -> ValuesView[Any]:
        """Return a view of the values."""
        self.accessed = True
        return self._values.values()

    def items(self) -> ItemsView[str, Any]:
        """Return a view of the ``(name, value)`` pairs."""
        self.accessed = True
        return self._values.items()

    def __eq__(self, other: object) -> bool:
        self.accessed = True
        if isinstance(other, Session):
            other.accessed = True
            return self._values == other._values
        return super().__eq__(other)

    def to_dict(self) -> dict[str, Any]:
        """Return a copy of the values, as a plain ``dict``."""
        self.accessed = True
        return dict(self._values)

    def copy(self) -> dict[str, Any]:
        """Return a copy of the values, as a plain ``dict`` (as ``to_dict()``)."""
        self.accessed = True
        return dict(self._values)

    def __reduce__(self) -> tuple[type[Session], tuple[dict[str, Any]]]:
        # copy.copy(), copy.deepcopy() and pickle come here: a new session over
        # a copy of the values, so that changing it leaves this one alone.
        self.accessed = True
        return Session, (dict(self._values),)

    def __repr__(self) -> str:
        self.accessed = True
        return f"Session({self._values!r})"


def _b64encode(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def _b64decode(data: bytes) -> bytes:
    if not _BASE64URL.issuperset(data):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))


def _too_deep(data: bytes) -> bool:
    """Tell whether JSON text nests lists and objects more than _MAX_DEPTH levels deep."""
    # PERF: the nesting is at most the number of brackets, which is how most sessions end.
    if data.count(b"[") + data.count(b"{") <= _MAX_DEPTH:
        return False
    # Brackets inside strings do not nest: drop the strings, keep the brackets alone (as
    # one kind: JSON pairs them by kind already), then remove the innermost pairs once per
    # level. Each step is linear and there are at most _MAX_DEPTH of them. Text that is
    # not JSON may come out as too deep; json.loads would refuse it anyway.
    brackets = _STRING.sub(b"", data).translate(_BRACKETS, _NOT_BRACKETS)
    for _ in range(_MAX_DEPTH):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def _too_deep_error() -> ValueError:
    return ValueError(
        f"the session nests lists and dicts more than {_MAX_DEPTH} levels deep; "
        "store a flatter value"
    )


def _secret_bytes(secret: str | bytes) -> bytes:
    data = secret.encode() if isinstance(secret, str) else bytes(secret)
    if len(data) < _MIN_SECRET_SIZE:
        raise ValueError(
            f"a session secret needs at least {_MIN_SECRET_SIZE} bytes; make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return data


class SessionMiddleware(Middleware):
    """Give each request a :class:`Session` at ``request.state.session``.

    The session comes from the request's cookie when it is valid; it is
    empty otherwise. The cookie is written back only when the session was
    changed, and deleted when a changed session is empty (or when the
    request's cookie was invalid, so the client drops it). The max age
    counts from the last change: a session that is only read expires
    ``max_age`` after it was last written.

    Outcomes for bad cookies, each a new empty session and never an error:
    a forged or tampered value (signature mismatch), one signed by a
    secret no longer listed, a truncated or malformed one, one whose name
    and value together are over :data:`MAX_COOKIE_SIZE`, one older than
    ``max_age`` (a replay after expiry) and one whose payload is not a JSON
    object.

    Values must be JSON-serialisable and nest lists and dicts at most 32
    levels deep: writing a session that does not, or whose cookie's name
    and value together would exceed :data:`MAX_COOKIE_SIZE`, raises
    ``ValueError`` (a 500 through the App's error handlers), since a browser
    would silently drop such a cookie. A long ``cookie_name`` leaves that
    much less room for the values.
    A cookie nested deeper is read like any invalid one.

    Args:
        secret_keys: One secret, or several for rotation: the first signs,
            all verify, so a new secret goes first and an old one is removed
            once ``max_age`` has passed. Each needs at least 32 bytes.
        cookie_name: The cookie's name.
        max_age: How long a session lasts after its last change, in seconds
            or as a ``timedelta``; ``None`` for a browser-session cookie whose
            signature never expires. Two weeks by default, as Django.
        path: The cookie's Path.
        domain: The cookie's Domain; ``None`` keeps it to the host.
        secure: Send the cookie over HTTPS only; ``None`` (the default)
            means "when the request came over HTTPS" (behind a proxy, set a
            :class:`~sansio_http.ProxyPolicy` or pass ``True``).
        httponly: Hide the cookie from scripts; on by default.
        samesite: ``"Lax"`` by default: sent with top-level navigations,
            not with cross-site subrequests, which blunts CSRF.
        clock: Returns the current time as seconds since the epoch; the
            one clock this middleware reads, injectable for tests.

    Raises:
        ValueError: No secret, or one shorter than 32 bytes.
    """

    blocking: ClassVar[bool] = False

    def __init__(
        self,
        secret_keys: str | bytes | Sequence[str | bytes],
        *,
        cookie_name: str = "session",
        max_age: int | timedelta | None = 14 * 24 * 3600,
        path: str = "/",
        domain: str | None = None,
        secure: bool | None = None,
        httponly: bool = True,
        samesite: SameSite | None = "Lax",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if isinstance(secret_keys, (str, bytes)):
            secret_keys = [secret_keys]
        self._keys = [_secret_bytes(secret) for secret in secret_keys]
        if not self._keys:
            raise ValueError("SessionMiddleware needs at least one secret")
        if isinstance(max_age, timedelta):
            max_age = int(max_age.total_seconds())
        self.cookie_name = cookie_name
        self.max_age = max_age
        self.path = path
        self.domain = domain
        self.secure = secure
        self.httponly = httponly
        self.samesite = samesite
        self.clock = clock
        self._prefix = cookie_name.encode() + b"\x00"
        # NOTE: browsers count the name with the value (see MAX_COOKIE_SIZE),
        # so a longer name leaves less room for the value.
        self._max_value_size = MAX_COOKIE_SIZE - len(self._prefix) + 1

    def _signature(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, self._prefix + message, hashlib.sha256).digest()

    def dumps(self, values: dict[str, Any]) -> str:
        """Return the signed cookie value for a session's values.

        Raises:
            ValueError: A value is not JSON-serialisable, lists and dicts nest
                more than 32 levels deep (the session's own dict is the
                first), or the cookie's name and value together would exceed
                :data:`MAX_COOKIE_SIZE`.
        """
        try:
            data = json.dumps(values, separators=(",", ":"), ensure_ascii=False).encode()
        except TypeError as exc:
            raise ValueError(f"the session holds a value JSON cannot store: {exc}") from exc
        except RecursionError as exc:  # far deeper than the limit
            raise _too_deep_error() from exc
        if _too_deep(data):
            raise _too_deep_error()
        message = _b64encode(data) + b".%d" % int(self.clock())
        value = message + b"." + _b64encode(self._signature(self._keys[0], message))
        if len(value) > self._max_value_size:
            size = len(self._prefix) - 1 + len(value)
            raise ValueError(
                f"the session cookie's name and value would take {size} bytes, over the "
                f"{MAX_COOKIE_SIZE} browsers keep; store less in the session"
            )
        return value.decode("ascii")

    def loads(self, value: str) -> dict[str, Any] | None:
        """Return the values of a signed cookie value, or None if it is not valid.

        Never raises: a value that is too big (with the cookie's name, over
        :data:`MAX_COOKIE_SIZE`), malformed, signed with another secret,
        expired, not a JSON object or nested more than 32 levels deep gives
        ``None``.
        """
        if len(value) > self._max_value_size or not value.isascii():
            return None
        message, dot, signature = value.encode().rpartition(b".")
        payload, dot2, stamp = message.partition(b".")
        if not dot or not dot2 or not stamp.isdigit() or len(stamp) > _MAX_TIMESTAMP_DIGITS:
            return None
        try:
            expected = _b64decode(signature)
        except (ValueError, binascii.Error):
            return None
        if _b64encode(expected) != signature:
            return None  # unused low bits set: only the canonical spelling is valid
        # SECURITY: compare_digest takes the same time wherever the first
        # difference is, so the signature cannot be found byte by byte.
        if not any(hmac.compare_digest(self._signature(k, message), expected) for k in self._keys):
            return None
        if self.max_age is not None and self.clock() - int(stamp) > self.max_age:
            return None
        try:
            data = _b64decode(payload)
            # SECURITY: checked before parsing: json.loads would recurse once per level.
            values = None if _too_deep(data) else json.loads(data)
        except (ValueError, binascii.Error, RecursionError):
            return None
        return values if isinstance(values, dict) else None

    def process_request(self, request: Request) -> None:
        """Load the session from the first valid session cookie."""
        cookies = request.cookies.getlist(self.cookie_name)
        values = None
        for value in cookies:
            values = self.loads(value)
            if values is not None:
                break
        session = Session(values)
        # A client with only invalid cookies is told to drop them.
        session.modified = values is None and bool(cookies)
        request.state.session = session

    def process_response(self, request: Request, response: Response) -> Response:
        """Write the session back if it changed; add ``Vary: Cookie`` if it was used."""
        session = request.state.get("session")
        if not isinstance(session, Session):
            return response
        if session.accessed or session.modified:
            add_vary(response.headers, "Cookie")
        if not session.modified:
            return response
        secure = request.is_secure if self.secure is None else self.secure
        values = session._values
        if not values:
            response.delete_cookie(
                self.cookie_name,
                path=self.path,
                domain=self.domain,
                secure=secure,
                httponly=self.httponly,
                samesite=self.samesite,
            )
            return response
        response.set_cookie(
            self.cookie_name,
            self.dumps(values),
            max_age=self.max_age,
            path=self.path,
            domain=self.domain,
            secure=secure,
            httponly=self.httponly,
            samesite=self.samesite,
        )
        return response
