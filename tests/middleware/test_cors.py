"""CORSMiddleware on core values: preflights, actual requests, origin matching."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import CORSMiddleware, Request, Response, is_origin

SITE = "https://app.example"


def request(method: str = "GET", **fields: str) -> Request:
    headers = [(name.replace("_", "-"), value) for name, value in fields.items()]
    return Request(method, "/", b"", headers, "https", "127.0.0.1", "")


def preflight(
    cors: CORSMiddleware, origin: str, method: str, headers: str | None = None
) -> Response:
    fields = {"origin": origin, "access_control_request_method": method}
    if headers is not None:
        fields["access_control_request_headers"] = headers
    answer = cors.process_request(request("OPTIONS", **fields))
    assert answer is not None
    return answer


def actual(cors: CORSMiddleware, **fields: str) -> Response:
    return cors.process_response(request(**fields), Response(b"ok"))


def test_a_preflight_from_an_allowed_origin_is_answered_without_the_view() -> None:
    cors = CORSMiddleware(
        [SITE], allow_methods=["PUT", "DELETE"], allow_headers=["Content-Type"], max_age=60
    )
    answer = preflight(cors, SITE, "PUT", "content-type")
    assert answer.status == 204
    assert answer.headers["access-control-allow-origin"] == SITE
    assert answer.headers["access-control-allow-methods"] == "DELETE, PUT"
    assert answer.headers["access-control-allow-headers"] == "content-type"
    assert answer.headers["access-control-max-age"] == "60"
    assert answer.headers["vary"] == "Origin"
    assert "access-control-allow-credentials" not in answer.headers


@pytest.mark.parametrize(
    ("origin", "method", "headers"),
    [
        ("https://evil.example", "PUT", None),  # origin not listed
        (SITE, "PATCH", None),  # method not allowed
        (SITE, "PUT", "x-secret"),  # header not allowed
        ("https://app.example/", "PUT", None),  # malformed: a trailing slash
    ],
)
def test_a_refused_preflight_gets_403_without_cors_fields(
    origin: str, method: str, headers: str | None
) -> None:
    cors = CORSMiddleware([SITE], allow_methods=["PUT"], allow_headers=["content-type"])
    answer = preflight(cors, origin, method, headers)
    assert answer.status == 403
    assert not any(name.startswith("access-control-") for name in answer.headers)
    assert answer.headers["vary"] == "Origin"


def test_safelisted_methods_pass_a_preflight_whatever_the_settings() -> None:
    cors = CORSMiddleware([SITE], allow_methods=["PUT"])
    assert preflight(cors, SITE, "POST").status == 204


def test_safelisted_header_names_are_listed_with_the_configured_ones() -> None:
    cors = CORSMiddleware([SITE], allow_headers=["X-Client"])
    answer = preflight(cors, SITE, "POST", "Content-Type, x-client")
    assert answer.status == 204
    assert answer.headers["access-control-allow-headers"] == "content-type, x-client"
    # The listed names are always named; safelisted ones when they are asked for.
    answer = preflight(cors, SITE, "POST", "accept")
    assert answer.headers["access-control-allow-headers"] == "accept, x-client"
    assert (
        preflight(cors, SITE, "POST", "x-client").headers["access-control-allow-headers"]
        == "x-client"
    )
    assert preflight(cors, SITE, "POST", "content-type, x-other").status == 403
    # Range is safelisted for a single plain byte range only: it needs listing.
    assert preflight(cors, SITE, "GET", "range").status == 403


def test_plain_options_requests_are_left_to_the_app() -> None:
    cors = CORSMiddleware([SITE])
    assert cors.process_request(request("OPTIONS")) is None
    assert cors.process_request(request("OPTIONS", origin=SITE)) is None
    assert cors.process_request(request("GET", origin=SITE)) is None


def test_wildcards_echo_what_the_preflight_asked_for() -> None:
    cors = CORSMiddleware([SITE], allow_methods="*", allow_headers="*", allow_credentials=True)
    answer = preflight(cors, SITE, "PURGE", "X-One, x-two")
    assert answer.headers["access-control-allow-methods"] == "PURGE"
    assert answer.headers["access-control-allow-headers"] == "x-one, x-two"
    assert answer.headers["access-control-allow-credentials"] == "true"


def test_an_actual_request_from_an_allowed_origin_gets_the_fields() -> None:
    cors = CORSMiddleware([SITE], allow_credentials=True, expose_headers=["X-Total"])
    response = actual(cors, origin=SITE)
    assert response.headers["access-control-allow-origin"] == SITE
    assert response.headers["access-control-allow-credentials"] == "true"
    assert response.headers["access-control-expose-headers"] == "X-Total"
    assert response.headers["vary"] == "Origin"


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "null",
        "https://app.example.evil.example",
        "garbage",
        "",
        "https://app.example, https://x.example",
    ],
)
def test_a_disallowed_or_malformed_origin_gets_no_cors_fields_but_vary(origin: str) -> None:
    response = actual(CORSMiddleware([SITE]), origin=origin)
    assert not any(name.startswith("access-control-") for name in response.headers)
    assert response.headers["vary"] == "Origin"


def test_without_origin_the_response_varies_on_origin_unless_it_is_a_wildcard() -> None:
    assert actual(CORSMiddleware([SITE])).headers["vary"] == "Origin"
    assert "vary" not in actual(CORSMiddleware("*")).headers


def test_a_wildcard_answers_star_and_never_echoes_nor_varies() -> None:
    for origin in ("https://any.example", "not an origin\x7f"):
        response = actual(CORSMiddleware("*"), origin=origin)
        assert response.headers["access-control-allow-origin"] == "*"
        assert "vary" not in response.headers
        assert "access-control-allow-credentials" not in response.headers


def test_an_existing_vary_is_extended_once() -> None:
    cors = CORSMiddleware([SITE])
    response = Response(b"", headers={"Vary": "Accept-Encoding"})
    response = cors.process_response(request(origin=SITE), response)
    response = cors.process_response(request(origin=SITE), response)
    assert response.headers["vary"] == "Accept-Encoding, Origin"
    starred = cors.process_response(request(), Response(b"", headers={"Vary": "*"}))
    assert starred.headers["vary"] == "*"


def test_a_wildcard_with_credentials_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be combined"):
        CORSMiddleware("*", allow_credentials=True)
    with pytest.raises(ValueError, match="cannot be combined"):
        CORSMiddleware([SITE], expose_headers=["*"], allow_credentials=True)


@pytest.mark.parametrize(
    "origin", ["https://app.example/", "app.example", "https://a.example/path"]
)
def test_a_listed_value_that_is_not_an_origin_is_refused(origin: str) -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        CORSMiddleware([origin])


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="not an HTTP token"):
        CORSMiddleware([SITE], allow_headers=["bad header"])
    with pytest.raises(ValueError, match="negative"):
        CORSMiddleware([SITE], max_age=-1)


def test_a_single_origin_string_and_case_differences() -> None:
    cors = CORSMiddleware("HTTPS://App.Example")
    assert cors.allows_origin("https://app.example")
    assert not cors.allows_origin("https://app.example:8443")


def test_a_regex_must_match_the_whole_origin() -> None:
    cors = CORSMiddleware(re.compile(r"https://[a-z]+\.example\.com"))
    assert cors.allows_origin("https://shop.example.com")
    assert not cors.allows_origin("https://shop.example.com.evil.net")
    assert not cors.allows_origin("https://evil.net/https://shop.example.com")


def test_a_callable_decides_and_never_sees_a_malformed_origin() -> None:
    seen: list[str] = []

    def allow(origin: str) -> bool:
        seen.append(origin)
        return origin.endswith(".trusted.example")

    cors = CORSMiddleware(allow)
    assert cors.allows_origin("https://a.trusted.example")
    assert not cors.allows_origin("https://a.trusted.example/")
    assert not cors.allows_origin("https://other.example")
    assert seen == ["https://a.trusted.example", "https://other.example"]


# -- properties ------------------------------------------------------------

labels = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
origins = st.builds(
    lambda scheme, host, port: f"{scheme}://{'.'.join(host)}" + (f":{port}" if port else ""),
    st.sampled_from(["http", "https"]),
    st.lists(labels, min_size=1, max_size=4),
    st.one_of(st.none(), st.integers(1, 65535)),
)


@given(allowed=st.lists(origins, min_size=1, max_size=5), candidate=origins)
def test_a_list_allows_exactly_its_origins(allowed: list[str], candidate: str) -> None:
    cors = CORSMiddleware(allowed)
    assert cors.allows_origin(candidate) == (candidate in allowed)
    assert all(cors.allows_origin(origin.upper()) for origin in allowed)


@given(allowed=origins, suffix=st.text(min_size=1, max_size=20))
def test_nothing_appended_to_an_allowed_origin_is_allowed(allowed: str, suffix: str) -> None:
    candidate = allowed + suffix
    assert not CORSMiddleware([allowed]).allows_origin(candidate)
    assert not CORSMiddleware(re.compile(re.escape(allowed))).allows_origin(candidate)


@given(value=st.text(max_size=60))
def test_any_origin_header_gets_an_answer_and_never_an_error(value: str) -> None:
    cors = CORSMiddleware([SITE], allow_credentials=True)
    allowed = cors.allows_origin(value)
    assert allowed == (value.lower() == SITE)
    assert is_origin(value) or not allowed


@given(origin=origins)
def test_every_generated_origin_is_well_formed(origin: str) -> None:
    assert is_origin(origin)
    assert not is_origin(origin + "/")


def test_fields_the_view_set_are_replaced_not_repeated() -> None:
    cors = CORSMiddleware([SITE], allow_credentials=True, expose_headers=["X-Total"])
    response = Response(b"", headers={"Access-Control-Allow-Origin": "https://stale.example"})
    response = cors.process_response(request(origin=SITE), response)
    assert response.headers.getlist("access-control-allow-origin") == [SITE]
    assert response.headers["access-control-expose-headers"] == "X-Total"


def test_a_wildcard_exposes_headers_too() -> None:
    response = actual(CORSMiddleware("*", expose_headers=["X-Total"]), origin=SITE)
    assert response.headers["access-control-expose-headers"] == "X-Total"


def test_a_preflight_with_a_malformed_method_or_header_is_refused() -> None:
    cors = CORSMiddleware([SITE], allow_methods="*", allow_headers="*")
    assert preflight(cors, SITE, "PU T").status == 403
    assert preflight(cors, SITE, "PUT", "x-ok, bad header").status == 403
    assert preflight(cors, SITE, "PUT", " , x-ok").headers["access-control-allow-headers"] == "x-ok"


def test_a_non_ascii_origin_never_matches_a_list_by_case_folding() -> None:
    # The Kelvin sign lower-cases to an ASCII "k".
    cors = CORSMiddleware(["https://kiosk.example"])
    assert not cors.allows_origin("https://\u212aiosk.example")


def test_a_wildcard_preflight_answers_star_without_vary() -> None:
    answer = preflight(CORSMiddleware("*"), "https://any.example", "GET")
    assert answer.status == 204
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "vary" not in answer.headers
    assert "access-control-allow-headers" not in answer.headers
    refused = preflight(CORSMiddleware("*"), "https://any.example", "PURGE")
    assert refused.status == 403
    assert "vary" not in refused.headers


def test_a_repeated_preflight_gets_the_same_answer_in_a_fresh_response() -> None:
    cors = CORSMiddleware(
        [SITE], allow_methods=["PUT"], allow_headers=["x-a"], allow_credentials=True
    )
    first = preflight(cors, SITE, "PUT", "x-a")
    second = preflight(cors, SITE, "PUT", "x-a")
    assert second is not first
    assert second.raw_headers() == first.raw_headers()
    second.headers["x-changed"] = "1"
    assert "x-changed" not in preflight(cors, SITE, "PUT", "x-a").headers


def test_a_callable_is_asked_at_every_preflight() -> None:
    allowed = {SITE}
    cors = CORSMiddleware(lambda origin: origin in allowed)
    assert preflight(cors, SITE, "GET").status == 204
    allowed.clear()
    assert preflight(cors, SITE, "GET").status == 403


def test_kept_preflight_answers_are_bounded() -> None:
    cors = CORSMiddleware([SITE], allow_headers="*")
    for index in range(300):
        assert preflight(cors, SITE, "GET", f"x-{index}").status == 204
    assert preflight(cors, SITE, "GET", "x-299").headers["access-control-allow-headers"] == "x-299"
    assert len(cors._answered) == 256
