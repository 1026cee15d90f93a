"""SessionMiddleware on core values: signing, rotation, expiry and bad cookies."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import MAX_COOKIE_SIZE, Request, Response, Session, SessionMiddleware

SECRET = "s" * 32
OLD = "o" * 32
NOW = 1_800_000_000.0


class Clock:
    def __init__(self, now: float = NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def middleware(secrets: Any = SECRET, **options: Any) -> SessionMiddleware:
    options.setdefault("clock", Clock())
    return SessionMiddleware(secrets, **options)


def request(cookie: str | None = None, scheme: str = "https") -> Request:
    headers = [] if cookie is None else [("cookie", cookie)]
    return Request("GET", "/", b"", headers, scheme, "127.0.0.1", "")


def load(sessions: SessionMiddleware, cookie: str | None) -> tuple[Request, Session]:
    incoming = request(cookie)
    sessions.process_request(incoming)
    session = incoming.state.session
    assert isinstance(session, Session)
    return incoming, session


def cookie_of(response: Response) -> str:
    header = response.headers["set-cookie"]
    return header.split(";")[0]


def test_a_changed_session_is_signed_into_a_cookie_with_safe_defaults() -> None:
    sessions = middleware()
    incoming, session = load(sessions, None)
    session["user"] = "ada"
    response = sessions.process_response(incoming, Response(b"ok"))
    header = response.headers["set-cookie"]
    assert header.startswith("session=")
    assert "HttpOnly" in header
    assert "SameSite=Lax" in header
    assert "Secure" in header  # the request came over https
    assert "Max-Age=1209600" in header
    assert response.headers["vary"] == "Cookie"
    _, again = load(sessions, cookie_of(response))
    assert again.to_dict() == {"user": "ada"}


def test_secure_follows_the_request_scheme_unless_set() -> None:
    sessions = middleware()
    incoming = request(scheme="http")
    sessions.process_request(incoming)
    incoming.state.session["a"] = 1
    assert "Secure" not in sessions.process_response(incoming, Response(b"")).headers["set-cookie"]
    forced = middleware(secure=True)
    incoming = request(scheme="http")
    forced.process_request(incoming)
    incoming.state.session["a"] = 1
    assert "Secure" in forced.process_response(incoming, Response(b"")).headers["set-cookie"]


def test_an_unchanged_session_is_not_written_back() -> None:
    sessions = middleware()
    cookie = "session=" + sessions.dumps({"n": 1})
    incoming, session = load(sessions, cookie)
    assert session["n"] == 1
    response = sessions.process_response(incoming, Response(b""))
    assert "set-cookie" not in response.headers
    assert response.headers["vary"] == "Cookie"  # it was read


def test_an_unused_session_adds_nothing() -> None:
    sessions = middleware()
    incoming, _ = load(sessions, None)
    response = sessions.process_response(incoming, Response(b""))
    assert response.raw_headers() == [(b"content-length", b"0")]


def test_a_cleared_session_deletes_the_cookie() -> None:
    sessions = middleware()
    incoming, session = load(sessions, "session=" + sessions.dumps({"n": 1}))
    session.clear()
    header = sessions.process_response(incoming, Response(b"")).headers["set-cookie"]
    assert header.startswith("session=;")
    assert "Max-Age=0" in header


def test_in_place_changes_need_modified() -> None:
    sessions = middleware()
    incoming, session = load(sessions, "session=" + sessions.dumps({"cart": []}))
    session["cart"].append("book")
    assert not session.modified
    session.modified = True
    response = sessions.process_response(incoming, Response(b""))
    _, again = load(sessions, cookie_of(response))
    assert again["cart"] == ["book"]


def test_the_dict_api_marks_changes() -> None:
    session = Session({"a": 1})
    assert "a" in session
    assert len(session) == 1
    assert list(session) == ["a"]
    before = session.modified
    assert session.pop("a") == 1
    assert (before, session.modified) == (False, True)
    assert repr(session) == "Session({})"


def test_key_rotation_first_signs_all_verify() -> None:
    old = middleware(OLD)
    rotated = middleware([SECRET, OLD])
    cookie = "session=" + old.dumps({"n": 1})
    _, session = load(rotated, cookie)
    assert session.to_dict() == {"n": 1}
    new_value = rotated.dumps({"n": 2})
    assert middleware(SECRET).loads(new_value) == {"n": 2}
    assert old.loads(new_value) is None
    # Once the old secret is removed, its cookies reset.
    assert middleware(SECRET).loads(old.dumps({"n": 1})) is None


def test_a_replay_after_expiry_resets() -> None:
    clock = Clock()
    sessions = middleware(max_age=timedelta(hours=1), clock=clock)
    value = sessions.dumps({"user": "ada"})
    clock.now += 3600
    assert sessions.loads(value) == {"user": "ada"}
    clock.now += 1
    assert sessions.loads(value) is None
    never = middleware(max_age=None, clock=clock)
    assert never.loads(never.dumps({"a": 1})) == {"a": 1}


def tampered(value: str) -> list[str]:
    payload, stamp, signature = value.split(".")
    flipped = "A" if signature[0] != "A" else "B"
    return [
        value[:-1],  # truncated
        value[: len(value) // 2],
        payload + "." + stamp,  # no signature
        "eyJ1c2VyIjoiYWRtaW4ifQ" + "." + stamp + "." + signature,  # another payload
        payload + "." + str(int(stamp) + 1) + "." + signature,  # another time
        payload + "." + stamp + "." + flipped + signature[1:],  # forged signature
        payload + "." + stamp + "." + signature + "==",
        payload + "." + stamp + "." + "!" * len(signature),
        payload + ".-1." + signature,
        "",
        "...",
        "x" * (MAX_COOKIE_SIZE + 1),
        value + "é",
        value[:-1] + ("B" if value[-1] == "A" else "A"),  # the last character changed
    ]


@pytest.mark.parametrize("index", range(14))
def test_a_bad_cookie_resets_to_an_empty_session_and_is_deleted(index: int) -> None:
    sessions = middleware()
    bad = tampered(sessions.dumps({"user": "ada"}))[index]
    assert sessions.loads(bad) is None
    incoming, session = load(sessions, f'session="{bad}"' if bad else "session=")
    assert session.to_dict() == {}
    header = sessions.process_response(incoming, Response(b"")).headers["set-cookie"]
    assert "Max-Age=0" in header


def test_a_session_too_big_for_a_cookie_is_refused_when_written() -> None:
    sessions = middleware()
    assert len(sessions.dumps({"x": "a" * 2900})) <= MAX_COOKIE_SIZE
    with pytest.raises(ValueError, match="store less"):
        sessions.dumps({"x": "a" * 3100})


def test_a_signed_payload_that_is_not_an_object_resets() -> None:
    sessions = middleware()
    payload = base64.urlsafe_b64encode(b"[1]").rstrip(b"=")
    message = payload + b".1800000000"
    signature = hmac.new(SECRET.encode(), b"session\x00" + message, hashlib.sha256).digest()
    value = message + b"." + base64.urlsafe_b64encode(signature).rstrip(b"=")
    assert sessions.loads(value.decode()) is None
    # The same construction with an object is what dumps() makes.
    assert sessions.loads(sessions.dumps({"a": 1})) == {"a": 1}


def test_the_first_valid_cookie_of_several_wins() -> None:
    sessions = middleware()
    good = sessions.dumps({"n": 7})
    _, session = load(sessions, f"session=bogus; session={good}")
    assert session.to_dict() == {"n": 7}


def test_values_that_json_cannot_store_are_refused() -> None:
    with pytest.raises(ValueError, match="JSON cannot store"):
        middleware().dumps({"when": object()})


def test_secrets_are_checked() -> None:
    with pytest.raises(ValueError, match="at least 32 bytes"):
        SessionMiddleware("short")
    with pytest.raises(ValueError, match="at least one secret"):
        SessionMiddleware([])


def test_a_state_without_a_session_is_left_alone() -> None:
    sessions = middleware()
    incoming = request()
    response = sessions.process_response(incoming, Response(b""))
    assert "set-cookie" not in response.headers


# -- properties ------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)
sessions_data = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


@given(data=sessions_data)
def test_signing_round_trips(data: dict[str, Any]) -> None:
    sessions = middleware()
    value = sessions.dumps(data)
    assert sessions.loads(value) == data
    # The value is a cookie-octet string: no quoting needed.
    assert all(c.isalnum() or c in "-_." for c in value)


@given(data=sessions_data, position=st.integers(min_value=0), byte=st.characters(codec="ascii"))
def test_any_change_to_a_signed_value_is_refused(
    data: dict[str, Any], position: int, byte: str
) -> None:
    sessions = middleware()
    value = sessions.dumps(data)
    index = position % len(value)
    if value[index] == byte:
        return
    changed = value[:index] + byte + value[index + 1 :]
    assert sessions.loads(changed) is None


@given(value=st.text(max_size=200))
def test_any_cookie_text_loads_or_resets_without_raising(value: str) -> None:
    assert middleware().loads(value) is None


@given(value=st.text(max_size=200))
def test_any_cookie_header_gives_a_session(value: str) -> None:
    sessions = middleware()
    try:
        incoming = request(value)
    except ValueError:
        return  # not a header value at all (CR, LF, NUL)
    sessions.process_request(incoming)
    assert isinstance(incoming.state.session, Session)


def test_a_signed_payload_that_is_not_json_resets() -> None:
    sessions = middleware()
    for payload in (base64.urlsafe_b64encode(b"{not json").rstrip(b"="), b"e30x"):
        message = payload + b".1800000000"
        signature = hmac.new(SECRET.encode(), b"session\x00" + message, hashlib.sha256).digest()
        value = message + b"." + base64.urlsafe_b64encode(signature).rstrip(b"=")
        assert sessions.loads(value.decode()) is None
