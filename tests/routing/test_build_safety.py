"""URL building: what build() writes stays on the host and matches back to its values.

A browser resolves the URL that ``build()`` returns against the page it is
on; whatever the values, it must not land on another host. And
``Request.path`` is percent-decoded text, so ``match()`` of the decoded URL
must give the values back.
"""

from __future__ import annotations

import math
import re
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sansio_http import NotFound
from sansio_http.routing import AnyConverter, Converter, Router, Rule

HOST = "app.example"

#: Text that leans on what browsers treat specially at the start of a URL.
TRICKY = st.text(
    alphabet=st.sampled_from("/\\\t\n\r .:@%?#é") | st.characters(codec="utf-8"), min_size=1
)


def host_after_resolving(url: str) -> str:
    r"""Return the host a browser reaches by following ``url`` on ``http://app.example/``.

    The WHATWG URL Standard, not RFC 3986 (``urllib.parse.urljoin`` follows
    the RFC and misses what browsers do): leading and trailing C0 controls
    and spaces are stripped, then every ASCII tab and newline is removed; in
    an ``http`` URL ``\`` is read as ``/``, so a reference that starts with
    two of ``/`` and ``\`` names a host, and one that starts with a scheme
    is absolute (any scheme is reported, as build() never writes one).
    """
    url = url.strip("".join(map(chr, range(0x21))))
    url = re.sub("[\t\n\r]", "", url)
    scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", url)
    if scheme is not None:
        return f"absolute URL with scheme {scheme[0]!r}"
    if len(url) >= 2 and url[0] in "/\\" and url[1] in "/\\":
        authority = re.split(r"[/\\?#]", url[2:], maxsplit=1)[0]
        return authority.rpartition("@")[2].rpartition(":")[0] or authority
    return HOST


class Raw(Converter):
    """A careless converter: its to_url writes the value's text as it is."""

    regex = r"(?s:.+)"
    spans_segments = True

    def to_url(self, value: Any) -> str:
        return str(value)


def test_the_resolver_sees_what_browsers_see() -> None:
    for url in ["//evil.example", "/\\evil.example", "\\\\evil.example", "\\/evil.example"]:
        assert host_after_resolving(url) == "evil.example"
    assert host_after_resolving("/\t/evil.example") == "evil.example"
    assert host_after_resolving(" //evil.example:8080/x") == "evil.example"
    assert host_after_resolving("/%2Fevil.example") == HOST
    assert host_after_resolving("/a//b") == HOST


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("\\evil.example", "/%5Cevil.example"),
        ("\t/evil.example", "/%09/evil.example"),
        ("a/b", "/a/b"),
    ],
)
def test_a_path_value_cannot_name_another_host(value: str, url: str) -> None:
    router = Router([Rule("/<path:p>", "files")])
    assert router.build("files", {"p": value}) == url
    assert host_after_resolving(url) == HOST
    assert router.match(unquote(url)) == (router.rules[0], {"p": value})


@pytest.mark.parametrize("value", ["/evil.example", "//evil.example", "/\\evil.example", "/x"])
def test_a_path_value_starting_with_a_slash_is_refused(value: str) -> None:
    # It would be written /%2F..., which Request.path decodes to //..., which
    # <path:p> never takes: a 404, or another rule's URL.
    router = Router([Rule("/<path:p>", "files")])
    with pytest.raises(ValueError, match="would not match back") as info:
        router.build("files", {"p": value})
    assert "'/<path:p>'" in str(info.value)
    assert f"p={value!r}" in str(info.value)


@pytest.mark.parametrize(
    ("rule", "values"),
    [
        ("/users/<name>", {"name": ""}),
        ("/users/<name>", {"name": "a/b"}),
        ("/users/<string(minlength=3):name>", {"name": "ab"}),
        ("/users/<string(maxlength=2):name>", {"name": "abc"}),
        ("/files/<path:p>", {"p": ""}),
        ("/files/<path:p>", {"p": "a\nb"}),
    ],
)
def test_a_value_its_placeholder_would_not_match_back_is_refused(
    rule: str, values: dict[str, str]
) -> None:
    router = Router([Rule(rule, "e")])
    with pytest.raises(ValueError, match="would not match back") as info:
        router.build("e", values)
    assert repr(rule) in str(info.value)
    [(name, value)] = values.items()
    assert f"{name}={value!r}" in str(info.value)


