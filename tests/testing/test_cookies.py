from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import parse_cookie
from sansio_http.testing import CookieJar, parse_set_cookie
from sansio_http.testing._cookies import default_path, parse_cookie_date, path_match

from .conftest import NOW

URL = "http://testserver/"


def jar_at(now: float = NOW) -> CookieJar:
    return CookieJar(clock=lambda: now)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Wed, 21 Oct 2015 07:28:00 GMT", datetime(2015, 10, 21, 7, 28)),
        ("Wed, 21-Oct-2015 07:28:00 GMT", datetime(2015, 10, 21, 7, 28)),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", datetime(2015, 10, 21, 7, 28)),
        ("Sun Nov  6 08:49:37 1994", datetime(1994, 11, 6, 8, 49, 37)),
        ("6 nov 94 8:49:37", datetime(1994, 11, 6, 8, 49, 37)),
        ("Thu, 01 Jan 70 00:00:00 GMT", datetime(1970, 1, 1)),
        ("Wed, 21 Oct 2015", None),
        ("Wed, 30 Feb 2015 07:28:00 GMT", None),
        ("Wed, 21 Oct 1600 07:28:00 GMT", None),
        ("Wed, 21 Oct 2015 24:28:00 GMT", None),
        ("", None),
    ],
)
def test_cookie_dates(text: str, expected: datetime | None) -> None:
    when = None if expected is None else expected.replace(tzinfo=timezone.utc).timestamp()
    assert parse_cookie_date(text) == when


@given(st.text())
def test_cookie_dates_never_raise(text: str) -> None:
    assert parse_cookie_date(text) is None or isinstance(parse_cookie_date(text), float)


def test_parse_set_cookie_attributes() -> None:
    cookie = parse_set_cookie(
        ' sid = "a b" ; Path=/x; Domain=.Example.COM; Max-Age=60; Expires=bad; '
        "Secure; HttpOnly; SameSite=Lax; Unknown=1"
    )
    assert cookie is not None
    assert (cookie.name, cookie.raw_value, cookie.value) == ("sid", '"a b"', "a b")
    assert (cookie.path, cookie.domain, cookie.max_age, cookie.expires) == (
        "/x",
        "example.com",
        60,
        None,
    )
    assert (cookie.secure, cookie.http_only, cookie.same_site) == (True, True, "Lax")


@pytest.mark.parametrize("field", ["novalue", "=value", " ; Path=/"])
def test_fields_without_a_pair_are_ignored(field: str) -> None:
    assert parse_set_cookie(field) is None


@pytest.mark.parametrize(
    ("attributes", "path", "max_age", "domain"),
    [
        ("Path=relative", None, None, None),
        ("Max-Age=1x", None, None, None),
        ("Max-Age=-5", None, -5, None),
        ("Domain=", None, None, None),
        ("Domain=.", None, None, None),
    ],
)
def test_malformed_attributes_are_skipped(
    attributes: str, path: str | None, max_age: int | None, domain: str | None
) -> None:
    cookie = parse_set_cookie("a=1; " + attributes)
    assert cookie is not None
    assert (cookie.path, cookie.max_age, cookie.domain) == (path, max_age, domain)


@given(st.text())
def test_parse_set_cookie_never_raises(field: str) -> None:
    parse_set_cookie(field)


@pytest.mark.parametrize(
    ("request_path", "expected"),
    [("", "/"), ("/", "/"), ("/a", "/"), ("/a/b", "/a"), ("/a/b/", "/a/b"), ("x/y", "/")],
)
def test_default_path(request_path: str, expected: str) -> None:
    assert default_path(request_path) == expected


@pytest.mark.parametrize(
    ("request_path", "cookie_path", "expected"),
    [
        ("/a", "/a", True),
        ("/a/b", "/a", True),
        ("/ab", "/a", False),
        ("/a/b", "/a/", True),
        ("/", "/a", False),
    ],
)
def test_path_match(request_path: str, cookie_path: str, expected: bool) -> None:
    assert path_match(request_path, cookie_path) is expected


