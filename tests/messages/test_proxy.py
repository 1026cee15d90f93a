"""Tests for ProxyPolicy: trusted hop counts, trusted peers, spoofing, bad values."""

from __future__ import annotations

import functools
from ipaddress import ip_address, ip_network
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import ProxyPolicy, Request

Pairs = list[tuple[str, str]]


def make(
    headers: Pairs,
    *,
    scheme: str = "http",
    remote_addr: str | None = "10.0.0.1",
    root_path: str = "",
    server: tuple[str, int | None] | None = ("10.0.0.9", 8000),
) -> Request:
    return Request("GET", "/p", b"q=1", headers, scheme, remote_addr, root_path, server)


def facts(request: Request) -> tuple[str | None, str, str, str]:
    return request.remote_addr, request.scheme, request.host, request.root_path


ORIGINAL = ("10.0.0.1", "http", "internal:8000", "")
ALL_X: dict[str, Any] = {"x_for": 1, "x_proto": 1, "x_host": 1, "x_port": 1, "x_prefix": 1}


def test_nothing_is_trusted_by_default() -> None:
    request = make(
        [
            ("host", "internal:8000"),
            ("forwarded", "for=192.0.2.1;proto=https;host=example.com"),
            ("x-forwarded-for", "192.0.2.1"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "example.com"),
            ("x-forwarded-port", "443"),
            ("x-forwarded-prefix", "/app"),
        ]
    )
    assert ProxyPolicy().apply(request) is request
    assert facts(request) == ORIGINAL


def test_one_proxy_with_every_x_forwarded_header() -> None:
    request = make(
        [
            ("host", "internal:8000"),
            ("x-forwarded-for", "192.0.2.1"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "Example.com"),
            ("x-forwarded-port", "443"),
            ("x-forwarded-prefix", "/app/"),
        ]
    )
    result = ProxyPolicy(**ALL_X).apply(request)
    assert facts(result) == ("192.0.2.1", "https", "example.com", "/app")
    assert result.url == "https://example.com/app/p?q=1"
    assert result.headers.get("x-forwarded-for") == "192.0.2.1"
    # The original request is untouched.
    assert facts(request) == ORIGINAL


@pytest.mark.parametrize(
    ("x_for", "value", "expected"),
    [
        (1, "192.0.2.1", "192.0.2.1"),
        (1, "203.0.113.9, 192.0.2.1", "192.0.2.1"),
        (2, "203.0.113.9, 192.0.2.1", "203.0.113.9"),
        (2, "spoofed, 203.0.113.9, 192.0.2.1", "203.0.113.9"),
        (1, " 192.0.2.1 ", "192.0.2.1"),
        (1, "192.0.2.1:4711", "192.0.2.1"),
        (1, "2001:DB8::1", "2001:db8::1"),
        (1, "[2001:db8::1]:4711", "2001:db8::1"),
        (1, "[2001:db8::1]", "2001:db8::1"),
        (3, "203.0.113.9, 192.0.2.1", "10.0.0.1"),
        (1, "not-an-address", "10.0.0.1"),
        (1, "192.0.2.1, ", "10.0.0.1"),
        (1, "192.0.2.1:http", "10.0.0.1"),
        (1, "[2001:db8::1]x", "10.0.0.1"),
        (1, "[192.0.2.1]", "10.0.0.1"),
        (1, "[2001:db8::1", "10.0.0.1"),
        (1, "1.2.3.4:5:6", "10.0.0.1"),
        (1, "host:80", "10.0.0.1"),
        (1, "unknown", "10.0.0.1"),
    ],
)
def test_x_forwarded_for(x_for: int, value: str, expected: str) -> None:
    request = make([("x-forwarded-for", value)])
    assert ProxyPolicy(x_for=x_for).apply(request).remote_addr == expected


def test_x_forwarded_for_over_several_fields() -> None:
    request = make([("x-forwarded-for", "203.0.113.9"), ("x-forwarded-for", "192.0.2.1")])
    assert ProxyPolicy(x_for=2).apply(request).remote_addr == "203.0.113.9"


