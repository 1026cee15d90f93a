from __future__ import annotations

import functools
import io
from collections.abc import Iterator
from typing import Any

import pytest

from sansio_http import FormDecoder
from sansio_http.testing import Client, ClientResponse, TooManyRedirects, detect_interface
from tests.testing.apps import Boom, Seen

from .conftest import NOW


def echo(response: ClientResponse) -> dict[str, Any]:
    assert response.status_code == 200
    data: dict[str, Any] = response.json()
    return data


def is_closed(response: ClientResponse) -> bool:
    # A function, so that type narrowing does not outlive the stream's reading.
    return response.is_closed


def header(data: dict[str, Any], name: str) -> list[str]:
    return [value for key, value in data["headers"] if key == name]


# -- the request line, URL and connection facts --------------------------------------


def test_get_sends_what_a_server_would_see(client: Client) -> None:
    data = echo(client.get("/echo/caf%C3%A9 x?a=1", params={"b": ["2", "3"], "c": "é"}))
    assert data["method"] == "GET"
    assert data["path"] == "/echo/café x"
    assert data["root_path"] == ""
    assert data["query"] == "a=1&b=2&b=3&c=%C3%A9"
    assert data["scheme"] == "http"
    assert data["server"] == ["testserver", 80]
    assert data["client"] == "127.0.0.1"
    assert header(data, "host") == ["testserver"]
    assert header(data, "user-agent") == ["sansio-http-testclient"]
    assert header(data, "content-length") == []
    assert data["body"] == ""


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_each_method(client: Client, method: str) -> None:
    call = getattr(client, method.lower())
    assert echo(call("/echo"))["method"] == method
    assert echo(client.request(method.lower(), "/echo"))["method"] == method


def test_head_gets_no_content(client: Client) -> None:
    response = client.head("/echo")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == b""


def test_empty_body_of_post_put_patch_has_a_length(client: Client) -> None:
    for call in (client.post, client.put, client.patch):
        assert header(echo(call("/echo")), "content-length") == ["0"]


def test_absolute_url_and_scheme(client: Client) -> None:
    data = echo(client.get("http://example.com:8080/echo"))
    assert data["server"] == ["example.com", 8080]
    assert header(data, "host") == ["example.com:8080"]
    data = echo(client.get("/echo", scheme="https"))
    assert data["scheme"] == "https"
    assert data["server"] == ["testserver", 443]


def test_base_url_and_relative_urls(app: Any) -> None:
    client = Client(app, base_url="https://api.example/v1/")
    data = echo(client.get("../echo"))
    assert data["scheme"] == "https"
    assert header(data, "host") == ["api.example"]


def test_root_path_mounts_the_application(app: Any) -> None:
    data = echo(Client(app).get("/app/echo", root_path="/app"))
    assert (data["root_path"], data["path"]) == ("/app", "/echo")
    mounted = Client(app, root_path="/app/")
    data = echo(mounted.get("/app/echo/x"))
    assert (data["root_path"], data["path"]) == ("/app", "/echo/x")
    with pytest.raises(ValueError, match="outside the application's root_path"):
        mounted.get("/application/echo")


def test_remote_addr(app: Any) -> None:
    assert echo(Client(app, remote_addr="10.0.0.7").get("/echo"))["client"] == "10.0.0.7"
    assert echo(Client(app).get("/echo", remote_addr=None))["client"] is None


def test_headers_replace_the_client_defaults(app: Any) -> None:
    client = Client(app, headers={"User-Agent": "robot", "X-Team": "a"})
    data = echo(client.get("/echo", headers=[("x-team", "b"), ("X-Team", "c")]))
    assert header(data, "user-agent") == ["robot"]
    # Repeated fields reach a WSGI application joined (RFC 9110 §5.3).
    assert header(data, "x-team") in (["b, c"], ["b", "c"])


# -- bodies ------------------------------------------------------------------------