def test_domain_cookies_reach_subdomains_host_only_do_not() -> None:
    jar = jar_at()
    jar.extract("http://www.example.com/", ["d=1; Domain=example.com", "h=2"])
    assert jar.header_for("http://www.example.com/") == "d=1; h=2"
    assert jar.header_for("http://api.example.com/") == "d=1"
    assert jar.header_for("http://example.com/") == "d=1"
    assert jar.header_for("http://notexample.com/") is None


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("http://www.example.com/", "a=1; Domain=other.com"),
        ("http://example.com/", "a=1; Domain=www.example.com"),
        ("http://10.0.0.1/", "a=1; Domain=0.0.1"),
        ("http://testserver/", "a=1; Secure"),
        ("https://testserver/", "__Secure-a=1"),
        ("https://testserver/", "__Host-a=1; Secure; Path=/x"),
        ("https://testserver/", "__host-a=1; Secure; Path=/; Domain=testserver"),
    ],
)
def test_refused_cookies(url: str, field: str) -> None:
    jar = jar_at()
    jar.extract(url, [field])
    assert len(jar) == 0


def test_prefixed_cookies_that_follow_the_rules() -> None:
    jar = jar_at()
    jar.extract("https://testserver/", ["__Secure-a=1; Secure", "__Host-b=2; Secure; Path=/"])
    assert jar.header_for("https://testserver/") == "__Secure-a=1; __Host-b=2"


def test_insecure_origin_cannot_shadow_a_secure_cookie() -> None:
    jar = jar_at()
    jar.extract("https://testserver/", ["sid=secret; Secure"])
    jar.extract("http://testserver/", ["sid=evil", "other=1"])
    assert jar.get("sid") == "secret"
    assert jar.header_for("https://testserver/") == "sid=secret; other=1"
    assert jar.header_for("http://testserver/") == "other=1"
    assert jar.header_for("wss://testserver/") == "sid=secret; other=1"


def test_order_is_longest_path_then_oldest() -> None:
    jar = jar_at()
    jar.extract("http://testserver/a/b/c", ["old=1; Path=/", "deep=2; Path=/a/b", "new=3"])
    jar.extract("http://testserver/", ["old=4"])  # a replacement keeps its place
    assert jar.header_for("http://testserver/a/b/c") == "deep=2; new=3; old=4"


def test_expiry_max_age_wins_and_is_capped() -> None:
    now = [NOW]
    jar = CookieJar(clock=lambda: now[0])
    jar.extract(
        URL,
        [
            "a=1; Max-Age=10; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
            "b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
            "c=3; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
        ],
    )
    assert jar.header_for(URL) == "a=1; b=2"
    cookies = {cookie.name: cookie for cookie in jar}
    assert cookies["b"].expires == NOW + 400 * 24 * 3600
    now[0] += 11
    assert jar.header_for(URL) == "b=2"
    jar.extract(URL, ["b=; Max-Age=0"])
    assert len(jar) == 0


def test_set_get_delete_clear() -> None:
    jar = jar_at()
    jar.set("sid", "a b", path="/app", http_only=True)
    jar.set("sid", "other", domain=".Example.com", secure=True)
    jar.set("old", "x", expires=datetime(2000, 1, 1, tzinfo=timezone.utc))
    jar.set("later", "y", expires=NOW + 10)
    assert jar.get("old") is None
    assert jar.get("sid", path="/app") == "a b"
    assert jar.get("sid", domain="example.com") == "other"
    assert jar.get("missing", "default") == "default"
    assert jar.header_for("http://testserver/app/x") == 'sid="a\\040b"; later=y'
    assert jar.header_for("https://www.example.com/") == "sid=other"
    assert repr(jar) == "<CookieJar ['sid=\"a\\\\040b\"', 'sid=other', 'later=y']>"
    jar.delete("sid", domain="example.com")
    assert [cookie.value for cookie in jar] == ["a b", "y"]
    jar.delete("later")
    assert len(jar) == 1
    jar.clear()
    assert len(jar) == 0
    with pytest.raises(ValueError, match="token"):
        jar.set("bad name", "x")


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])))
def test_set_then_send_round_trips_any_value(value: str) -> None:
    jar = jar_at()
    jar.set("k", value)
    header = jar.header_for(URL)
    assert header is not None
    assert parse_cookie(header) == [("k", value)]
    assert jar.get("k") == value
