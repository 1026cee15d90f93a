"""CORSMiddleware under both adapters: the CORS-safelisted request headers.

One App with the default settings (only the origin is listed), mounted with
``to_wsgi`` and ``to_asgi`` (the ``interface`` fixture), answers every test.
"""

from __future__ import annotations

from typing import cast

import pytest

from sansio_http import App, BodyRequest, CORSMiddleware
from sansio_http.testing import Client, ClientResponse, Interface

SITE = "https://app.example"
SAFELISTED = {"accept", "accept-language", "content-language", "content-type"}

app = App("cors")
app.add_middleware(CORSMiddleware([SITE]))


@app.post("/items")
def create_item(request: BodyRequest) -> dict[str, bool]:
    """Take a JSON body, as a page's fetch() sends it."""
    return {"created": request.get_json() is not None}


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    return cast("Interface", request.param)


def preflight(interface: Interface, requested: str) -> ClientResponse:
    headers = {
        "origin": SITE,
        "access-control-request-method": "POST",
        "access-control-request-headers": requested,
    }
    return Client(app, interface=interface).options("/items", headers=headers)


def names(value: str) -> set[str]:
    return {name.strip().lower() for name in value.split(",")}


@pytest.mark.parametrize(
    "requested",
    [
        "content-type",  # what a browser sends before a JSON POST
        "Content-Type",
        "CONTENT-TYPE",
        "accept, accept-language, content-language, content-type",
        "Accept-Language,Content-Language",
    ],
)
def test_a_preflight_for_safelisted_headers_passes_the_default_settings(
    interface: Interface, requested: str
) -> None:
    answer = preflight(interface, requested)
    assert answer.status_code == 204
    assert answer.headers["access-control-allow-origin"] == SITE
    assert names(answer.headers["access-control-allow-headers"]) == names(requested)
    assert names(requested) <= SAFELISTED


def test_the_json_post_after_the_preflight_is_readable(interface: Interface) -> None:
    client = Client(app, interface=interface)
    response = client.post("/items", json={"name": "tea"}, headers={"origin": SITE})
    assert response.json() == {"created": True}
    assert response.headers["access-control-allow-origin"] == SITE


@pytest.mark.parametrize("requested", ["content-type, x-secret", "X-Secret, Accept"])
def test_a_safelisted_header_does_not_carry_one_that_is_not_allowed(
    interface: Interface, requested: str
) -> None:
    answer = preflight(interface, requested)
    assert answer.status_code == 403
    assert not any(name.lower().startswith("access-control-") for name in answer.headers)
