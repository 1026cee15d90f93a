"""Werkzeug's password hashes, for apps that import ``werkzeug.security``.

``generate_password_hash`` writes, and ``check_password_hash`` reads,
Werkzeug's format ``method$salt$hash``, so the hashes an app stored under
Flask keep working: ``scrypt:N:r:p`` (the default) and ``pbkdf2:sha256:N``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string

__all__ = ["check_password_hash", "generate_password_hash"]

_SALT_CHARS = string.ascii_letters + string.digits
_PBKDF2_ITERATIONS = 1_000_000


def _hash(method: str, salt: str, password: str) -> tuple[str, str]:
    kind, *arguments = method.split(":")
    salt_bytes, password_bytes = salt.encode(), password.encode()
    if kind == "scrypt":
        n, r, p = (int(a) for a in arguments) if arguments else (2**15, 8, 1)
        digest = hashlib.scrypt(
            password_bytes, salt=salt_bytes, n=n, r=r, p=p, maxmem=132 * n * r * p
        )
        return digest.hex(), f"scrypt:{n}:{r}:{p}"
    if kind == "pbkdf2":
        name = arguments[0] if arguments else "sha256"
        iterations = int(arguments[1]) if len(arguments) > 1 else _PBKDF2_ITERATIONS
        digest = hashlib.pbkdf2_hmac(name, password_bytes, salt_bytes, iterations)
        return digest.hex(), f"pbkdf2:{name}:{iterations}"
    raise ValueError(f"Invalid hash method {kind!r}: use 'scrypt' or 'pbkdf2'.")


def generate_password_hash(password: str, method: str = "scrypt", salt_length: int = 16) -> str:
    """Hash a password with a random salt, in Werkzeug's format.

    Args:
        password: The password.
        method: ``"scrypt"`` or ``"pbkdf2"``, with parameters as Werkzeug
            spells them (``"pbkdf2:sha256:600000"``).
        salt_length: The salt's length in characters.

    Raises:
        ValueError: An unknown method.
    """
    salt = "".join(secrets.choice(_SALT_CHARS) for _ in range(salt_length))
    digest, actual = _hash(method, salt, password)
    return f"{actual}${salt}${digest}"


def check_password_hash(pwhash: str, password: str) -> bool:
    """Check a password against a hash that ``generate_password_hash`` (or Werkzeug) made.

    A stored hash that is malformed, names an unknown method or parameters
    out of range, or holds a digest that is not ASCII, checks no password: the
    answer is ``False``, never an exception.
    """
    try:
        method, salt, digest = pwhash.split("$", 2)
        computed, _ = _hash(method, salt, password)
        # Bytes, as str.compare_digest raises TypeError on a non-ASCII digest.
        return hmac.compare_digest(computed.encode(), digest.encode())
    except (ValueError, OverflowError):
        # ValueError covers UnicodeEncodeError (a lone surrogate) and the
        # parameters hashlib refuses; OverflowError, numbers past a C long.
        return False
