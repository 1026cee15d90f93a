"""Request-target forms (RFC 9112 §3.2) and Host values (RFC 9110 §7.2)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sansio_http.messages._target import InvalidTarget, Target, parse_host, parse_target

UNRESERVED = b"ABCXYZabcxyz0189-._~"
SUB_DELIMS = b"!$&'()*+,;="
HEX = b"0123456789abcdefABCDEF"


def chars(alphabet: bytes) -> st.SearchStrategy[bytes]:
    return st.sampled_from([bytes([c]) for c in alphabet])


pct_encoded = st.tuples(chars(HEX), chars(HEX)).map(lambda p: b"%" + p[0] + p[1])
pchar = st.one_of(chars(UNRESERVED + SUB_DELIMS + b":@"), pct_encoded)
segment = st.lists(pchar, max_size=8).map(b"".join)
# RFC 3986 §3.3: absolute-path = 1*( "/" segment ).
absolute_path = st.lists(segment, min_size=1, max_size=5).map(
    lambda segments: b"".join(b"/" + s for s in segments)
)
query = st.lists(st.one_of(pchar, st.sampled_from([b"/", b"?"])), max_size=10).map(b"".join)
reg_name = st.lists(st.one_of(chars(UNRESERVED + SUB_DELIMS), pct_encoded), max_size=12).map(
    b"".join
)
ipv4 = st.ip_addresses(v=4).map(lambda a: str(a).encode())
ipv6 = st.ip_addresses(v=6).map(lambda a: b"[" + str(a).encode() + b"]")
ip_future = st.tuples(
    st.lists(chars(HEX), min_size=1, max_size=3).map(b"".join),
    st.lists(chars(UNRESERVED + SUB_DELIMS + b":"), min_size=1, max_size=8).map(b"".join),
).map(lambda p: b"[v" + p[0] + b"." + p[1] + b"]")
host = st.one_of(reg_name, ipv4, ipv6, ip_future)
port = st.integers(min_value=0, max_value=65535).map(lambda n: str(n).encode())
host_value = st.tuples(host, st.one_of(st.none(), port, st.just(b""))).map(
    lambda p: p[0] if p[1] is None else p[0] + b":" + p[1]
)
methods = st.sampled_from([b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH"])


@given(value=host_value)
@example(value=b"")
@example(value=b"[::1]:8000")
@example(value=b"localhost:")
def test_every_valid_host_value_passes(value: bytes) -> None:
    parsed_host, parsed_port = parse_host(value)
    assert parsed_host + (b"" if parsed_port is None else b":" + parsed_port) == value


@given(data=st.binary(max_size=60))
@example(data=b"[fe80::1%eth0]")
@example(data=b"[::1")
@example(data=b"[\xff]")
def test_arbitrary_bytes_as_a_host_only_ever_fail_as_invalid(data: bytes) -> None:
    try:
        parse_host(data)
    except InvalidTarget:
        pass


@pytest.mark.parametrize(
    "value",
    [
        b"exa mple",
        b"x/y",
        b"user@x",
        b"x:80:80",
        b"x:http",
        b"x:65536",
        b"x:000080000",
        b"[::1",
        b"[zz]",
        b"[fe80::1%eth0]",
        b"[fe80::1%25eth0]",
        b"::1",
        b"x%zz",
        b"caf\xc3\xa9",
        b"x\\y",
    ],
)
def test_invalid_host_values_are_refused(value: bytes) -> None:
    with pytest.raises(InvalidTarget):
        parse_host(value)


@given(method=methods, path=absolute_path, query=st.one_of(st.none(), query))
def test_every_origin_form_passes(method: bytes, path: bytes, query: bytes | None) -> None:
    target = path if query is None else path + b"?" + query
    assert parse_target(method, target) == Target(path, query or b"", None)


@given(
    method=methods,
    scheme=st.sampled_from([b"http", b"https", b"HTTP"]),
    authority=host_value,
    path=st.one_of(st.just(b""), absolute_path),
    query=st.one_of(st.none(), query),
)
def test_every_absolute_form_passes(
    method: bytes, scheme: bytes, authority: bytes, path: bytes, query: bytes | None
) -> None:
    host, _ = parse_host(authority)
    if not host:
        # RFC 9110 §4.2.1: an http URI needs a host.
        authority = b"example.com" + authority
    target = scheme + b"://" + authority + path
    if query is not None:
        target += b"?" + query
    assert parse_target(method, target) == Target(path or b"/", query or b"", authority)


@given(host=st.one_of(reg_name.filter(bool), ipv4, ipv6), port=port)
def test_every_authority_form_passes_for_connect(host: bytes, port: bytes) -> None:
    authority = host + b":" + port
    assert parse_target(b"CONNECT", authority) == Target(b"", b"", authority)


@given(method=st.binary(max_size=8), data=st.binary(max_size=80))
@example(method=b"GET", data=b"http://[::1/")
@example(method=b"CONNECT", data=b"[1:2]:80")
def test_arbitrary_targets_only_ever_fail_as_invalid(method: bytes, data: bytes) -> None:
    try:
        parsed = parse_target(method, data)
    except InvalidTarget:
        return
    # Whatever passes is one of the four forms.
    assert (
        parsed.path.startswith(b"/")
        or (parsed.path == b"*" and method == b"OPTIONS")
        or (method == b"CONNECT" and parsed.authority == data)
    )


@pytest.mark.parametrize(
    ("method", "target"),
    [
        (b"GET", b"url"),
        (b"GET", b"example.com:80"),
        (b"GET", b"*"),
        (b"POST", b"*"),
        (b"CONNECT", b"/path"),
        (b"CONNECT", b"example.com"),
        (b"CONNECT", b":443"),
        (b"GET", b"/a#fragment"),
        (b"GET", b"/%zz"),
        (b"GET", b"/%4"),
        (b"GET", b'/a"b'),
        (b"GET", b"/a<b>"),
        (b"GET", b"/a\\b"),
        (b"GET", b'/?a="b"'),
        (b"GET", b"ftp://example.com/"),
        (b"GET", b"http:/p"),
        (b"GET", b"http:///p"),
        (b"GET", b"http://user:pass@example.com/"),
        (b"GET", b"http://exa mple.com/"),
        (b"GET", b"http://example.com:99999/"),
        (b"GET", b"mailto:a@example.com"),
    ],
)
def test_targets_of_no_form_are_refused(method: bytes, target: bytes) -> None:
    with pytest.raises(InvalidTarget):
        parse_target(method, target)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (b"/", Target(b"/", b"", None)),
        (b"/a/b?c=d&e", Target(b"/a/b", b"c=d&e", None)),
        (b"/p?", Target(b"/p", b"", None)),
        # What browsers send unencoded is accepted.
        (b"/a[1]|^{x}`?q={}|^\\`[]&r=100%", Target(b"/a[1]|^{x}`", b"q={}|^\\`[]&r=100%", None)),
        (b"http://example.com", Target(b"/", b"", b"example.com")),
        (b"HTTP://h:8080/p?q", Target(b"/p", b"q", b"h:8080")),
        (b"http://[::1]/x", Target(b"/x", b"", b"[::1]")),
    ],
)
def test_forms_are_split(target: bytes, expected: Target) -> None:
    assert parse_target(b"GET", target) == expected


def test_asterisk_is_for_options() -> None:
    assert parse_target(b"OPTIONS", b"*") == Target(b"*", b"", None)


def test_ipv6_literals_are_checked_by_the_address_grammar() -> None:
    assert parse_host(b"[::ffff:192.0.2.1]:1") == (b"[::ffff:192.0.2.1]", b"1")
    with pytest.raises(InvalidTarget):
        parse_host(b"[1:2:3:4:5:6:7:8:9]")
