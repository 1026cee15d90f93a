"""SessionMiddleware and deeply nested values: bounded on the way in and on the way out."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import MAX_COOKIE_SIZE, Request, Response, Session, SessionMiddleware

SECRET = "s" * 32
NOW = 1_800_000_000.0
MAX_DEPTH = 32  # documented in SessionMiddleware


def middleware() -> SessionMiddleware:
    return SessionMiddleware(SECRET, clock=lambda: NOW)


def signed(payload: bytes) -> str:
    """Sign any payload the way dumps() does, so that only its content can be wrong."""
    message = base64.urlsafe_b64encode(payload).rstrip(b"=") + b".%d" % NOW
    signature = hmac.new(SECRET.encode(), b"session\x00" + message, hashlib.sha256).digest()
    return (message + b"." + base64.urlsafe_b64encode(signature).rstrip(b"=")).decode()


def nested(depth: int) -> dict[str, Any]:
    """A session whose lists and dicts nest ``depth`` levels, its own dict included."""
    value: Any = 1
    for _ in range(depth - 1):
        value = [value]
    return {"v": value}


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    return 0


def test_a_signed_cookie_nested_1500_deep_starts_an_empty_session() -> None:
    # A valid signature over JSON nested 1,500 levels deep: json.loads would raise
    # RecursionError, a 500 on every request that carries the cookie.
    value = signed(b'{"v":' + b"[" * 1500 + b"]" * 1500 + b"}")
    assert len(value) <= MAX_COOKIE_SIZE
    sessions = middleware()
    assert sessions.loads(value) is None
    incoming = Request("GET", "/", b"", [("cookie", f"session={value}")], "https", None, "")
    sessions.process_request(incoming)
    session = incoming.state.session
    assert isinstance(session, Session)
    assert session.to_dict() == {}
    # Like any invalid cookie, the client is told to drop it.
    response = sessions.process_response(incoming, Response(b""))
    assert "Max-Age=0" in response.headers["set-cookie"]


def test_a_session_nested_990_deep_is_a_value_error_when_written() -> None:
    with pytest.raises(ValueError, match=f"more than {MAX_DEPTH} levels deep"):
        middleware().dumps(nested(990))


def test_a_session_nested_far_deeper_than_the_stack_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=f"more than {MAX_DEPTH} levels deep"):
        middleware().dumps(nested(100_000))


def test_the_limit_is_the_same_both_ways() -> None:
    sessions = middleware()
    assert sessions.loads(sessions.dumps(nested(MAX_DEPTH))) == nested(MAX_DEPTH)
    with pytest.raises(ValueError, match="levels deep"):
        sessions.dumps(nested(MAX_DEPTH + 1))
    too_deep = json.dumps(nested(MAX_DEPTH + 1), separators=(",", ":")).encode()
    assert sessions.loads(signed(too_deep)) is None
    objects = b'{"a":' * (MAX_DEPTH - 1) + b"{}" + b"}" * (MAX_DEPTH - 1)
    assert sessions.loads(signed(objects)) is not None
    assert sessions.loads(signed(b'{"a":' + objects + b"}")) is None


def test_brackets_inside_strings_do_not_nest() -> None:
    sessions = middleware()
    values = {"text": "[" * 500 + '\\"{' * 100, "list": [["]]]", "[[["] * 10]}
    assert sessions.loads(sessions.dumps(values)) == values


def test_many_shallow_values_are_not_deep() -> None:
    sessions = middleware()
    values = {"items": [{"id": i} for i in range(100)]}
    assert sessions.loads(sessions.dumps(values)) == values


def test_a_view_that_stores_a_deep_value_gets_the_documented_value_error() -> None:
    sessions = middleware()
    incoming = Request("GET", "/", b"", [], "https", None, "")
    sessions.process_request(incoming)
    incoming.state.session["cart"] = nested(990)["v"]
    with pytest.raises(ValueError, match="levels deep"):
        sessions.process_response(incoming, Response(b""))


json_values = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=6),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet="[]{}ab", max_size=3), children, max_size=3)
    ),
    max_leaves=60,
)


@given(value=json_values, wrap=st.integers(0, 2 * MAX_DEPTH))
def test_any_value_is_written_and_read_back_or_refused_by_its_depth(value: Any, wrap: int) -> None:
    sessions = middleware()
    for _ in range(wrap):
        value = [value]
    values = {"v": value}
    if depth_of(values) > MAX_DEPTH:
        with pytest.raises(ValueError, match="levels deep"):
            sessions.dumps(values)
        assert sessions.loads(signed(json.dumps(values).encode())) is None
    else:
        assert sessions.loads(sessions.dumps(values)) == values


@given(payload=st.lists(st.sampled_from([b"[", b"]", b"{", b"}", b'"', b"\\", b"1", b":", b","])))
def test_any_signed_payload_loads_or_resets_without_raising(payload: list[bytes]) -> None:
    result = middleware().loads(signed(b"".join(payload)))
    assert result is None or isinstance(result, dict)
