"""Host rules in the Router: matching by host and path, the order, the refusals and build()."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_http.messages._errors import MethodNotAllowed, NotFound
from sansio_http.routing import AllowedMethods, Converter, RequestRedirect, Router, Rule

U = "12345678-1234-5678-1234-567812345678"


def hosted() -> Router:
    return Router(
        [
            Rule("/", "home"),
            Rule("/shared", "shared", methods=["GET"]),
            Rule("/", "tenant_home", host="<tenant>.example.com"),
            Rule("/", "api_home", host="api.example.com"),
            Rule("/only", "only", host="api.example.com"),
            Rule("/items/<int:id>", "item", methods=["GET", "POST"], host="<tenant>.example.com"),
            Rule("/shared", "tenant_shared", methods=["DELETE"], host="<tenant>.example.com"),
            Rule("/docs/", "docs", host="<tenant>.example.com"),
        ]
    )


def endpoint(router: Router, path: str, host: str | None, method: str = "GET") -> str:
    rule, _ = router.match(path, method, host=host)
    return rule.endpoint


# -- matching ---------------------------------------------------------------------------


def test_an_exact_host_takes_its_rules_before_the_placeholder_host_and_the_rest() -> None:
    router = hosted()
    assert router.match("/", host="api.example.com")[0].endpoint == "api_home"
    assert router.match("/", host="acme.example.com") == (
        router.rules[2],
        {"tenant": "acme"},
    )
    assert endpoint(router, "/", "other.org") == "home"


def test_a_rule_without_a_host_matches_any_host_and_none() -> None:
    router = hosted()
    for host in ("other.org", "acme.example.com", "localhost:8000", None):
        assert endpoint(router, "/shared", host) in {"shared"}
    assert endpoint(router, "/", None) == "home"


def test_without_a_host_only_the_rules_without_one_are_candidates() -> None:
    router = hosted()
    with pytest.raises(NotFound):
        router.match("/only")
    with pytest.raises(NotFound):
        router.match("/items/3")


def test_the_host_is_compared_without_its_port_case_or_trailing_dot() -> None:
    router = hosted()
    for host in (
        "api.example.com:8443",
        "API.Example.COM",
        "api.example.com.",
        "api.example.com.:80",
    ):
        assert endpoint(router, "/only", host) == "only", host


def test_host_values_bind_beside_the_path_values() -> None:
    router = hosted()
    rule, values = router.match("/items/7", "POST", host="acme.example.com")
    assert (rule.endpoint, values) == ("item", {"tenant": "acme", "id": 7})


def test_a_label_may_hold_several_typed_placeholders() -> None:
    router = Router([Rule("/<int:page>", "page", host="<region>-<int:shard>.example.com")])
    assert router.match("/3", host="eu-west-12.example.com")[1] == {
        "page": 3,
        "region": "eu-west",
        "shard": 12,
    }
    with pytest.raises(NotFound):
        router.match("/3", host="eu-west-x.example.com")


def test_converters_in_a_host_check_their_values() -> None:
    router = Router(
        [
            Rule("/", "numbered", host="<int(max=9):n>.example.com"),
            Rule("/", "listed", host="<any(eu,us):zone>.example.com"),
        ]
    )
    assert router.match("/", host="7.example.com")[1] == {"n": 7}
    assert router.match("/", host="us.example.com")[1] == {"zone": "us"}
    for host in ("10.example.com", "asia.example.com"):
        with pytest.raises(NotFound):
            router.match("/", host=host)


def test_uuid_and_custom_converters_fill_a_label() -> None:
    class Shard(Converter):
        regex = r"s[0-9]+"

        def to_python(self, text: str) -> int:
            return int(text[1:])

        def to_url(self, value: Any) -> str:
            return f"s{value}"

    router = Router(
        [
            Rule("/", "by_id", host="<uuid:id>.example.com"),
            Rule("/", "sharded", host="<shard:n>.example.org"),
        ],
        converters={"shard": Shard},
    )
    assert router.match("/", host=f"{U}.example.com")[1] == {"id": uuid.UUID(U)}
    assert router.match("/", host="s12.example.org")[1] == {"n": 12}
    assert router.build("sharded", {"n": 3}, origin="http://x") == "http://s3.example.org/"


def test_a_placeholder_never_takes_a_dot() -> None:
    router = hosted()
    with pytest.raises(NotFound):
        router.match("/items/1", host="a.b.example.com")
    assert endpoint(router, "/", "a.b.example.com") == "home"  # the rule without a host


@pytest.mark.parametrize(
    "host",
    [
        "a%2eb.example.com",
        "a'b.example.com",
        "a(b).example.com",
        "a!b.example.com",
        "[::1]",
        "",
        "x" * 64 + ".example.com",
        ("a." * 130) + "example.com",
    ],
)
def test_a_host_that_is_not_plain_labels_reaches_no_host_rule(host: str) -> None:
    router = hosted()
    with pytest.raises(NotFound):
        router.match("/items/1", host=host)
    assert endpoint(router, "/", host) == "home"


def test_a_non_ascii_literal_host_matches_its_ascii_form() -> None:
    router = Router([Rule("/", "books", host="B\u00fccher.example")])
    assert endpoint(router, "/", "xn--bcher-kva.example") == "books"


def test_the_pattern_with_more_literal_labels_comes_first_then_the_first_added() -> None:
    router = Router(
        [
            Rule("/", "any_com", host="<a>.<b>.com"),
            Rule("/", "example", host="<a>.example.com"),
            Rule("/", "www_any", host="www.<b>.com"),
        ]
    )
    assert endpoint(router, "/", "x.example.com") == "example"
    assert endpoint(router, "/", "www.other.com") == "www_any"
    assert endpoint(router, "/", "www.example.com") == "example"  # added before www_any
    assert endpoint(router, "/", "x.y.com") == "any_com"


def test_a_path_the_first_host_pattern_lacks_falls_through_to_the_next() -> None:
    router = hosted()
    # api.example.com fits <tenant>.example.com too, whose rules come next.
    assert router.match("/items/2", host="api.example.com")[1] == {"tenant": "api", "id": 2}


def test_a_path_on_another_host_only_is_a_404_not_a_405() -> None:
    router = hosted()
    with pytest.raises(NotFound):
        router.match("/only", "POST", host="acme.example.com")
    with pytest.raises(NotFound):
        router.match("/items/1", "PUT", host="other.org")


def test_the_allowed_methods_are_those_of_the_host_rules_and_the_rest() -> None:
    router = hosted()
    with pytest.raises(MethodNotAllowed) as info:
        router.match("/shared", "PUT", host="acme.example.com")
    assert info.value.allowed == ["DELETE", "GET", "HEAD", "OPTIONS"]
    with pytest.raises(MethodNotAllowed) as info:
        router.match("/shared", "PUT", host="other.org")
    assert info.value.allowed == ["GET", "HEAD", "OPTIONS"]
    with pytest.raises(AllowedMethods) as answer:
        router.match("/items/1", "OPTIONS", host="acme.example.com")
    assert answer.value.allowed == ["GET", "HEAD", "OPTIONS", "POST"]
    assert router.allowed_methods("/shared", host="acme.example.com") == {"GET", "HEAD", "DELETE"}
    assert router.allowed_methods("/shared") == {"GET", "HEAD"}


def test_a_host_rule_with_a_trailing_slash_redirects_on_its_host_only() -> None:
    router = hosted()
    with pytest.raises(RequestRedirect) as info:
        router.match("/docs", host="acme.example.com")
    assert info.value.location == "/docs/"
    with pytest.raises(NotFound):
        router.match("/docs", host="other.org")


def test_a_websocket_rule_may_have_a_host() -> None:
    router = Router([Rule("/ws", "feed", websocket=True, host="<tenant>.example.com")])
    assert router.match("/ws", websocket=True, host="acme.example.com")[1] == {"tenant": "acme"}
    with pytest.raises(NotFound):
        router.match("/ws", websocket=True, host="other.org")


def test_the_same_path_on_two_hosts_is_two_rules_and_a_repeat_on_one_is_refused() -> None:
    router = Router([Rule("/", "a", host="a.example.com"), Rule("/", "b", host="b.example.com")])
    assert endpoint(router, "/", "b.example.com") == "b"
    router.add(Rule("/", "t", host="<tenant>.example.com"))
    with pytest.raises(ValueError, match="could never match"):
        # Placeholders of another name share the pattern.
        router.add(Rule("/", "u", host="<org>.example.com"))
    with pytest.raises(ValueError, match="could never match"):
        router.add(Rule("/", "a2", host="A.example.com."))


def test_rules_of_one_pattern_may_name_their_placeholders_otherwise() -> None:
    router = Router(
        [
            Rule("/a", "a", host="<tenant>.example.com"),
            Rule("/b", "b", host="<org>.example.com"),
        ]
    )
    assert router.match("/a", host="x.example.com")[1] == {"tenant": "x"}
    assert router.match("/b", host="x.example.com")[1] == {"org": "x"}


def test_a_host_placeholder_takes_precedence_over_a_default_of_its_name() -> None:
    router = Router([Rule("/", "t", host="<tenant>.example.com", defaults={"tenant": "main"})])
    assert router.match("/", host="acme.example.com")[1] == {"tenant": "acme"}


def test_a_router_without_host_rules_says_so() -> None:
    router = Router([Rule("/", "home")])
    assert router.has_hosts is False
    router.add(Rule("/", "api", host="api.example.com"))
    assert router.has_hosts is True


# -- refusals at registration ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ("example.com:8000", "holds a port"),
        ("<tenant>.example.com:443", "holds a port"),
        ("a..example.com", "empty label"),
        (".example.com", "empty label"),
        ("", "empty label"),
        ("ex ample.com", "not a host name's"),
        ("exa/mple.com", "not a host name's"),
        ("[::1]", "IP literal"),
        ("<t>_x!.example.com", "beside a placeholder"),
        ("<t>\u00fc.example.com", "beside a placeholder"),
        ("<path:p>.example.com", "PathConverter"),
        ("<float:f>.example.com", "FloatConverter"),
        ("{tenant}.example.com", r"write '<tenant>\.example\.com'"),
        ("<t>x.<t>.com", "appears twice"),
        ("<tenant.example.com", "malformed placeholder"),
        ("<bogus:t>.example.com", "unknown converter"),
    ],
)
def test_a_host_no_request_could_match_is_refused_naming_the_fix(host: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Router([Rule("/", "x", host=host)])


def test_a_name_in_both_the_host_and_the_path_is_refused() -> None:
    with pytest.raises(ValueError, match="appears in both the path and the host"):
        Rule("/<tenant>", "x", host="<tenant>.example.com")


def test_a_host_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(TypeError, match="is a str such as"):
        Rule("/", "x", host=b"example.com")  # type: ignore[arg-type]


# -- building ---------------------------------------------------------------------------------


def test_a_host_rule_is_a_path_from_its_own_host_and_absolute_from_another() -> None:
    router = hosted()
    values = {"tenant": "acme"}
    assert router.build("tenant_home", values, origin="http://acme.example.com") == "/"
    assert router.build("tenant_home", values, origin="http://ACME.example.com.") == "/"
    assert (
        router.build("tenant_home", values, origin="https://beta.example.com:8443")
        == "https://acme.example.com:8443/"
    )
    assert router.build("only", origin="http://other.org") == "http://api.example.com/only"


def test_base_url_makes_a_host_rule_absolute_on_its_own_host() -> None:
    router = hosted()
    assert (
        router.build("item", {"tenant": "acme", "id": 3, "q": "x"}, base_url="https://a.org:81")
        == "https://acme.example.com:81/items/3?q=x"
    )
    assert (
        router.build("tenant_home", {"tenant": "acme"}, base_url="http://acme.example.com")
        == "http://acme.example.com/"
    )
    assert router.build("home", base_url="http://acme.example.com") == "http://acme.example.com/"


def test_a_host_rule_without_a_scheme_to_build_on_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a scheme"):
        hosted().build("tenant_home", {"tenant": "acme"})


def test_the_root_path_and_anchor_follow_the_host() -> None:
    url = hosted().build(
        "item",
        {"tenant": "acme", "id": 1},
        root_path="/app",
        anchor="top",
        origin="http://other.example.com",
    )
    assert url == "http://acme.example.com/app/items/1#top"


@pytest.mark.parametrize(
    "value",
    ["a.b", "Acme", "a b", "a%2eb", "", "x" * 64, "evil.org/", "a@b", "a:1", "\u00fc"],
)
def test_a_host_value_that_is_not_one_matching_label_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="cannot build the host"):
        hosted().build("tenant_home", {"tenant": value}, origin="http://x.example.com")


def test_a_converter_refusal_in_a_host_names_the_rule() -> None:
    router = Router([Rule("/", "n", host="<int:n>.example.com")])
    assert router.build("n", {"n": 5}, origin="http://x.org") == "http://5.example.com/"
    with pytest.raises(ValueError, match=r"cannot build the host of rule '/' .*n=-1"):
        router.build("n", {"n": -1}, origin="http://x.org")


# -- properties -------------------------------------------------------------------------------

LABEL = st.from_regex(r"[a-z0-9_-]{1,63}", fullmatch=True)


@given(
    tenant=LABEL, number=st.integers(0, 10**12), path=st.from_regex(r"[a-z]{1,8}", fullmatch=True)
)
@settings(max_examples=200)
def test_what_build_writes_on_a_host_matches_back_to_the_same_values(
    tenant: str, number: int, path: str
) -> None:
    router = Router(
        [
            Rule("/", "home"),
            Rule("/<name>", "tenant_page", host="<tenant>-<int:n>.example.com"),
        ]
    )
    url = router.build(
        "tenant_page", {"tenant": tenant, "n": number, "name": path}, origin="http://x"
    )
    assert url.startswith("http://")
    host, _, rest = url[len("http://") :].partition("/")
    rule, values = router.match("/" + rest, host=host)
    assert rule.endpoint == "tenant_page"
    assert values == {"tenant": tenant, "n": number, "name": path}


@given(value=st.text(max_size=80))
@settings(max_examples=300)
def test_build_writes_a_host_from_any_value_only_where_it_matches_back(value: str) -> None:
    router = hosted()
    try:
        url = router.build("tenant_home", {"tenant": value}, origin="http://x")
    except ValueError:
        return
    assert url == f"http://{value}.example.com/"
    assert router.match("/", host=f"{value}.example.com")[1] == {"tenant": value}


@given(host=st.text(max_size=300), method=st.sampled_from(["GET", "POST", "OPTIONS"]))
@settings(max_examples=400)
def test_any_host_string_is_a_clean_answer(host: str, method: str) -> None:
    router = hosted()
    found: Any
    try:
        found = router.find("/items/1", method, host=host)
    except (MethodNotAllowed, RequestRedirect):
        return
    assert found is None or found[0].endpoint == "item"
