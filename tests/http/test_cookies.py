"""Set-Cookie serialisation: quoting, attributes and the rules that refuse misuse."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.http import parse_cookie as werkzeug_parse_cookie

from sansio_http.http._cookies import SameSite, dump_cookie


def test_defaults() -> None:
    assert dump_cookie("sid", "abc") == "sid=abc; Path=/"
    assert dump_cookie("sid") == "sid=; Path=/"
    assert dump_cookie("sid", "abc", path=None) == "sid=abc"


def test_every_attribute_in_order() -> None:
    header = dump_cookie(
        "sid",
        "abc",
        max_age=3600,
        expires=datetime(2015, 10, 21, 7, 28, tzinfo=timezone.utc),
        path="/app",
        domain="example.com",
        secure=True,
        httponly=True,
        samesite="lax",
        partitioned=True,
    )
    assert header == (
        "sid=abc; Domain=example.com; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=3600;"
        " Path=/app; Secure; HttpOnly; SameSite=Lax; Partitioned"
    )


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("plain-value_1.2~!#$%&'()*+/:<=>?@[]^`{|}", "plain-value_1.2~!#$%&'()*+/:<=>?@[]^`{|}"),
        ("a b", r'"a\040b"'),
        ('say "hi"', r'"say\040\"hi\""'),
        ("a;b,c", r'"a\073b\054c"'),
        ("back\\slash", r'"back\\slash"'),
        ("é", r'"\303\251"'),
        ("tab\there\r\n\x00", r'"tab\011here\015\012\000"'),
        ("", ""),
    ],
)
def test_values_outside_cookie_octets_are_quoted(value: str, sent: str) -> None:
    assert dump_cookie("k", value, path=None) == f"k={sent}"


@pytest.mark.parametrize("value", ["a b", 'say "hi"', "a;b,c", "back\\slash", "é ☃", "\x7f"])
def test_quoted_values_round_trip_through_a_common_parser(value: str) -> None:
    assert werkzeug_parse_cookie(dump_cookie("k", value, path=None))["k"] == value


@pytest.mark.parametrize("key", ["", "a b", "a=b", "a;b", "é", "a\r\n", "(x)", 'q"'])
def test_names_must_be_tokens(key: str) -> None:
    with pytest.raises(ValueError, match="token"):
        dump_cookie(key, "v")


@pytest.mark.parametrize(
    ("samesite", "sent"),
    [("Strict", "Strict"), ("lax", "Lax"), ("NONE", "None"), ("none", "None")],
)
def test_samesite_values_are_canonical(samesite: SameSite, sent: str) -> None:
    assert dump_cookie("k", secure=True, samesite=samesite).endswith(f"; SameSite={sent}")


def test_unknown_samesite_is_refused() -> None:
    with pytest.raises(ValueError, match="samesite"):
        dump_cookie("k", samesite="sometimes")  # type: ignore[arg-type]


def test_samesite_none_needs_secure() -> None:
    with pytest.raises(ValueError, match="SameSite=None"):
        dump_cookie("k", samesite="None")


def test_partitioned_needs_secure() -> None:
    with pytest.raises(ValueError, match="Partitioned"):
        dump_cookie("k", partitioned=True)


@pytest.mark.parametrize("key", ["__Secure-id", "__secure-id", "__Host-id", "__HOST-id"])
def test_prefixed_names_need_secure(key: str) -> None:
    with pytest.raises(ValueError, match="must be Secure"):
        dump_cookie(key, "v")
    assert "; Secure" in dump_cookie(key, "v", secure=True)


@pytest.mark.parametrize(("path", "domain"), [("/app", None), (None, None), ("/", "example.com")])
def test_host_prefix_needs_root_path_and_no_domain(path: str | None, domain: str | None) -> None:
    with pytest.raises(ValueError, match="Path=/ and no Domain"):
        dump_cookie("__Host-id", "v", secure=True, path=path, domain=domain)


@pytest.mark.parametrize(
    ("domain", "sent"),
    [
        ("example.com", "example.com"),
        (".example.com", ".example.com"),
        ("exämple.com", "xn--exmple-cua.com"),
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
    ],
)
def test_domain(domain: str, sent: str) -> None:
    assert dump_cookie("k", path=None, domain=domain) == f"k=; Domain={sent}"


@pytest.mark.parametrize(
    "domain", ["", ".", "a b", "a..b", "a;b", "evil.com\r\nX: y", "a/b", "x" * 64 + ".com"]
)
def test_bad_domains_are_refused(domain: str) -> None:
    with pytest.raises(ValueError, match="domain"):
        dump_cookie("k", domain=domain)


@pytest.mark.parametrize(
    ("path", "sent"),
    [("/", "/"), ("/a b/é", "/a%20b/%C3%A9"), ("/a%20b", "/a%20b"), ("/x,y=z", "/x,y=z")],
)
def test_path_is_percent_encoded(path: str, sent: str) -> None:
    assert dump_cookie("k", path=path) == f"k=; Path={sent}"


@pytest.mark.parametrize("path", ["/a;b", "/a\nb", "/a\x00", "/\x7f"])
def test_bad_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match="path"):
        dump_cookie("k", path=path)


@pytest.mark.parametrize(
    "expires",
    [
        datetime(2015, 10, 21, 7, 28, tzinfo=timezone.utc),
        datetime(2015, 10, 21, 7, 28),  # naive: taken as UTC
        datetime(2015, 10, 21, 9, 28, tzinfo=timezone(timedelta(hours=2))),
        1445412480,
        1445412480.0,
    ],
)
def test_expires(expires: datetime | float) -> None:
    assert dump_cookie("k", path=None, expires=expires) == (
        "k=; Expires=Wed, 21 Oct 2015 07:28:00 GMT"
    )


@pytest.mark.parametrize(
    ("max_age", "sent"), [(0, "0"), (60, "60"), (timedelta(hours=1), "3600"), (-1, "-1")]
)
def test_max_age_alone(max_age: int | timedelta, sent: str) -> None:
    # No Expires is derived from Max-Age: that would need the current time.
    assert dump_cookie("k", path=None, max_age=max_age) == f"k=; Max-Age={sent}"


@given(key=st.text(), value=st.text())
def test_arbitrary_cookies_raise_value_error_or_are_safe(key: str, value: str) -> None:
    try:
        header = dump_cookie(key, value)
    except ValueError:
        return
    assert not any(char in header for char in "\r\n\x00")
    assert header.isascii()
    name, _, rest = header.partition("=")
    assert name == key
    # The value is a single cookie: no separator of its own.
    sent = rest.removesuffix("; Path=/")
    assert ";" not in sent
    assert " " not in sent


@given(value=st.text())
def test_any_value_round_trips_through_werkzeug(value: str) -> None:
    try:
        header = dump_cookie("k", value, path=None)
    except ValueError:  # lone surrogates cannot be UTF-8
        return
    assert werkzeug_parse_cookie(header)["k"] == value


@given(
    path=st.text(),
    domain=st.text(),
)
def test_arbitrary_attributes_raise_value_error_or_are_safe(path: str, domain: str) -> None:
    try:
        header = dump_cookie("k", "v", path=path, domain=domain)
    except ValueError:
        return
    assert not any(char in header for char in "\r\n\x00")
    assert header.count(";") == 2


@pytest.mark.parametrize(
    ("domain", "sent"),
    [
        # UTS #46 non-transitional, as browsers map hosts; IDNA 2003 gave fass.de.
        ("faß.de", "xn--fa-hia.de"),
        (".bücher.example", ".xn--bcher-kva.example"),
    ],
)
def test_a_cookie_domain_is_the_host_a_browser_matches(domain: str, sent: str) -> None:
    assert f"Domain={sent};" in dump_cookie("a", "b", domain=domain)


def test_a_cookie_domain_no_browser_agrees_on_is_refused() -> None:
    # ZWJ: browsers and IDNA 2003 disagree, so no ASCII form is sent.
    with pytest.raises(ValueError, match="not a valid host name"):
        dump_cookie("a", "b", domain="a\u200db.example")