def test_a_converters_own_refusal_names_the_rule_and_the_value() -> None:
    router = Router([Rule("/n/<int:n>", "n")])
    with pytest.raises(ValueError, match="negative") as info:
        router.build("n", {"n": -1})
    assert "'/n/<int:n>'" in str(info.value)
    assert "n=-1" in str(info.value)


def matches_back(value: str) -> bool:
    """Whether a path placeholder takes ``value``: no leading slash, no line feed after."""
    return not value.startswith("/") and "\n" not in value[1:]


def test_a_path_placeholder_never_takes_an_absolute_path() -> None:
    # /%2Fetc reaches the router decoded, as //etc: a path value never starts
    # with a slash, so os.path.join(base, value) cannot leave base that way.
    router = Router([Rule("/files/<path:p>", "files")])
    with pytest.raises(NotFound):
        router.match("/files//etc/passwd")
    with pytest.raises(NotFound):
        router.match("/files/a\nb")
    assert router.match("/files/etc/passwd")[1] == {"p": "etc/passwd"}


@pytest.mark.parametrize(
    ("root_path", "url"),
    [
        ("//", "/x"),
        ("//evil.example", "/%2Fevil.example/x"),
        ("\\\\evil.example", "/%5C%5Cevil.example/x"),
        ("/caf\u00e9 50%", "/caf%C3%A9%2050%25/x"),
        ("app", "/app/x"),
    ],
)
def test_the_root_path_is_encoded_and_stays_on_the_host(root_path: str, url: str) -> None:
    router = Router([Rule("/<path:p>", "files")])
    assert router.build("files", {"p": "x"}, root_path=root_path) == url
    assert host_after_resolving(url) == HOST


def test_a_rule_that_starts_with_two_slashes_builds_a_local_url() -> None:
    router = Router([Rule("//x", "x")])
    assert router.build("x") == "/%2Fx"
    assert router.match(unquote("/%2Fx"))[0].endpoint == "x"


@pytest.mark.parametrize("written", ["/evil.example", "\\evil.example", "\t/evil.example"])
def test_a_converter_writing_raw_text_cannot_leave_the_host(written: str) -> None:
    router = Router([Rule("/<raw:r>", "raw")], converters={"raw": Raw})
    url = router.build("raw", {"r": written})
    assert host_after_resolving(url) == HOST
    assert "\\" not in url
    assert "\t" not in url


def test_an_absolute_url_is_built_only_from_base_url() -> None:
    router = Router([Rule("/<path:p>", "files")])
    url = router.build("files", {"p": "evil.example"}, base_url="https://app.example/")
    assert url == "https://app.example/evil.example"


@given(value=TRICKY, root_path=st.sampled_from(["", "/", "/app", "//", "\\"]))
@example(value="/evil.example", root_path="")
@example(value="\\evil.example", root_path="")
@example(value="\n/evil.example", root_path="/")
@example(value="{}", root_path="")
def test_built_urls_stay_on_the_host(value: str, root_path: str) -> None:
    # Braces would spell Starlette's placeholder, which a rule refuses.
    kept = "".join(c for c in value if c not in "/,){}")
    items = kept.strip() or "x"
    router = Router(
        [
            Rule("/<path:p>", "path"),
            Rule("/<s>", "string"),
            Rule(f"/<any({items}):a>", "any"),
            Rule("/<raw:r>", "raw"),
        ],
        converters={"raw": Raw},
    )
    converter = router.rules[2].converters["a"]
    assert isinstance(converter, AnyConverter)
    [item] = converter.items
    for endpoint, values in [
        ("path", {"p": value}),
        ("string", {"s": value}),
        ("any", {"a": item}),
        ("raw", {"r": value}),
    ]:
        try:
            url = router.build(endpoint, values, root_path=root_path)
        except ValueError:
            # Refused: its placeholder would not match it back.
            assert endpoint in ("path", "string"), (endpoint, values)
            continue
        assert host_after_resolving(url) == HOST, (endpoint, values, url)


