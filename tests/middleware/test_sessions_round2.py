"""SessionMiddleware under both adapters: the cookie size limit and what counts as a read.

One App, mounted with ``to_wsgi`` and ``to_asgi`` (the ``interface``
fixture), answers every test here.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import pickle
from collections.abc import Callable
from typing import Any, cast

import pytest

from sansio_http import MAX_COOKIE_SIZE, App, Request, Session, SessionMiddleware
from sansio_http.testing import Client, Interface

SECRET = "s" * 32
NOW = 1_800_000_000.0
# A long name: browsers count it with the value, so it must leave less room.
LONG_NAME = "n" * 999

sessions = SessionMiddleware(SECRET, cookie_name=LONG_NAME, clock=lambda: NOW)
app = App("sessions")
app.add_middleware(sessions)


@app.get("/fill/<int:size>")
def fill(request: Request, size: int) -> str:
    """Store a string of ``size`` characters in the session."""
    request.state.session["x"] = "a" * size
    return "filled"


#: Every way of reading a session without changing it.
READS: dict[str, Callable[[Session], object]] = {
    "item": lambda session: session["n"],
    "get": lambda session: session.get("n"),
    "get, missing": lambda session: session.get("missing"),
    "in": lambda session: "n" in session,
    "len": len,
    "bool": bool,
    "iteration": list,
    "keys": lambda session: session.keys(),
    "values": lambda session: session.values(),
    "items": lambda session: session.items(),
    "==": lambda session: session == {"n": 1},
    "!=": lambda session: session != {"n": 1},
    "== reflected": lambda session: {"n": 1} == session,
    "to_dict": lambda session: session.to_dict(),
    "copy": lambda session: session.copy(),
    "dict()": dict,
    "repr": repr,
    "str": str,
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    "pickle": pickle.dumps,
    "setdefault, present": lambda session: session.setdefault("n", 0),
    "pop, missing with a default": lambda session: session.pop("missing", None),
}


@app.get("/read")
def read(request: Request) -> str:
    """Read the session in the way the ``how`` argument names."""
    READS[request.args["how"]](request.state.session)
    return "read"


@pytest.fixture(params=["wsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    return cast("Interface", request.param)


def signed(name: str, values: dict[str, Any]) -> str:
    """Sign values for a cookie name the way dumps() does, whatever their size."""
    payload = json.dumps(values, separators=(",", ":")).encode()
    message = base64.urlsafe_b64encode(payload).rstrip(b"=") + b".%d" % NOW
    key = hmac.new(SECRET.encode(), name.encode() + b"\x00" + message, hashlib.sha256)
    return (message + b"." + base64.urlsafe_b64encode(key.digest()).rstrip(b"=")).decode()


def value_length(size: int) -> int:
    """The length of the cookie value for a session of ``size`` characters."""
    return len(signed(LONG_NAME, {"x": "a" * size}))


def size_for(total: int) -> int:
    """The string size that makes the cookie's name and value take ``total`` bytes."""
    for size in range(MAX_COOKIE_SIZE):
        if len(LONG_NAME) + value_length(size) == total:
            return size
    raise AssertionError(f"no session makes a cookie of {total} bytes")


# -- the size limit counts the name -----------------------------------------------------


def test_a_cookie_of_exactly_the_limit_is_written(interface: Interface) -> None:
    response = Client(app, interface=interface).get(f"/fill/{size_for(MAX_COOKIE_SIZE)}")
    assert response.status_code == 200
    name, _, value = response.headers["set-cookie"].partition(";")[0].partition("=")
    assert name == LONG_NAME
    assert len(name) + len(value) == MAX_COOKIE_SIZE


def test_a_cookie_one_byte_over_the_limit_fails_like_any_oversize_session(
    interface: Interface,
) -> None:
    path = f"/fill/{size_for(MAX_COOKIE_SIZE + 1)}"
    # The value alone is far under the limit: only the name makes it too big.
    assert value_length(size_for(MAX_COOKIE_SIZE + 1)) < MAX_COOKIE_SIZE - 900
    with pytest.raises(ValueError, match=r"would take 4097 bytes.*store less in the session"):
        Client(app, interface=interface).get(path)
    response = Client(app, interface=interface, raise_app_exceptions=False).get(path)
    assert response.status_code == 500
    assert "set-cookie" not in response.headers


def test_a_cookie_over_the_limit_with_its_name_is_not_read() -> None:
    fits = {"x": "a" * size_for(MAX_COOKIE_SIZE)}
    too_big = {"x": "a" * size_for(MAX_COOKIE_SIZE + 1)}
    assert len(LONG_NAME) + len(signed(LONG_NAME, too_big)) == MAX_COOKIE_SIZE + 1
    assert sessions.loads(signed(LONG_NAME, fits)) == fits
    assert sessions.loads(signed(LONG_NAME, too_big)) is None


def test_the_limit_is_the_same_for_a_short_name() -> None:
    short = SessionMiddleware(SECRET, cookie_name="s", clock=lambda: NOW)
    sizes = range(2900, 3100)
    largest = max(size for size in sizes if 1 + value_length(size) <= MAX_COOKIE_SIZE)
    assert short.loads(short.dumps({"x": "a" * largest})) == {"x": "a" * largest}
    with pytest.raises(ValueError, match="store less"):
        short.dumps({"x": "a" * (largest + 1)})
    assert short.loads(signed("s", {"x": "a" * (largest + 1)})) is None


# -- every read marks the session read ---------------------------------------------------


@pytest.mark.parametrize("how", list(READS))
def test_every_read_of_the_session_adds_vary_cookie(interface: Interface, how: str) -> None:
    client = Client(app, interface=interface, cookies={LONG_NAME: sessions.dumps({"n": 1})})
    response = client.get("/read", params={"how": how})
    assert response.status_code == 200
    vary = [token.strip().lower() for token in response.headers.get("vary", "").split(",")]
    assert "cookie" in vary
    assert "set-cookie" not in response.headers  # read, not changed


@pytest.mark.parametrize("how", list(READS))
def test_every_read_marks_the_session_accessed_not_modified(how: str) -> None:
    session = Session({"n": 1})
    READS[how](session)
    assert (session.accessed, session.modified) == (True, False)


def test_copies_are_plain_dicts_or_detached_sessions() -> None:
    session = Session({"cart": ["tea"]})
    assert session.copy() == {"cart": ["tea"]}
    assert type(session.copy()) is dict
    shallow = copy.copy(session)
    assert isinstance(shallow, Session)
    shallow["cart"] = []
    assert session["cart"] == ["tea"]  # the copy's changes stay in the copy
    assert not session.modified
    deep = copy.deepcopy(session)
    deep["cart"].append("milk")
    assert session["cart"] == ["tea"]
    restored = pickle.loads(pickle.dumps(session))
    assert (restored.to_dict(), restored.modified) == ({"cart": ["tea"]}, False)


def test_equality_reads_both_sessions() -> None:
    one, other = Session({"n": 1}), Session({"n": 1})
    assert one == other
    assert (one.accessed, other.accessed) == (True, True)
    assert Session({"n": 1}) != Session({"n": 2})
    assert Session() != [("n", 1)]