@pytest.mark.parametrize(
    ("scheme", "value", "expected"),
    [
        ("http", "https", "https"),
        ("http", "HTTPS", "https"),
        ("https", "http", "http"),
        ("http", "http, https", "https"),
        ("ws", "https", "wss"),
        ("wss", "http", "ws"),
        ("http", "wss", "https"),
        ("ws", "wss", "wss"),
        ("http", "ftp", "http"),
        ("http", "", "http"),
        ("http", "javascript", "http"),
    ],
)
def test_x_forwarded_proto(scheme: str, value: str, expected: str) -> None:
    request = make([("x-forwarded-proto", value)], scheme=scheme)
    assert ProxyPolicy(x_proto=1).apply(request).scheme == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("example.com", "example.com"),
        ("example.com:8443", "example.com:8443"),
        ("spoofed.com, example.com", "example.com"),
        ("[2001:db8::1]", "[2001:db8::1]"),
        ("bad host", "internal:8000"),
        ("example.com\r\nx: y", "internal:8000"),
        ("example.com/evil", "internal:8000"),
        ("", "internal:8000"),
    ],
)
def test_x_forwarded_host(value: str, expected: str) -> None:
    request = make([("host", "internal:8000"), ("x-forwarded-host", value)])
    assert ProxyPolicy(x_host=1).apply(request).host == expected


def test_x_forwarded_host_replaces_every_host_field() -> None:
    request = make([("host", "a"), ("host", "b"), ("x-forwarded-host", "example.com")])
    result = ProxyPolicy(x_host=1).apply(request)
    assert result.headers.getlist("host") == ["example.com"]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([("host", "internal:8000"), ("x-forwarded-port", "8443")], "internal:8443"),
        ([("host", "internal"), ("x-forwarded-port", "80")], "internal"),
        ([("host", "[::1]:8000"), ("x-forwarded-port", "9000")], "[::1]:9000"),
        ([("x-forwarded-port", "9000")], "10.0.0.9:9000"),
        (
            [("host", "i"), ("x-forwarded-host", "example.com:1"), ("x-forwarded-port", "2")],
            "example.com:2",
        ),
        ([("host", "internal:8000"), ("x-forwarded-port", "0")], "internal:8000"),
        ([("host", "internal:8000"), ("x-forwarded-port", "65536")], "internal:8000"),
        ([("host", "internal:8000"), ("x-forwarded-port", "https")], "internal:8000"),
        ([("host", "internal:8000"), ("x-forwarded-port", "-1")], "internal:8000"),
        ([("host", "internal:8000"), ("x-forwarded-port", "0000080")], "internal:8000"),
    ],
)
def test_x_forwarded_port(headers: Pairs, expected: str) -> None:
    policy = ProxyPolicy(x_host=1, x_port=1)
    assert policy.apply(make(headers)).host == expected


def test_x_forwarded_port_needs_a_host() -> None:
    request = make([("x-forwarded-port", "8443")], server=None)
    assert ProxyPolicy(x_port=1).apply(request) is request


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/app", "/app"),
        ("/app/", "/app"),
        ("/", ""),
        ("/r%C3%B4le", "/r\u00f4le"),
        ("/a%2Fb", "/a/b"),
        ("/spoofed, /app", "/app"),
        ("app", "/mount"),
        ("//evil.com", "/mount"),
        ("/%2Fevil.com", "/mount"),
        ("/a?b", "/mount"),
        ("/a#b", "/mount"),
        ("/a%0d%0aSet-Cookie:x", "/mount"),
        ("/a\tb", "/mount"),
    ],
)
def test_x_forwarded_prefix(value: str, expected: str) -> None:
    request = make([("x-forwarded-prefix", value)], root_path="/mount")
    assert ProxyPolicy(x_prefix=1).apply(request).root_path == expected


@pytest.mark.parametrize(
    ("forwarded", "value", "expected"),
    [
        (1, "for=192.0.2.1", ("192.0.2.1", "http", "internal:8000")),
        (1, 'for="[2001:db8::1]:4711";proto=https;host=example.com',
         ("2001:db8::1", "https", "example.com")),
        (1, "for=203.0.113.9, for=192.0.2.1;proto=https", ("192.0.2.1", "https", "internal:8000")),
        (2, "for=203.0.113.9;host=example.com, for=192.0.2.1",
         ("203.0.113.9", "http", "example.com")),
        (2, "for=spoofed;host=evil.com, for=203.0.113.9, for=192.0.2.1",
         ("203.0.113.9", "http", "internal:8000")),
        (3, "for=203.0.113.9, for=192.0.2.1", ORIGINAL[:3]),
        (1, "for=unknown", (None, "http", "internal:8000")),
        (1, 'for="UNKNOWN:_port"', (None, "http", "internal:8000")),
        (1, 'for="unknown:bad!"', ORIGINAL[:3]),
        (1, "for=_hidden", (None, "http", "internal:8000")),
        (1, "for=_", ORIGINAL[:3]),
        (1, 'for="_bad!"', ORIGINAL[:3]),
        (1, "for=not-an-address", ORIGINAL[:3]),
        (1, "proto=gopher;host=bad\\ host", ORIGINAL[:3]),
        (1, "by=10.0.0.1", ORIGINAL[:3]),
        (1, "for=192.0.2.1;;;garbage", ORIGINAL[:3]),
        (1, "", ORIGINAL[:3]),
    ],
)  # fmt: skip
def test_forwarded(forwarded: int, value: str, expected: tuple[str | None, str, str]) -> None:
    request = make([("host", "internal:8000"), ("forwarded", value)])
    assert facts(ProxyPolicy(forwarded=forwarded).apply(request))[:3] == expected


