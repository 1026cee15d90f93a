"""The Authorization header."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http.http import Authorization, parse_authorization


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # RFC 7617 §2's example.
        ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", Authorization("basic", "Aladdin", "open sesame")),
        ("basic   QWxhZGRpbjpvcGVuIHNlc2FtZQ== ", Authorization("basic", "Aladdin", "open sesame")),
        ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ", Authorization("basic", "Aladdin", "open sesame")),
        # RFC 7617 §2.1's UTF-8 example: "test" / "123\u00a3".
        ("Basic dGVzdDoxMjPCow==", Authorization("basic", "test", "123\u00a3")),
        # The same in ISO-8859-1, as older clients send it.
        ("Basic dGVzdDoxMjOj", Authorization("basic", "test", "123\u00a3")),
        ("Basic Og==", Authorization("basic", "", "")),
        ("Basic dTpwOnE=", Authorization("basic", "u", "p:q")),
        # RFC 6750 §2.1's example.
        ("Bearer mF_9.B5f-4.1JqM", Authorization("bearer", token="mF_9.B5f-4.1JqM")),
        (
            "Negotiate YIIFtgYGKwYBBQUCoIIFqjCCBaag==",
            Authorization("negotiate", token="YIIFtgYGKwYBBQUCoIIFqjCCBaag=="),
        ),
        ("Negotiate", Authorization("negotiate")),
        (
            'Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html",'
            " algorithm=SHA-256, nc=00000001, Realm=dup",
            Authorization(
                "digest",
                params={
                    "username": "Mufasa",
                    "realm": "http-auth@example.org",
                    "uri": "/dir/index.html",
                    "algorithm": "SHA-256",
                    "nc": "00000001",
                },
            ),
        ),
    ],
)
def test_parse_authorization(header: str, expected: Authorization) -> None:
    assert parse_authorization(header) == expected


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "   ",
        "B@sic abc",
        "Basic",
        "Basic !!!",
        "Basic a",
        "Basic dXNlcg==",
        "Basic QWxh ZGRp",
        "Bearer",
        "Bearer a b",
        'Bearer token="x"',
        "Digest a b",
        "Digest , ,",
        'Digest realm="x", "y"=z',
        "Digest a=b, c",
    ],
)
def test_malformed_credentials_give_none(header: str | None) -> None:
    assert parse_authorization(header) is None


@pytest.mark.parametrize(
    ("credentials", "header"),
    [
        (Authorization("basic", "Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        (Authorization("basic", "test", None), "Basic dGVzdDo="),
        (Authorization("bearer", token="abc"), "Bearer abc"),
        (Authorization("digest", params={"realm": "a b", "nc": "1"}), 'Digest realm="a b", nc=1'),
        (Authorization("negotiate"), "negotiate"),
    ],
)
def test_to_header(credentials: Authorization, header: str) -> None:
    assert credentials.to_header() == header


def test_authorization_is_hashable() -> None:
    assert hash(Authorization("bearer", token="a")) == hash(Authorization("bearer", token="a"))


TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)


@given(username=TEXT.filter(lambda name: ":" not in name), password=TEXT)
def test_basic_round_trip(username: str, password: str) -> None:
    credentials = Authorization("basic", username, password)
    assert parse_authorization(credentials.to_header()) == credentials


@given(
    scheme=st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True).filter(lambda s: s != "basic"),
    token=st.from_regex(r"[A-Za-z0-9\-._~+/]{1,20}=*", fullmatch=True),
)
def test_token_round_trip(scheme: str, token: str) -> None:
    credentials = Authorization(scheme, token=token)
    assert parse_authorization(credentials.to_header()) == credentials


@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True),
        st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
        min_size=1,
        max_size=5,
    )
)
def test_params_round_trip(params: dict[str, str]) -> None:
    credentials = Authorization("digest", params=params)
    assert parse_authorization(credentials.to_header()) == credentials


@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    parsed = parse_authorization(text)
    assert parsed is None or parsed.scheme == parsed.scheme.lower()
    basic = parse_authorization(
        "Basic " + base64.b64encode(text.encode("utf-8", "replace")).decode()
    )
    assert basic is None or basic.username is not None
