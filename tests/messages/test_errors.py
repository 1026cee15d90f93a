"""HTTP errors: statuses, descriptions, headers, HTML/JSON bodies and abort()."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from sansio_http.http._status import PHRASES, reason_phrase
from sansio_http.messages._abort import abort
from sansio_http.messages._errors import (
    BadGateway,
    BadRequest,
    ClientDisconnected,
    Conflict,
    ExpectationFailed,
    Forbidden,
    GatewayTimeout,
    Gone,
    HTTPError,
    HTTPVersionNotSupported,
    ImATeapot,
    InternalServerError,
    LengthRequired,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    NotImplemented,
    PreconditionFailed,
    PreconditionRequired,
    RequestedRangeNotSatisfiable,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestTimeout,
    RequestURITooLong,
    ServiceUnavailable,
    TooManyRequests,
    Unauthorized,
    UnprocessableEntity,
    UnsupportedMediaType,
    UntrustedHost,
)
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response

CLASSES: list[tuple[type[HTTPError], int, str]] = [
    (BadRequest, 400, "Bad Request"),
    (Unauthorized, 401, "Unauthorized"),
    (Forbidden, 403, "Forbidden"),
    (NotFound, 404, "Not Found"),
    (MethodNotAllowed, 405, "Method Not Allowed"),
    (NotAcceptable, 406, "Not Acceptable"),
    (RequestTimeout, 408, "Request Timeout"),
    (Conflict, 409, "Conflict"),
    (Gone, 410, "Gone"),
    (LengthRequired, 411, "Length Required"),
    (PreconditionFailed, 412, "Precondition Failed"),
    (RequestEntityTooLarge, 413, "Content Too Large"),
    (RequestURITooLong, 414, "URI Too Long"),
    (UnsupportedMediaType, 415, "Unsupported Media Type"),
    (RequestedRangeNotSatisfiable, 416, "Range Not Satisfiable"),
    (ExpectationFailed, 417, "Expectation Failed"),
    (ImATeapot, 418, "I'm a teapot"),
    (UnprocessableEntity, 422, "Unprocessable Content"),
    (PreconditionRequired, 428, "Precondition Required"),
    (TooManyRequests, 429, "Too Many Requests"),
    (RequestHeaderFieldsTooLarge, 431, "Request Header Fields Too Large"),
    (InternalServerError, 500, "Internal Server Error"),
    (NotImplemented, 501, "Not Implemented"),
    (BadGateway, 502, "Bad Gateway"),
    (ServiceUnavailable, 503, "Service Unavailable"),
    (GatewayTimeout, 504, "Gateway Timeout"),
    (HTTPVersionNotSupported, 505, "HTTP Version Not Supported"),
]


def request(accept: str | None = None) -> Request:
    headers = [] if accept is None else [("accept", accept)]
    return Request("GET", "/", b"", headers, "http", None, "")


@pytest.mark.parametrize(("cls", "status", "reason"), CLASSES)
def test_each_class_has_its_status_reason_and_description(
    cls: type[HTTPError], status: int, reason: str
) -> None:
    error = cls()
    assert error.status == status
    assert error.reason == reason
    assert error.detail == cls.description
    assert error.description.endswith(".")
    assert isinstance(error, HTTPError)
    response = error.to_response()
    assert response.status == status
    assert response.status_line == f"{status} {reason}"


@pytest.mark.parametrize(("cls", "status", "_reason"), CLASSES)
def test_abort_raises_the_class_of_each_status(
    cls: type[HTTPError], status: int, _reason: str
) -> None:
    with pytest.raises(cls, match="custom") as info:
        abort(status, "custom")
    assert type(info.value) is cls
    assert info.value.detail == "custom"


@pytest.mark.parametrize("cls", [UntrustedHost, ClientDisconnected])
def test_special_bad_requests_are_bad_requests(cls: type[BadRequest]) -> None:
    error = cls()
    assert isinstance(error, BadRequest)
    assert error.status == 400
    assert error.detail != BadRequest.description


def test_base_class_is_a_500() -> None:
    error = HTTPError("broken")
    assert error.status == 500
    assert error.to_response().status == 500


def test_str_and_repr() -> None:
    error = NotFound("no such page")
    assert str(error) == "404 Not Found: no such page"
    assert repr(error) == "NotFound('no such page')"
    assert error.args == ("no such page",)


def test_args_hold_the_detail_as_given() -> None:
    assert NotFound().args == (None,)
    assert NotFound(detail="gone").args == ("gone",)


def test_detail_and_headers_can_be_set() -> None:
    error = NotFound()
    assert error.detail == NotFound.description
    assert error.headers == {}
    error.detail = "moved on"
    error.headers["X-Reason"] = "moved"
    response = error.to_response()
    assert b"moved on" in response.body  # type: ignore[operator]
    assert response.headers["x-reason"] == "moved"
    error.headers = {"Retry-After": "5"}
    assert error.to_response().headers["retry-after"] == "5"
    assert "x-reason" not in error.to_response().headers


def test_errors_do_not_share_headers() -> None:
    first, second = NotFound(), NotFound()
    first.headers["X-A"] = "1"
    assert second.headers == {}
    assert "x-a" not in second.to_response().headers


def test_empty_detail_is_kept() -> None:
    assert NotFound("").detail == ""


def test_html_body_escapes_the_detail() -> None:
    response = NotFound("<script>alert('x')</script> & more").to_response()
    assert response.content_type == "text/html; charset=utf-8"
    assert isinstance(response.body, bytes)
    text = response.body.decode()
    assert "<script>" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; more" in text
    assert "<title>404 Not Found</title>" in text
    assert response.headers["content-length"] == str(len(response.body))


def test_teapot_title_is_escaped() -> None:
    response = ImATeapot().to_response()
    assert isinstance(response.body, bytes)
    assert b"418 I&#x27;m a teapot" in response.body


def test_no_traceback_or_cause_in_the_body() -> None:
    try:
        try:
            raise RuntimeError("database password is hunter2")
        except RuntimeError as exc:
            raise InternalServerError() from exc
    except InternalServerError as error:
        caught = error
    for accept in (None, "application/json"):
        response = caught.to_response(request(accept))
        assert isinstance(response.body, bytes)
        assert b"hunter2" not in response.body
        assert b"Traceback" not in response.body
        assert b"RuntimeError" not in response.body


@pytest.mark.parametrize(
    "accept",
    ["application/json", "application/json, text/html;q=0.9", "text/html;q=0.1, application/*"],
)
def test_json_when_the_client_prefers_it(accept: str) -> None:
    response = MethodNotAllowed("Use <GET>.", allowed=["get", "head"]).to_response(request(accept))
    assert response.content_type == "application/json"
    assert isinstance(response.body, bytes)
    assert json.loads(response.body) == {
        "status": 405,
        "error": "Method Not Allowed",
        "detail": "Use <GET>.",
    }
    assert response.headers["allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    "accept",
    [None, "*/*", "text/html", "text/html, application/json", "image/png", "text/*"],
)
def test_html_otherwise(accept: str | None) -> None:
    response = NotFound().to_response(request(accept))
    assert response.content_type == "text/html; charset=utf-8"


def test_json_keeps_non_ascii_text() -> None:
    response = Conflict("déjà vu").to_response(request("application/json"))
    assert isinstance(response.body, bytes)
    assert "déjà vu".encode() in response.body


def test_a_request_without_accept_mimetypes_gets_html() -> None:
    class Bare:
        pass

    response = NotFound().to_response(Bare())  # type: ignore[arg-type]
    assert response.content_type == "text/html; charset=utf-8"


def test_headers_are_copied_and_sent() -> None:
    given = {"X-Request-Id": "abc"}
    error = Forbidden(headers=given)
    given["X-Request-Id"] = "changed"
    response = error.to_response()
    assert error.headers == {"X-Request-Id": "abc"}
    assert response.headers["x-request-id"] == "abc"


def test_unauthorized_sends_challenges() -> None:
    assert Unauthorized().headers == {}
    one = Unauthorized(www_authenticate='Bearer realm="api"')
    assert one.headers == {"WWW-Authenticate": 'Bearer realm="api"'}
    both = Unauthorized(www_authenticate=["Basic realm=x", "Bearer"], headers={"X": "1"})
    assert both.headers == {"X": "1", "WWW-Authenticate": "Basic realm=x, Bearer"}
    assert both.to_response().headers["www-authenticate"] == "Basic realm=x, Bearer"


def test_method_not_allowed_sends_allow() -> None:
    error = MethodNotAllowed(allowed=("GET", "post"))
    assert error.allowed == ["GET", "POST"]
    assert error.headers == {"Allow": "GET, POST"}
    assert MethodNotAllowed().headers == {}
    assert MethodNotAllowed(allowed=[]).headers == {"Allow": ""}


def test_range_not_satisfiable_sends_the_length() -> None:
    error = RequestedRangeNotSatisfiable(length=1000)
    assert error.length == 1000
    assert error.headers == {"Content-Range": "bytes */1000"}
    assert RequestedRangeNotSatisfiable().headers == {}
    with pytest.raises(ValueError, match="negative"):
        RequestedRangeNotSatisfiable(length=-1)


@pytest.mark.parametrize("cls", [TooManyRequests, ServiceUnavailable])
def test_retry_after(cls: type[TooManyRequests] | type[ServiceUnavailable]) -> None:
    assert cls().headers == {}
    assert cls(retry_after=120).headers == {"Retry-After": "120"}
    when = datetime(2015, 10, 21, 7, 28, tzinfo=timezone.utc)
    assert cls(retry_after=when).headers == {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}
    with pytest.raises(ValueError, match="negative"):
        cls(retry_after=-5)


def test_abort_passes_keyword_arguments() -> None:
    with pytest.raises(MethodNotAllowed) as info:
        abort(405, allowed=["GET"], headers={"X": "y"})
    assert info.value.headers == {"X": "y", "Allow": "GET"}
    assert info.value.detail == MethodNotAllowed.description


def test_abort_with_an_uncommon_code() -> None:
    with pytest.raises(HTTPError) as first:
        abort(451, "court order")
    with pytest.raises(HTTPError) as second:
        abort(451)
    assert type(first.value) is type(second.value)
    assert type(first.value).__name__ == "HTTPError451"
    assert not isinstance(first.value, BadRequest)
    assert first.value.status == 451
    assert first.value.detail == "court order"
    assert second.value.detail == "Unavailable For Legal Reasons."
    assert first.value.to_response().status_line == "451 Unavailable For Legal Reasons"
    with pytest.raises(HTTPError) as unregistered:
        abort(599)
    assert unregistered.value.reason == "Server Error"


@pytest.mark.parametrize("status", [200, 302, 399, 600, 99])
def test_abort_refuses_non_error_codes(status: int) -> None:
    with pytest.raises(ValueError, match="400-599"):
        abort(status)


def test_abort_with_a_response_answers_with_that_response() -> None:
    response = Response("go away", 403, {"X-Reason": "banned"})
    with pytest.raises(HTTPError) as info:
        abort(response)
    error = info.value
    assert error.status == 403
    assert not isinstance(error, Forbidden)  # the response is the answer, not a Forbidden
    request = Request("GET", "/", b"", [("accept", "application/json")], "http", None, "")
    for answer in (error.to_response(), error.to_response(request)):
        assert answer is response
    assert (response.status, response.headers["x-reason"], response.body) == (
        403,
        "banned",
        b"go away",
    )
    assert str(error) == "403 Forbidden: Forbidden."


@pytest.mark.parametrize("status", [200, 302, 404, 451, 503])
def test_abort_with_a_response_takes_any_status(status: int) -> None:
    # abort(redirect(url)) ends a view with a redirection, as abort(404) does with an error.
    response = Response(b"", status)
    with pytest.raises(HTTPError) as first:
        abort(response)
    with pytest.raises(HTTPError) as second:
        abort(Response(b"", status))
    assert first.value.status == status
    assert type(first.value) is type(second.value)  # one class per status, made once
    assert first.value.to_response() is response


def test_abort_with_a_response_takes_no_detail() -> None:
    with pytest.raises(TypeError, match="set them on the response"):
        abort(Response(status=403), "detail")
    with pytest.raises(TypeError, match="set them on the response"):
        abort(Response(status=403), headers={"X": "y"})


def test_phrase_table_matches_rfc_9110_names() -> None:
    # Python 3.13 renamed these; our table follows RFC 9110 whatever the interpreter.
    assert PHRASES[413] == "Content Too Large"
    assert PHRASES[414] == "URI Too Long"
    assert PHRASES[416] == "Range Not Satisfiable"
    assert PHRASES[422] == "Unprocessable Content"
    assert all(100 <= code <= 599 for code in PHRASES)


@pytest.mark.parametrize(
    ("status", "phrase"),
    [
        (200, "OK"),
        (199, "Informational"),
        (299, "Successful"),
        (399, "Redirection"),
        (499, "Client Error"),
        (599, "Server Error"),
    ],
)
def test_reason_phrase_falls_back_to_the_class(status: int, phrase: str) -> None:
    assert reason_phrase(status) == phrase


def test_error_response_is_a_response() -> None:
    assert isinstance(BadRequest().to_response(), Response)
