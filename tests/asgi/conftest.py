"""Fixtures for the ASGI adapter tests; the drivers live in ``checker.py``."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture
def adapter_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture what the adapter logs (errors it answered or swallowed)."""
    caplog.set_level(logging.INFO, logger="sansio_http.asgi")
    return caplog