def test_json_body(client: Client) -> None:
    data = echo(client.post("/echo", json={"name": "café", "n": [1, None]}))
    assert data["body"].encode("latin-1").decode() == '{"name":"café","n":[1,null]}'
    assert header(data, "content-type") == ["application/json"]
    assert header(data, "content-length") == [str(len(data["body"]))]


def test_urlencoded_form(client: Client) -> None:
    data = echo(client.put("/echo", data={"a": "1 2", "b": ["x", "y"], "ok": True}))
    assert data["body"] == "a=1+2&b=x&b=y&ok=true"
    assert header(data, "content-type") == ["application/x-www-form-urlencoded"]


def test_multipart_upload_decodes_with_the_core_decoder(client: Client) -> None:
    data = echo(
        client.post(
            "/echo",
            data={"title": "Été"},
            files={
                "doc": ("notes.txt", b"hello\r\n"),
                "image": ("p.png", io.BytesIO(b"\x89PNG"), "image/x-custom"),
            },
        )
    )
    (content_type,) = header(data, "content-type")
    assert content_type.startswith("multipart/form-data; boundary=")
    decoder = FormDecoder(content_type)
    decoder.feed(data["body"].encode("latin-1"))
    form, uploads = decoder.close()
    assert form["title"] == "Été"
    assert uploads["doc"].filename == "notes.txt"
    assert uploads["doc"].content_type == "text/plain; charset=utf-8"
    assert uploads["doc"].read() == b"hello\r\n"
    assert uploads["image"].content_type == "image/x-custom"
    assert uploads["image"].read() == b"\x89PNG"
    for upload in uploads.values():
        upload.close()


@pytest.mark.parametrize("content", [b"raw bytes", "raw text"])
def test_raw_content(client: Client, content: bytes | str) -> None:
    data = echo(client.post("/echo", content=content, headers={"content-type": "text/plain"}))
    assert data["body"] == "raw " + ("bytes" if isinstance(content, bytes) else "text")
    assert header(data, "content-type") == ["text/plain"]
    assert header(data, "content-length") == ["9" if isinstance(content, bytes) else "8"]


def test_iterator_content_is_sent_chunked(client: Client, interface: str, seen: Seen) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"one,"
        yield b""
        yield b"two"

    data = echo(client.post("/echo", content=chunks()))
    assert data["body"] == "one,two"
    assert header(data, "transfer-encoding") == ["chunked"]
    assert header(data, "content-length") == []
    if interface == "asgi":
        assert seen.body_messages == 2  # one message per non-empty chunk


def test_body_arguments_are_exclusive(client: Client) -> None:
    with pytest.raises(TypeError, match="only one of"):
        client.post("/echo", json={}, data={"a": "1"})
    with pytest.raises(TypeError, match="only one of"):
        client.post("/echo", content=b"x", files={"f": b"x"})
    with pytest.raises(TypeError, match="content="):
        client.post("/echo", data="a=1")  # type: ignore[arg-type]


# -- responses ---------------------------------------------------------------------


def test_response_attributes(client: Client, interface: str) -> None:
    response = client.get("/text?charset=latin-1")
    assert response.status_code == 200
    # A WSGI status line carries its own reason; ASGI has none, so the table's.
    assert response.reason == ("Custom Reason" if interface == "wsgi" else "OK")
    assert response.encoding == "iso8859-1"
    assert response.text == "café"
    assert response.content == "café".encode("latin-1")
    assert response.url == "http://testserver/text?charset=latin-1"
    assert response.request.method == "GET"
    assert response.is_closed
    assert repr(response).startswith("<ClientResponse [200 ")


def test_unknown_charset_reads_as_utf8(client: Client) -> None:
    assert client.get("/text?charset=utf-8").text == "café"
    response = client.get("/status?code=404")
    assert (response.status_code, response.encoding) == (404, "utf-8")


