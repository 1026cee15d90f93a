"""Host rules in the App, under to_wsgi and to_asgi: routing, trust, blueprints and url_for.

One App source (:func:`build`) is served both ways through the test client;
a rule with ``host=`` is matched against the Host the client sends, only
among the App's trusted hosts.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_http import App, AppConfig, Blueprint, ProxyPolicy, Request
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client, WebSocketDenied
from sansio_http.wsgi import to_wsgi

TRUSTED = ["example.com", ".example.com", "testserver", "teams.example.org"]


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def build(trusted: list[str] | None = None) -> App:
    app = App("hosts", config=AppConfig(trusted_hosts=TRUSTED if trusted is None else trusted))

    @app.get("/")
    def home(request: Request) -> str:
        return "home"

    @app.route("/shared", methods=["GET"])
    def shared(request: Request) -> str:
        return "shared"

    @app.get("/", host="<tenant>.example.com")
    def tenant_home(request: Request, tenant: str) -> dict[str, Any]:
        return {
            "tenant": tenant,
            "self": app.url_for("tenant_home", tenant=tenant),
            "other": app.url_for("tenant_home", tenant="beta"),
            "external": app.url_for("tenant_home", tenant=tenant, _external=True),
            "home": app.url_for("home", _external=True),
            "api": app.url_for("api_status"),
        }

    @app.route("/items/<int:id>", methods=["GET", "POST"], host="<tenant>.example.com")
    def item(request: Request, tenant: str, id: int) -> str:
        return f"{tenant} item {id}"

    @app.route("/shared", methods=["DELETE"], host="<tenant>.example.com")
    def tenant_shared(request: Request, tenant: str) -> str:
        return f"{tenant} deleted"

    @app.get("/status", host="api.example.com")
    def api_status(request: Request) -> str:
        return "api up"

    teams = Blueprint("teams", url_prefix="/teams", host="<org>.example.com")

    @teams.get("/")
    def team_index(request: Request, org: str) -> str:
        return f"{org} teams {app.url_for('.team_index', org=org)}"

    @teams.get("/anywhere", host="teams.example.org")
    def anywhere(request: Request) -> str:
        return "own host"

    members = Blueprint("members", url_prefix="/members")

    @members.get("/<name>")
    def member(request: Request, org: str, name: str) -> str:
        return f"{org} member {name}"

    teams.register_blueprint(members)
    app.register_blueprint(teams)
    return app


def client(app: App, interface: str) -> Client:
    return Client(app, interface="wsgi" if interface == "wsgi" else "asgi")


# -- routing ----------------------------------------------------------------------------


def test_a_host_rule_answers_its_host_and_binds_its_values(interface: str) -> None:
    c = client(build(), interface)
    assert c.get("http://acme.example.com/items/3").text == "acme item 3"
    assert c.post("http://acme.example.com/items/4").text == "acme item 4"
    assert c.get("http://api.example.com/status").text == "api up"
    assert c.get("http://API.Example.com:8080/status").text == "api up"


def test_a_rule_without_a_host_answers_every_trusted_host(interface: str) -> None:
    c = client(build(), interface)
    assert c.get("http://testserver/").text == "home"
    assert c.get("http://example.com/").text == "home"
    assert c.get("http://a.b.example.com/").text == "home"  # <tenant> takes one label
    assert c.get("http://acme.example.com/shared").text == "shared"


def test_a_path_that_only_another_host_has_is_a_404(interface: str) -> None:
    c = client(build(), interface)
    assert c.get("http://acme.example.com/status").status_code == 404
    assert c.get("http://testserver/items/3").status_code == 404
    assert c.post("http://testserver/items/3").status_code == 404


def test_405_and_options_list_the_methods_of_the_host_and_the_rest(interface: str) -> None:
    c = client(build(), interface)
    refused = c.put("http://acme.example.com/shared")
    assert refused.status_code == 405
    assert refused.headers["Allow"] == "DELETE, GET, HEAD, OPTIONS"
    assert c.put("http://testserver/shared").headers["Allow"] == "GET, HEAD, OPTIONS"
    options = c.options("http://acme.example.com/items/1")
    assert (options.status_code, options.headers["Allow"]) == (204, "GET, HEAD, OPTIONS, POST")
    assert c.delete("http://acme.example.com/shared").text == "acme deleted"


def test_an_untrusted_or_malformed_host_is_a_400_before_any_rule(interface: str) -> None:
    c = client(build(), interface)
    assert c.get("http://acme.example.org/").status_code == 400
    assert c.get("/", headers={"Host": "evil.com"}).status_code == 400
    assert c.get("/", headers={"Host": "acme.example.com@evil.com"}).status_code == 400
    assert c.get("/items/1", headers={"Host": "a b.example.com"}).status_code == 400


def test_the_answers_of_one_host_are_never_kept_for_another(interface: str) -> None:
    # The App keeps the answers of static rules by path; not where hosts route.
    c = client(build(), interface)
    for _ in range(2):
        assert c.get("http://testserver/").text == "home"
        assert c.get("http://acme.example.com/").json()["tenant"] == "acme"
        assert c.get("http://beta.example.com/").json()["tenant"] == "beta"


def test_a_host_rule_added_after_requests_takes_its_host(interface: str) -> None:
    app = App(config=AppConfig(trusted_hosts=TRUSTED))

    @app.get("/")
    def home(request: Request) -> str:
        return "home"

    c = client(app, interface)
    assert c.get("http://api.example.com/").text == "home"

    @app.get("/", host="api.example.com")
    def api(request: Request) -> str:
        return "api"

    assert c.get("http://api.example.com/").text == "api"
    assert c.get("http://testserver/").text == "home"


# -- blueprints -------------------------------------------------------------------------


def test_a_blueprint_gives_its_host_to_its_rules_and_nested_blueprints(interface: str) -> None:
    c = client(build(), interface)
    assert c.get("http://acme.example.com/teams/").text == "acme teams /teams/"
    assert c.get("http://acme.example.com/teams/members/ann").text == "acme member ann"
    assert c.get("http://testserver/teams/").status_code == 404


def test_a_rule_of_a_blueprint_keeps_its_own_host() -> None:
    c = Client(build())
    assert c.get("http://teams.example.org/teams/anywhere").text == "own host"
    assert c.get("http://acme.example.com/teams/anywhere").status_code == 404


# -- url_for ----------------------------------------------------------------------------


def test_url_for_is_a_path_on_the_same_host_and_absolute_on_another(interface: str) -> None:
    answer = client(build(), interface).get("https://acme.example.com:8443/").json()
    assert answer == {
        "tenant": "acme",
        "self": "/",
        "other": "https://beta.example.com:8443/",
        "external": "https://acme.example.com:8443/",
        "home": "https://acme.example.com:8443/",
        "api": "https://api.example.com:8443/status",
    }


def test_url_for_outside_a_request_needs_a_scheme_for_a_host_rule() -> None:
    app = build()
    assert app.url_for("tenant_home", tenant="acme", _scheme="https") == "https://acme.example.com/"
    assert (
        app.url_for("item", tenant="acme", id=2, _external=True, _scheme="http")
        == "http://acme.example.com/items/2"
    )
    assert app.url_for("home") == "/"
    with pytest.raises(ValueError, match="_scheme='https'"):
        app.url_for("tenant_home", tenant="acme")
    with pytest.raises(RuntimeError, match="needs a request for its host"):
        app.url_for("tenant_home", tenant="acme", _external=True)
    with pytest.raises(RuntimeError, match="has no host= to build it on"):
        app.url_for("home", _external=True, _scheme="https")


@pytest.mark.parametrize("tenant", ["a.b", "Acme", "evil.com/", "a b", ""])
def test_url_for_refuses_a_host_value_that_would_not_match_back(tenant: str) -> None:
    with pytest.raises(ValueError, match="cannot build the host"):
        build().url_for("tenant_home", tenant=tenant, _scheme="https")


# -- trust ------------------------------------------------------------------------------


def test_a_host_rule_on_an_app_without_trusted_hosts_is_refused_naming_them() -> None:
    app = App()
    with pytest.raises(ValueError, match=r"AppConfig\(trusted_hosts="):
        app.get("/", host="<tenant>.example.com")(lambda request, tenant: "")
    blueprint = Blueprint("tenants", host="<tenant>.example.com")
    blueprint.get("/")(lambda request, tenant: "")
    with pytest.raises(ValueError, match=r"AppConfig\(trusted_hosts="):
        app.register_blueprint(blueprint)
    assert not app.router.has_hosts


def test_an_exact_host_that_is_not_trusted_is_refused() -> None:
    app = App(config=AppConfig(trusted_hosts=[".example.com"]))
    with pytest.raises(ValueError, match=r"add 'api\.example\.org' to AppConfig\.trusted_hosts"):
        app.get("/", host="api.example.org")(lambda request: "")
    app.get("/", host="api.example.com")(lambda request: "")


def test_a_malformed_host_is_refused_where_it_is_written() -> None:
    blueprint = Blueprint("b")
    with pytest.raises(ValueError, match="holds a port"):
        blueprint.get("/", host="example.com:8000")
    with pytest.raises(TypeError, match="is a str such as"):
        blueprint.add_route("/", lambda request: "", host=["example.com"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="holds a port"):
        Blueprint("c", host="example.com:8000")


def test_the_trusted_hosts_setting_is_a_list_of_names() -> None:
    with pytest.raises(TypeError, match=r"write trusted_hosts=\['example.com'\]"):
        AppConfig(trusted_hosts="example.com")


def test_the_adapters_give_the_app_trusted_hosts_to_every_request(interface: str) -> None:
    # As Request.trusted_hosts: reading the host of another is a 400.
    app = App(config=AppConfig(trusted_hosts=["example.com"]))
    app.get("/")(lambda request: request.host)
    c = client(app, interface)
    assert c.get("http://example.com/").text == "example.com"
    assert c.get("http://example.org/").status_code == 400


def test_an_app_without_host_rules_never_reads_the_host_to_route(interface: str) -> None:
    app = App(config=AppConfig(trusted_hosts=["example.com"]))
    app.get("/")(lambda request: "home")
    assert not app.router.has_hosts
    assert client(app, interface).get("http://example.org/").text == "home"


def test_the_adapters_own_trusted_hosts_come_first() -> None:
    app = build()
    for served in (
        to_wsgi(app, trusted_hosts=[".example.net"]),
        to_asgi(app, trusted_hosts=[".example.net"]),
    ):
        c = Client(served)
        assert c.get("http://acme.example.com/").status_code == 400
        assert c.get("http://acme.example.net/").text == "home"


def test_a_request_without_trusted_hosts_is_held_to_the_app() -> None:
    app = build()
    headers = {"Host": "acme.example.com"}
    request = Request("GET", "/items/5", b"", headers, "http", None, "")
    assert app.dispatch_sync(request).body == b"acme item 5"
    evil = Request("GET", "/items/5", b"", {"Host": "acme.evil.com"}, "http", None, "")
    assert app.dispatch_sync(evil).status == 400


def test_host_rules_whose_trusted_hosts_are_gone_answer_500() -> None:
    app = build()
    app.config.trusted_hosts = None
    request = Request("GET", "/", b"", {"Host": "acme.example.com"}, "http", None, "")
    assert app.dispatch_sync(request).status == 500


APP = build()


@given(host=st.text(st.characters(max_codepoint=255), max_size=80))
@settings(max_examples=150)
def test_any_host_header_is_answered_cleanly(host: str) -> None:
    request = Request("GET", "/items/1", b"", [("host", host)], "http", None, "")
    response = APP.dispatch_sync(request)
    assert response.status in {200, 400, 404}
    if response.status == 200:
        assert response.body == f"{host.partition('.')[0].lower()} item 1".encode()


def test_a_mounted_app_routes_by_host_among_its_own_trusted_hosts(interface: str) -> None:
    inner = App("inner", config=AppConfig(trusted_hosts=[".example.com"]))

    @inner.get("/", host="<tenant>.example.com")
    def tenant(request: Request, tenant: str) -> str:
        return f"{tenant} {inner.url_for('tenant', tenant='beta')}"

    outer = App("outer")
    outer.get("/")(lambda request: outer.url_for("inner.tenant", tenant="acme"))
    outer.mount("/in", inner)
    c = client(outer, interface)
    assert c.get("http://acme.example.com/in/").text == "acme http://beta.example.com/in/"
    assert c.get("http://acme.example.org/in/").status_code == 400
    assert c.get("http://testserver/").text == "http://acme.example.com/in/"


def test_a_websocket_rule_answers_its_host_only() -> None:
    app = App(config=AppConfig(trusted_hosts=[".example.com"]))

    @app.websocket("/feed", host="<tenant>.example.com")
    async def feed(websocket: Any, tenant: str) -> None:
        await websocket.accept()
        await websocket.send_text(f"feed of {tenant}")
        await websocket.close()

    c = Client(app, interface="asgi")
    with c.websocket_connect("ws://acme.example.com/feed") as session:
        assert session.receive_text() == "feed of acme"
    with pytest.raises(WebSocketDenied) as denied:
        with c.websocket_connect("ws://acme.example.org/feed"):
            pass
    assert denied.value.response.status_code == 400


def test_the_root_mount_takes_what_no_rule_of_a_trusted_host_takes(interface: str) -> None:
    old = App("old")
    old.get("/legacy")(lambda request: "old site")
    app = App(config=AppConfig(trusted_hosts=[".example.com"]))
    app.get("/", host="<tenant>.example.com")(lambda request, tenant: tenant)
    app.mount("/", old)
    c = client(app, interface)
    assert c.get("http://acme.example.com/").text == "acme"
    assert c.get("http://acme.example.com/legacy").text == "old site"
    assert c.get("http://acme.example.org/legacy").status_code == 400


def test_a_foreign_root_mount_takes_what_no_rule_of_a_trusted_host_takes(interface: str) -> None:
    # A WSGI application at the root is called by the adapter, which must
    # route by the host as the App does: neither hide the host rules nor
    # take a request on a host the App refuses.
    def legacy(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"legacy " + environ["PATH_INFO"].encode()]

    app = App(config=AppConfig(trusted_hosts=[".example.com"]))
    app.get("/", host="<tenant>.example.com", endpoint="tenant")(
        lambda request, tenant: f"tenant {tenant}"
    )
    app.get("/status", host="api.example.com", endpoint="status")(lambda request: "up")
    app.mount("/", legacy)
    c = client(app, interface)
    assert c.get("http://acme.example.com/").text == "tenant acme"
    assert c.get("http://api.example.com/status").text == "up"
    assert c.get("http://acme.example.com/status").text == "legacy /status"
    assert c.get("http://acme.example.com/old").text == "legacy /old"
    assert c.get("http://acme.example.org/").status_code == 400
    assert c.get("http://acme.example.org/old").status_code == 400


def test_a_foreign_root_mount_reads_the_host_through_the_proxy_policy(interface: str) -> None:
    # Behind a proxy that forwards the host, the adapter chooses between the
    # App and its root mount by the host the App routes by: the forwarded one.
    def legacy(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"legacy"]

    app = App(config=AppConfig(trusted_hosts=[".example.com"]))
    app.get("/status", host="api.example.com", endpoint="status")(lambda request: "up")
    app.mount("/", legacy)
    policy = ProxyPolicy(x_host=1)
    served: Any = (
        to_wsgi(app, proxy_policy=policy)
        if interface == "wsgi"
        else to_asgi(app, proxy_policy=policy)
    )
    c = Client(served, interface="wsgi" if interface == "wsgi" else "asgi")
    inside = {"Host": "backend.internal:8000"}
    assert c.get("/status", headers={**inside, "X-Forwarded-Host": "api.example.com"}).text == "up"
    assert c.get("/old", headers={**inside, "X-Forwarded-Host": "api.example.com"}).text == "legacy"
    assert c.get("/status", headers={**inside, "X-Forwarded-Host": "www.example.com"}).text == (
        "legacy"
    )
    assert c.get("/status", headers={**inside, "X-Forwarded-Host": "evil.example"}).status_code == (
        400
    )
