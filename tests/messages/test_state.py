from __future__ import annotations

import pytest

from sansio_http import App, Request, State, g


def make_request() -> Request:
    return Request("GET", "/", b"", [], "http", None, "")


def test_values_are_attributes_and_items() -> None:
    state = State({"db": "main"})
    state.user = "ada"
    state["role"] = "admin"
    assert state.db == "main"
    assert state["user"] == "ada"
    assert state.role == "admin"
    assert dict(state) == {"db": "main", "user": "ada", "role": "admin"}
    assert len(state) == 3
    assert "user" in state
    del state.user
    del state["role"]
    assert dict(state) == {"db": "main"}
    assert repr(state) == "State({'db': 'main'})"


def test_missing_values_raise_attribute_and_key_errors() -> None:
    state = State()
    with pytest.raises(AttributeError, match="'missing'"):
        _ = state.missing
    with pytest.raises(AttributeError, match="'missing'"):
        del state.missing
    with pytest.raises(KeyError):
        _ = state["missing"]
    assert state.get("missing", 1) == 1


def test_the_initial_values_are_copied() -> None:
    initial = {"n": 1}
    state = State(initial)
    state.n = 2
    assert initial == {"n": 1}


def test_each_request_has_its_own_state_and_replace_keeps_it() -> None:
    first, second = make_request(), make_request()
    first.state.user = "ada"
    assert "user" not in second.state
    copy = first.replace(path="/other")
    assert copy.state is first.state


def test_g_is_the_state_of_the_current_request() -> None:
    app = App()
    seen: list[object] = []

    @app.before_request
    def remember(request: Request) -> None:
        g.user = "ada"
        seen.append("user" in g)
        seen.append(g.get("absent", "default"))

    @app.get("/")
    def view(request: Request) -> str:
        seen.append(repr(g))
        del g.user
        return str(request.state.get("user"))

    response = app.dispatch_sync(make_request())
    assert response.body == b"None"
    assert seen == [True, "default", "<g State({'user': 'ada'})>"]


def test_g_outside_a_request_is_an_error() -> None:
    assert repr(g) == "<g (no request)>"
    with pytest.raises(RuntimeError, match="outside of a request"):
        g.user = "ada"
    with pytest.raises(RuntimeError, match="outside of a request"):
        _ = g.user