def test_stream_reads_chunks_as_they_come(client: Client, seen: Seen, interface: str) -> None:
    with client.stream("GET", "/stream?n=3") as response:
        assert response.status_code == 200
        assert not is_closed(response)
        chunks = response.iter_bytes()
        assert next(chunks) == b"chunk0;"
        assert seen.chunks_produced == 1
        assert list(chunks) == [b"chunk1;", b"chunk2;"]
    assert is_closed(response)
    assert response.content == b"chunk0;chunk1;chunk2;"
    assert list(response.iter_bytes()) == [b"chunk0;chunk1;chunk2;"]
    if interface == "wsgi":
        assert seen.closed


def test_closing_a_stream_early_disconnects(client: Client, seen: Seen, interface: str) -> None:
    with client.stream("GET", "/stream?n=100") as response:
        assert next(response.iter_bytes()) == b"chunk0;"
    assert seen.chunks_produced < 100
    assert seen.closed if interface == "wsgi" else seen.disconnected
    with pytest.raises(RuntimeError, match="closed before its body was read"):
        response.read()


def test_iter_text_keeps_split_characters(client: Client) -> None:
    with client.stream("GET", "/text") as response:
        assert "".join(response.iter_text()) == "café"


# -- failures ----------------------------------------------------------------------


def test_application_errors_are_raised(unchecked_app: Any) -> None:
    client = Client(unchecked_app)
    with pytest.raises(Boom, match="before the response"):
        client.get("/error")
    with pytest.raises(Boom, match="mid-body"):
        client.get("/stream?n=2&fail=1")


def test_errors_become_500_when_asked(unchecked_app: Any) -> None:
    client = Client(unchecked_app, raise_app_exceptions=False)
    response = client.get("/error")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    # After the start, a server can only cut the body short.
    assert client.get("/stream?n=2&fail=1").content == b"chunk0;chunk1;"


# -- redirects ---------------------------------------------------------------------


def test_redirects_are_not_followed_by_default(client: Client) -> None:
    response = client.get("/redirect?to=/echo")
    assert response.status_code == 302
    assert response.is_redirect
    assert response.headers["location"] == "/echo"
    assert response.history == []


def test_follow_redirects_keeps_a_history(client: Client) -> None:
    response = client.get("/redirect?to=/redirect%3Fto%3D/echo", follow_redirects=True)
    assert response.status_code == 200
    assert [r.status_code for r in response.history] == [302, 302]
    assert [r.url for r in response.history] == [
        "http://testserver/redirect?to=/redirect%3Fto%3D/echo",
        "http://testserver/redirect?to=/echo",
    ]
    assert response.url == "http://testserver/echo"
    assert all(r.is_closed for r in response.history)


@pytest.mark.parametrize(
    ("status", "method", "body"),
    [
        (301, "GET", ""),
        (302, "GET", ""),
        (303, "GET", ""),
        (307, "POST", "a=1"),
        (308, "POST", "a=1"),
    ],
)
def test_redirected_post(app: Any, status: int, method: str, body: str) -> None:
    client = Client(app, follow_redirects=True)
    data = echo(client.post(f"/redirect?status={status}&to=/echo", data={"a": "1"}))
    assert (data["method"], data["body"]) == (method, body)
    assert bool(header(data, "content-type")) == bool(body)


def test_redirect_keeps_head(client: Client) -> None:
    response = client.head("/redirect?status=303&to=/echo", follow_redirects=True)
    assert response.request.method == "HEAD"


def test_streamed_body_cannot_follow_307(client: Client) -> None:
    with pytest.raises(RuntimeError, match="cannot repeat a streamed body"):
        client.post("/redirect?status=307", content=iter([b"x"]), follow_redirects=True)


def test_too_many_redirects(app: Any) -> None:
    client = Client(app, follow_redirects=True, max_redirects=3)
    with pytest.raises(TooManyRedirects, match="more than 3"):
        client.get("/loop")


def test_redirect_to_another_origin_drops_credentials(client: Client) -> None:
    same = echo(
        client.get(
            "/redirect?to=/echo", headers={"authorization": "Bearer t"}, follow_redirects=True
        )
    )
    assert header(same, "authorization") == ["Bearer t"]
    other = client.get(
        "/redirect?to=http://other.example/echo",
        headers={"authorization": "Bearer t"},
        follow_redirects=True,
    )
    assert header(echo(other), "authorization") == []
    assert header(echo(other), "host") == ["other.example"]


