"""JSON only from JSON: ``get_json()`` and ``await request.json()`` check the type.

A body is decoded when its Content-Type is ``application/json`` or an
``application/*+json`` type, whatever its parameters and case; any other type,
or none, is a 415 before a byte is read, unless the view passes
``force=True``. A cross-site ``text/plain`` POST, which needs no CORS
preflight, thus never reaches a JSON view's data.
"""

from __future__ import annotations

import asyncio
import io
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import App, BodyRequest, UnsupportedMediaType
from sansio_http.testing import Client
from sansio_http.wsgi import WSGIRequest

BODY = b'{"k": [1, "\xc3\xa9"]}'
VALUE = {"k": [1, "\u00e9"]}

REFUSED = [
    "text/plain",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonp",
    "text/json",
    "",
    None,
]
DECODED = [
    "application/json",
    "application/json; charset=utf-8",
    "application/vnd.api+json",
    "APPLICATION/JSON",
    "Application/Problem+JSON; Charset=UTF-8",
]


def make_request(content_type: str | None, body: bytes = BODY) -> WSGIRequest:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "CONTENT_LENGTH": str(len(body)),
    }
    if content_type is not None:
        environ["CONTENT_TYPE"] = content_type
    return WSGIRequest(environ)


def awaited(request: BodyRequest, *, force: bool = False) -> Any:
    async def main() -> Any:
        return await request.json(force=force)

    return asyncio.run(main())


# -- the rule, without a view ------------------------------------------------------


@pytest.mark.parametrize("content_type", DECODED)
def test_a_json_type_is_decoded(content_type: str) -> None:
    assert make_request(content_type).get_json() == VALUE
    assert awaited(make_request(content_type)) == VALUE


@pytest.mark.parametrize("content_type", REFUSED)
def test_any_other_type_is_415_and_leaves_the_body_unread(content_type: str | None) -> None:
    request = make_request(content_type)
    with pytest.raises(UnsupportedMediaType) as raised:
        request.get_json()
    assert raised.value.status == 415
    # RFC 9110 §12.5.1: Accept in a response names what a request may send.
    assert raised.value.headers == {"Accept": "application/json"}
    assert "application/json" in raised.value.detail
    assert request.bytes_read == 0
    with pytest.raises(UnsupportedMediaType):
        awaited(request)
    # The body is still there for a view that handles the type itself.
    assert request.get_data() == BODY


@pytest.mark.parametrize("content_type", REFUSED)
def test_force_decodes_whatever_the_type(content_type: str | None) -> None:
    assert make_request(content_type).get_json(force=True) == VALUE
    assert awaited(make_request(content_type), force=True) == VALUE


def test_the_missing_type_has_its_own_detail() -> None:
    with pytest.raises(UnsupportedMediaType) as missing:
        make_request(None).get_json()
    with pytest.raises(UnsupportedMediaType) as other:
        make_request("text/plain").get_json()
    assert "no Content-Type" in missing.value.detail
    assert "no Content-Type" not in other.value.detail


# -- any Content-Type: decoded exactly when it is JSON -------------------------------

_TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-", min_size=1, max_size=8)
_TYPES = st.one_of(st.sampled_from(["application", "text", "multipart", "image"]), _TOKEN)
_SUBTYPES = st.one_of(
    st.sampled_from(["json", "jsonp", "json5", "x-json", "vnd.api+json", "json+xml", "plain"]),
    _TOKEN,
    st.builds(lambda stem: stem + "+json", _TOKEN),
)
_PARAMETERS = st.lists(st.sampled_from(["charset=utf-8", "q=1", 'x="a;b"', "v=2"]), max_size=2)


def casing(text: str, flips: list[bool]) -> str:
    return "".join(
        char.upper() if flips and flips[i % len(flips)] else char for i, char in enumerate(text)
    )


@given(
    kind=_TYPES,
    subtype=_SUBTYPES,
    parameters=_PARAMETERS,
    flips=st.lists(st.booleans(), max_size=5),
    space=st.sampled_from(["", " "]),
)
def test_decoded_exactly_when_the_type_is_json(
    kind: str, subtype: str, parameters: list[str], flips: list[bool], space: str
) -> None:
    content_type = casing(f"{kind}/{subtype}", flips) + "".join(
        f";{space}{parameter}" for parameter in parameters
    )
    is_json = kind == "application" and (subtype == "json" or subtype.endswith("+json"))
    request = make_request(content_type)
    try:
        value = request.get_json()
    except UnsupportedMediaType:
        assert not is_json, content_type
        assert request.bytes_read == 0
    else:
        assert is_json, content_type
        assert value == VALUE


# -- through the App, one view source under both adapters ------------------------------

app = App("json-views")


@app.post("/sync")
def sync_json(request: BodyRequest) -> Any:
    return {"json": request.get_json()}


@app.post("/async")
async def async_json(request: BodyRequest) -> Any:
    return {"json": await request.json()}


@app.post("/sync/force")
def sync_forced(request: BodyRequest) -> Any:
    return {"json": request.get_json(force=True)}


@app.post("/async/force")
async def async_forced(request: BodyRequest) -> Any:
    return {"json": await request.json(force=True)}


Interface = Literal["wsgi", "asgi"]
INTERFACES: list[Interface] = ["wsgi", "asgi"]


def post(interface: Interface, path: str, content_type: str | None) -> tuple[int, Any]:
    headers = {} if content_type is None else {"content-type": content_type}
    response = Client(app, interface=interface).post(path, content=BODY, headers=headers)
    return response.status_code, response.json() if response.status_code == 200 else None


@pytest.mark.parametrize("interface", INTERFACES)
@pytest.mark.parametrize("path", ["/sync", "/async"])
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_view_answers_415_to_a_body_that_is_not_json(
    interface: Interface, path: str, content_type: str | None
) -> None:
    response = Client(app, interface=interface).post(
        path, content=BODY, headers={} if content_type is None else {"content-type": content_type}
    )
    assert response.status_code == 415
    assert response.headers["accept"] == "application/json"


@pytest.mark.parametrize("interface", INTERFACES)
@pytest.mark.parametrize("path", ["/sync", "/async"])
@pytest.mark.parametrize("content_type", DECODED)
def test_a_view_decodes_a_json_body(interface: Interface, path: str, content_type: str) -> None:
    assert post(interface, path, content_type) == (200, {"json": VALUE})


@pytest.mark.parametrize("interface", INTERFACES)
@pytest.mark.parametrize("path", ["/sync/force", "/async/force"])
@pytest.mark.parametrize("content_type", ["text/plain", None])
def test_a_forcing_view_decodes_any_type(
    interface: Interface, path: str, content_type: str | None
) -> None:
    assert post(interface, path, content_type) == (200, {"json": VALUE})


@pytest.mark.parametrize("interface", INTERFACES)
def test_the_client_json_option_sends_application_json(interface: Interface) -> None:
    response = Client(app, interface=interface).post("/async", json=VALUE)
    assert (response.status_code, response.json()) == (200, {"json": VALUE})