@given(value=TRICKY)
def test_built_urls_match_back_to_their_values(value: str) -> None:
    router = Router([Rule("/<path:p>", "path"), Rule("/s/<s>", "string")])
    # Refused exactly where matching would not give the value back.
    if matches_back(value) and value:
        url = router.build("path", {"p": value})
        assert router.match(unquote(url)) == (router.rules[0], {"p": value})
    else:
        with pytest.raises(ValueError, match="would not match back"):
            router.build("path", {"p": value})
    if "/" not in value and value:
        url = router.build("string", {"s": value})
        assert router.match(unquote(url)) == (router.rules[1], {"s": value})
    else:
        # A slash in a value of a placeholder without slashes cannot come
        # back: Request.path is decoded, and %2F is a slash there.
        with pytest.raises(ValueError, match="would not match back"):
            router.build("string", {"s": value})


# -- numbers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1e-05, "0.00001"),
        (1.5e-07, "0.00000015"),
        (1e16, "10000000000000000.0"),
        (0.25, "0.25"),
        (3.0, "3.0"),
        (0.0, "0.0"),
        (-0.0, "0.0"),
    ],
)
def test_a_float_is_built_without_an_exponent(number: float, text: str) -> None:
    router = Router([Rule("/r/<float:x>", "ratio")])
    assert router.build("ratio", {"x": number}) == f"/r/{text}"
    assert router.match(f"/r/{text}") == (router.rules[0], {"x": number})


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf, -0.5])
def test_a_float_that_cannot_match_back_is_refused(number: float) -> None:
    router = Router([Rule("/r/<float:x>", "ratio")])
    with pytest.raises(ValueError, match="finite non-negative"):
        router.build("ratio", {"x": number})


@given(st.floats(min_value=0, allow_nan=False, allow_infinity=False))
@example(5e-324)
@example(1.7976931348623157e308)
def test_every_finite_float_matches_back(number: float) -> None:
    router = Router([Rule("/r/<float:x>", "ratio")])
    url = router.build("ratio", {"x": number})
    assert "e" not in url
    assert router.match(url)[1] == {"x": number}


@pytest.mark.parametrize(
    ("rule", "number", "message"),
    [
        ("/<int:n>", -1, "negative"),
        ("/<int(min=2):n>", 1, "out of the bounds"),
        ("/<int(max=9):n>", 10, "out of the bounds"),
    ],
)
def test_an_integer_that_cannot_match_back_is_refused(rule: str, number: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Router([Rule(rule, "n")]).build("n", {"n": number})


def test_a_signed_integer_builds_its_sign() -> None:
    router = Router([Rule("/<int(signed=true):n>", "n")])
    assert router.build("n", {"n": -5}) == "/-5"
    assert router.match("/-5")[1] == {"n": -5}


# -- literal text ------------------------------------------------------------


def test_literal_text_is_encoded_like_values() -> None:
    router = Router([Rule("/caf\u00e9/<n>", "cafe")])
    assert router.build("cafe", {"n": "\u00e9"}) == "/caf%C3%A9/%C3%A9"
    assert router.match(unquote("/caf%C3%A9/%C3%A9")) == (router.rules[0], {"n": "\u00e9"})


@pytest.mark.parametrize(
    ("rule", "url"),
    [
        ("/100%/a b", "/100%25/a%20b"),
        ("/x?y#z", "/x%3Fy%23z"),
        ("/back\\slash", "/back%5Cslash"),
        # RFC 3986 §3.3: sub-delims, ":" and "@" belong in a path as they are.
        ("/a:b@c;d=e,f!$&'()*+", "/a:b@c;d=e,f!$&'()*+"),
        ("/Talk:<path:name>", "/Talk:Foo/Bar"),
    ],
)
def test_literal_text_is_encoded_and_matches_back(rule: str, url: str) -> None:
    router = Router([Rule(rule, "e")])
    values = {"name": "Foo/Bar"} if "<" in rule else {}
    assert router.build("e", values) == url
    assert router.match(unquote(url)) == (router.rules[0], values)


def test_values_keep_what_a_path_allows_and_encode_the_rest() -> None:
    router = Router([Rule("/<s>/<path:p>", "e")])
    assert router.build("e", {"s": "a:b@c;d=e", "p": "x y/1%/é"}) == (
        "/a:b@c;d=e/x%20y/1%25/%C3%A9"
    )
