"""The Flask layer's password hashes: Werkzeug's format, and stored hashes that fail closed."""

from __future__ import annotations

import pytest

from sansio_http.compat.flask.security import check_password_hash, generate_password_hash


@pytest.mark.parametrize("method", ["scrypt:1024:8:1", "pbkdf2:sha256:10"])
def test_a_hash_checks_its_password_only(method: str) -> None:
    stored = generate_password_hash("secret", method)
    assert stored.startswith(method + "$")
    assert check_password_hash(stored, "secret")
    assert not check_password_hash(stored, "Secret")


@pytest.mark.parametrize(
    "stored",
    [
        "",
        "no-dollars",
        "md5$salt$abcd",
        "scrypt:x:8:1$salt$abcd",
        "scrypt:3:8:1$salt$abcd",
        "pbkdf2:nope:10$salt$abcd",
        "pbkdf2:sha256:0$salt$abcd",
        # Numbers too large for C, and a digest no hash could produce: refused, not raised.
        "pbkdf2:sha256:99999999999999999999$salt$abcd",
        "scrypt:99999999999999999999:8:1$salt$abcd",
        "pbkdf2:sha256:10$salt$\u00e9\u00e9",
        "pbkdf2:sha256:10$salt$\ud800",
    ],
)
def test_a_malformed_stored_hash_fails_closed(stored: str) -> None:
    assert check_password_hash(stored, "secret") is False


def test_a_password_that_cannot_be_encoded_fails_closed() -> None:
    stored = generate_password_hash("secret", "pbkdf2:sha256:10")
    assert check_password_hash(stored, "\ud800") is False
