"""Fixtures running each test once under WSGI and once under ASGI.

WSGI applications are wrapped in ``wsgiref.validate.validator`` and ASGI
ones in the ASGI adapter's strict `Checker`, so every environ and every
message the client produces is checked on the way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from wsgiref.validate import validator

import pytest

from sansio_http.testing import Client
from tests.asgi.checker import Checker
from tests.testing.apps import Seen, make_asgi_app, make_wsgi_app

# The fake clock of the jar: a fixed moment (2026-01-01T00:00:00Z).
NOW = 1767225600.0


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def app(interface: str, seen: Seen) -> Iterator[Any]:
    if interface == "wsgi":
        yield validator(make_wsgi_app(seen))
        return
    checker = Checker(make_asgi_app(seen))
    yield checker
    assert checker.violations == []


@pytest.fixture
def client(app: Any) -> Client:
    return Client(app, clock=lambda: NOW)


@pytest.fixture
def unchecked_app(interface: str, seen: Seen) -> Any:
    """The application without the ASGI checker, which rejects raising apps."""
    if interface == "wsgi":
        return validator(make_wsgi_app(seen))
    return make_asgi_app(seen)
