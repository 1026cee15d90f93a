"""CORS through a real browser: headless Chromium fetches across two origins.

Two uvicorn processes serve :mod:`tests.app.middleware_views` on two loopback
ports, that is two origins: the API allows the page's origin, the page's
server allows only an origin that does not exist. A page from the second
server runs ``fetch`` against the first with a method and header fields that
need a preflight, and with credentials; the reverse fetch must fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.app.servers import Server, free_port, start
from tests.integration.browser import Browser, available

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium"),
]

MODULE = "tests.app.middleware_views"


@dataclass
class Origins:
    api: Server
    page: Server


@pytest.fixture(scope="module")
def origins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Origins]:
    logs = tmp_path_factory.mktemp("cors")
    page_port = free_port()
    page_origin = f"http://127.0.0.1:{page_port}"
    api = start("uvicorn", MODULE, logs / "api.log", env={"CORS_ORIGIN": page_origin})
    try:
        page = start(
            "uvicorn",
            MODULE,
            logs / "page.log",
            port=page_port,
            env={"CORS_ORIGIN": "https://nowhere.example"},
        )
        try:
            yield Origins(api, page)
        finally:
            page.stop()
    finally:
        api.stop()


FETCH = """
fetch(%s, {
    method: "PUT",
    credentials: "include",
    headers: {"Content-Type": "application/json", "X-Client": "chromium"},
    body: "{}",
}).then(
    async (response) => JSON.stringify({
        ok: true,
        status: response.status,
        text: await response.text(),
        visits: response.headers.get("x-visits"),
    }),
    (error) => JSON.stringify({ok: false, error: String(error)}),
)
"""


def browser_fetch(browser: Browser, url: str) -> dict[str, object]:
    result = browser.call(
        "Runtime.evaluate",
        expression=FETCH % json.dumps(url),
        awaitPromise=True,
        returnByValue=True,
    )
    value: dict[str, object] = json.loads(result["result"]["value"])
    return value


def test_a_cross_origin_fetch_with_a_preflight_succeeds_for_an_allowed_origin(
    origins: Origins,
) -> None:
    with Browser() as browser:
        browser.open(origins.page.url + "/sync/small")
        first = browser_fetch(browser, origins.api.url + "/async/visit")
        # The page could read the body and the exposed header.
        assert first == {"ok": True, "status": 200, "text": "1", "visits": "1"}
        # With credentials, the session cookie the API set came back.
        second = browser_fetch(browser, origins.api.url + "/sync/visit")
        assert second == {"ok": True, "status": 200, "text": "2", "visits": "2"}
    # The browser asked before the PUT: the preflight reached the middleware.
    counted = httpx.get(origins.api.url + "/preflights", timeout=5).json()
    assert counted["preflights"] >= 1


def test_a_cross_origin_fetch_from_a_disallowed_origin_fails(origins: Origins) -> None:
    with Browser() as browser:
        browser.open(origins.api.url + "/sync/small")
        result = browser_fetch(browser, origins.page.url + "/async/visit")
    assert result["ok"] is False
    assert "Failed to fetch" in str(result["error"])
    # The refused preflight kept the PUT from reaching the view.
    peek = httpx.get(origins.page.url + "/preflights", timeout=5).json()
    assert peek["preflights"] >= 1