# -- cookies -----------------------------------------------------------------------


def test_cookies_are_kept_and_sent_back(client: Client) -> None:
    response = client.get("/set-cookie?c=sid%3Dabc%3B%20Path%3D/&c=lang%3D%22fr%22")
    assert response.cookies == {"sid": "abc", "lang": "fr"}
    assert client.cookies.get("sid") == "abc"
    assert header(echo(client.get("/echo")), "cookie") == ['sid=abc; lang="fr"']


def test_request_cookies_override_the_jar(app: Any) -> None:
    client = Client(app, cookies={"sid": "old", "theme": "dark"})
    data = echo(client.get("/echo", cookies={"sid": "new value"}))
    assert header(data, "cookie") == ['theme=dark; sid="new\\040value"']
    assert client.cookies.get("sid") == "old"


def test_cookie_paths_and_secure(client: Client) -> None:
    client.get("/set-cookie?c=a%3D1%3B%20Path%3D/echo/deep&c=s%3D2%3B%20Secure")
    # A Secure cookie from an insecure origin is refused (RFC 6265bis).
    assert client.cookies.get("s") is None
    client.get("/set-cookie?c=s%3D2%3B%20Secure", scheme="https")
    assert header(echo(client.get("/echo/deep/x")), "cookie") == ["a=1"]
    assert header(echo(client.get("/echo")), "cookie") == []
    assert header(echo(client.get("/echo", scheme="https")), "cookie") == ["s=2"]


def test_cookie_default_path_is_the_directory(client: Client) -> None:
    client.get("/echo/dir/set-cookie?c=d%3D1")
    assert header(echo(client.get("/echo/dir/x")), "cookie") == ["d=1"]
    assert header(echo(client.get("/echo")), "cookie") == []


def test_cookie_expiry_follows_the_clock(app: Any) -> None:
    now = [NOW]
    client = Client(app, clock=lambda: now[0])
    client.get("/set-cookie?c=short%3D1%3B%20Max-Age%3D60&c=session%3D2")
    assert header(echo(client.get("/echo")), "cookie") == ["short=1; session=2"]
    now[0] += 61
    assert header(echo(client.get("/echo")), "cookie") == ["session=2"]
    client.get("/set-cookie?c=session%3D%3B%20Max-Age%3D0")
    assert header(echo(client.get("/echo")), "cookie") == []


def test_cookies_set_by_a_redirect_reach_the_next_request(client: Client) -> None:
    response = client.get(
        "/redirect?to=/set-cookie%3Fc%3Dx%253D1&status=302", follow_redirects=True
    )
    assert response.cookies == {"x": "1"}
    assert header(echo(client.get("/echo")), "cookie") == ["x=1"]


# -- detection ---------------------------------------------------------------------


async def asgi_function(scope: Any, receive: Any, send: Any) -> None:
    raise NotImplementedError


class ASGIClass:
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        raise NotImplementedError


def wsgi_function(environ: Any, start_response: Any) -> list[bytes]:
    raise NotImplementedError


@pytest.mark.parametrize(
    ("app", "expected"),
    [
        (asgi_function, "asgi"),
        (ASGIClass(), "asgi"),
        (functools.partial(asgi_function), "asgi"),
        (wsgi_function, "wsgi"),
        (functools.partial(wsgi_function), "wsgi"),
    ],
)
def test_detect_interface(app: object, expected: str) -> None:
    assert detect_interface(app) == expected
    assert Client(app).interface == expected


def test_interface_argument_overrides_and_is_checked() -> None:
    assert Client(wsgi_function, interface="asgi").interface == "asgi"
    with pytest.raises(ValueError, match="interface must be"):
        Client(wsgi_function, interface="cgi")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a WSGI or ASGI application"):
        Client(42)


def test_cookie_jar_clock_reaches_the_client(client: Client) -> None:
    assert client.cookies.clock() == NOW
