from __future__ import annotations

from typing import Any

import pytest

from sansio_http.asgi._scope import client_address, server_address, split_path


@pytest.mark.parametrize(
    ("path", "root_path", "expected"),
    [
        # Servers that include root_path in path (uvicorn, the ASGI spec since 2023).
        ("/app/users", "/app", ("/users", "/app")),
        ("/app/", "/app", ("/", "/app")),
        ("/app", "/app", ("/", "/app")),
        ("/app/users", "/app/", ("/users", "/app")),
        # Servers that leave it out.
        ("/users", "/app", ("/users", "/app")),
        ("/", "/app", ("/", "/app")),
        # Only at a segment boundary.
        ("/application", "/app", ("/application", "/app")),
        ("/appx/y", "/app", ("/appx/y", "/app")),
        # Not mounted.
        ("/users", "", ("/users", "")),
        ("/users", "/", ("/users", "")),
        ("", "", ("/", "")),
        ("*", "", ("/*", "")),
        ("/a/é", "/a", ("/é", "/a")),
    ],
)
def test_split_path(path: str, root_path: str, expected: tuple[str, str]) -> None:
    assert split_path(path, root_path) == expected


@pytest.mark.parametrize(
    ("client", "expected"),
    [(("10.0.0.1", 5000), "10.0.0.1"), (["::1", 1], "::1"), (None, None), ((), None)],
)
def test_client_address(client: Any, expected: str | None) -> None:
    assert client_address(client) == expected


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        (("example.com", 443), ("example.com", 443)),
        (["127.0.0.1", 8000], ("127.0.0.1", 8000)),
        (("/run/app.sock", None), ("/run/app.sock", None)),
        (None, None),
    ],
)
def test_server_address(server: Any, expected: tuple[str, int | None] | None) -> None:
    assert server_address(server) == expected