def test_forwarded_wins_over_x_forwarded_headers() -> None:
    request = make(
        [
            ("host", "internal:8000"),
            ("forwarded", "for=192.0.2.1;proto=https;host=example.com"),
            ("x-forwarded-for", "192.0.2.2"),
            ("x-forwarded-proto", "http"),
            ("x-forwarded-host", "example.org"),
            ("x-forwarded-prefix", "/app"),
        ]
    )
    result = ProxyPolicy(forwarded=1, **ALL_X).apply(request)
    assert facts(result) == ("192.0.2.1", "https", "example.com", "/app")


def test_missing_headers_leave_the_request_alone() -> None:
    request = make([("host", "internal:8000")])
    assert ProxyPolicy(forwarded=1, **ALL_X).apply(request) is request


# -- trusted proxies ----------------------------------------------------------


@pytest.mark.parametrize(
    ("trusted", "remote_addr", "applies"),
    [
        (["10.0.0.1"], "10.0.0.1", True),
        (["10.0.0.2"], "10.0.0.1", False),
        ("10.0.0.1", "10.0.0.1", True),
        ("10.0.0.0/8", "10.200.0.1", True),
        (["10.0.0.0/8"], "192.168.0.1", False),
        ([ip_network("10.0.0.0/8")], "10.0.0.1", True),
        (ip_network("10.0.0.0/8"), "10.0.0.1", True),
        (ip_address("10.0.0.1"), "10.0.0.1", True),
        (["10.0.0.1/8"], "10.0.0.3", True),
        (["::1"], "::1", True),
        (["fd00::/8"], "fd12::1", True),
        (["10.0.0.0/8"], "::ffff:10.0.0.1", True),
        (["::ffff:10.0.0.0/104"], "10.0.0.1", False),
        (["10.0.0.1"], None, False),
        (["10.0.0.1"], "", False),
        (["10.0.0.1"], "unix:/run/app.sock", False),
        ([], "10.0.0.1", False),
    ],
)
def test_trusted_proxies(trusted: Any, remote_addr: str | None, applies: bool) -> None:
    request = make([("x-forwarded-for", "192.0.2.1")], remote_addr=remote_addr)
    policy = ProxyPolicy(x_for=1, trusted_proxies=trusted)
    assert policy.is_trusted_peer(remote_addr) is applies
    assert (policy.apply(request).remote_addr == "192.0.2.1") is applies


@pytest.mark.parametrize("trusted", [["proxy.local"], ["10.0.0.0/33"], ["10.0.0.1", "nope"]])
def test_trusted_proxies_must_be_addresses(trusted: list[str]) -> None:
    with pytest.raises(ValueError, match="does not appear to be"):
        ProxyPolicy(trusted_proxies=trusted)


@pytest.mark.parametrize("name", ["forwarded", "x_for", "x_proto", "x_host", "x_port", "x_prefix"])
def test_counts_must_be_non_negative_ints(name: str) -> None:
    for value, error in [(-1, ValueError), ("1", TypeError), (True, TypeError)]:
        kwargs: dict[str, Any] = {name: value}
        with pytest.raises(error, match=name):
            ProxyPolicy(**kwargs)


def test_repr() -> None:
    assert repr(ProxyPolicy()) == "ProxyPolicy()"
    assert repr(ProxyPolicy(x_for=1, x_proto=2)) == "ProxyPolicy(x_for=1, x_proto=2)"
    assert repr(ProxyPolicy(forwarded=1, trusted_proxies="10.0.0.0/8")) == (
        "ProxyPolicy(forwarded=1, trusted_proxies=(IPv4Network('10.0.0.0/8'),))"
    )


