"""Host rules of an App served by the development server, in both of its modes.

The server wraps the App with ``to_wsgi`` or ``to_asgi``, which give every
request the App's trusted hosts: the Host a client sends over a real socket
picks the rule, and a Host outside them is a 400.
"""

from __future__ import annotations

import http.client

import pytest

from sansio_http import App, AppConfig, Request
from tests.server.conftest import serving

#: NOTE: every socket wait ends by this; none is a speed bound.
TIMEOUT = 10.0


def make_app() -> App:
    app = App("hosts", config=AppConfig(trusted_hosts=[".example.com", "localhost"]))

    @app.get("/")
    def home(request: Request) -> str:
        return "home"

    @app.get("/", host="<tenant>.example.com")
    def tenant_home(request: Request, tenant: str) -> str:
        return f"{tenant} {app.url_for('tenant_home', tenant='beta')}"

    @app.get("/status", host="api.example.com")
    def status(request: Request) -> str:
        return "api up"

    return app


def get(port: int, path: str, host: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        conn.request("GET", path, headers={"Host": host})
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_the_host_a_client_sends_picks_the_rule(interface: str) -> None:
    with serving(make_app(), interface=interface) as running:
        port = running.port
        assert get(port, "/", "acme.example.com:8000") == (
            200,
            "acme http://beta.example.com:8000/",
        )
        assert get(port, "/", f"localhost:{port}") == (200, "home")
        assert get(port, "/status", "api.example.com") == (200, "api up")
        assert get(port, "/status", "acme.example.com")[0] == 404
        assert get(port, "/", "acme.evil.com")[0] == 400
        assert get(port, "/", "a.b.example.com") == (200, "home")