def test_apply_keeps_the_subclass_and_its_state() -> None:
    class BodyRequest(Request):
        def __init__(self, body: bytes) -> None:
            super().__init__(
                "POST", "/", b"", [("x-forwarded-for", "192.0.2.1")], "http", "::1", ""
            )
            self.body = body

        @functools.cached_property
        def size(self) -> int:
            return len(self.body)

    request = BodyRequest(b"abc")
    result = ProxyPolicy(x_for=1).apply(request)
    assert isinstance(result, BodyRequest)
    assert result.body == b"abc"
    assert result.remote_addr == "192.0.2.1"
    assert request.remote_addr == "::1"


# -- arbitrary input ----------------------------------------------------------

PROXY_HEADERS = [
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-proto",
    "x-forwarded-host",
    "x-forwarded-port",
    "x-forwarded-prefix",
]
header_text = st.text(st.characters(codec="latin-1", exclude_characters=","), max_size=30)
counts = st.integers(min_value=0, max_value=3)


def policy_for(hops: list[int]) -> ProxyPolicy:
    return ProxyPolicy(
        forwarded=hops[0],
        x_for=hops[1],
        x_proto=hops[2],
        x_host=hops[3],
        x_port=hops[4],
        x_prefix=hops[5],
    )


@given(
    hops=st.lists(counts, min_size=6, max_size=6),
    entries=st.lists(
        st.tuples(st.sampled_from(PROXY_HEADERS), st.lists(header_text, max_size=4)),
        max_size=8,
    ),
    scheme=st.sampled_from(["http", "https", "ws", "wss"]),
)
def test_arbitrary_proxy_headers_never_raise(
    hops: list[int], entries: list[tuple[str, list[str]]], scheme: str
) -> None:
    headers = [("host", "internal")] + [(name, ", ".join(items)) for name, items in entries]
    request = make(headers, scheme=scheme)
    result = policy_for(hops).apply(request)
    assert result.scheme in {"http", "https", "ws", "wss"}
    assert result.scheme.startswith("ws") == scheme.startswith("ws")
    assert not any(char in result.host for char in " \t\r\n")
    assert not any(char in result.root_path for char in "?#\r\n")
    assert not result.root_path.startswith("//")
    if result.remote_addr is not None:
        ip_address(result.remote_addr)


@given(
    hops=st.lists(counts, min_size=6, max_size=6),
    trusted=st.lists(st.lists(header_text, min_size=5, max_size=5), min_size=3, max_size=3),
    spoofed=st.lists(st.lists(header_text, min_size=5, max_size=5), min_size=1, max_size=3),
)
def test_spoofed_entries_on_the_left_change_nothing(
    hops: list[int], trusted: list[list[str]], spoofed: list[list[str]]
) -> None:
    # Each proxy appends one entry per header; a client may prepend any number.
    names = PROXY_HEADERS[1:]
    honest = [
        ("host", "internal"),
        *((name, ", ".join(hop[i] for hop in trusted)) for i, name in enumerate(names)),
    ]
    forged = [
        ("host", "internal"),
        *(
            (name, ", ".join([*(fake[i] for fake in spoofed), *(hop[i] for hop in trusted)]))
            for i, name in enumerate(names)
        ),
    ]
    policy = policy_for([0, *hops[1:]])
    assert facts(policy.apply(make(forged))) == facts(policy.apply(make(honest)))


@given(
    hops=st.integers(min_value=1, max_value=3),
    trusted=st.lists(st.ip_addresses().map(str), min_size=3, max_size=3),
    spoofed=st.lists(st.ip_addresses().map(str), min_size=1, max_size=3),
)
def test_spoofed_forwarded_elements_change_nothing(
    hops: int, trusted: list[str], spoofed: list[str]
) -> None:
    def element(address: str) -> str:
        return f'for="[{address}]"' if ":" in address else f"for={address}"

    honest = ", ".join(element(address) for address in trusted)
    forged = ", ".join([*(element(address) for address in spoofed), "for=_x", honest])
    policy = ProxyPolicy(forwarded=hops)
    expected = str(ip_address(trusted[-hops]))
    assert policy.apply(make([("forwarded", forged)])).remote_addr == expected
    assert policy.apply(make([("forwarded", honest)])).remote_addr == expected
