"""Server-sent events as values: the formatter, EventStream's body, Last-Event-ID.

Every formatted stream is read back by :func:`parse_stream`, a parser written
here from WHATWG HTML §9.2.6 ("Interpreting an event stream"), the way a
browser's ``EventSource`` reads it.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import EventStream, GZipMiddleware, Request, ServerSentEvent
from sansio_http.messages._events import (
    KEEPALIVE_CHUNK,
    MAX_LAST_EVENT_ID,
    encode_item,
    parse_last_event_id,
)

# -- a reader of event streams, after WHATWG HTML §9.2.6 ----------------------------------


@dataclass
class Dispatched:
    """An event as the page's listener gets it."""

    type: str
    data: str
    last_event_id: str


@dataclass
class StreamState:
    """What the browser remembers between events."""

    last_event_id: str = ""
    retry: int | None = None
    comments: int = 0


def parse_stream(stream: bytes, state: StreamState | None = None) -> list[Dispatched]:
    """Return the events a browser dispatches for ``stream``."""
    state = state or StreamState()
    text = stream.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    # Lines end with CRLF, CR or LF; an unfinished last line is dropped.
    lines = re.split(r"\r\n|\r|\n", text)
    lines.pop()
    events = []
    data = ""
    event_type = ""
    id_buffer = state.last_event_id
    for line in lines:
        if line == "":
            state.last_event_id = id_buffer
            if data == "":
                event_type = ""
                continue
            if data.endswith("\n"):
                data = data[:-1]
            events.append(Dispatched(event_type or "message", data, state.last_event_id))
            data = ""
            event_type = ""
            continue
        if line.startswith(":"):
            state.comments += 1
            continue
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            event_type = value
        elif field == "data":
            data += value + "\n"
        elif field == "id":
            if "\0" not in value:
                id_buffer = value
        elif field == "retry":
            if value and all(c in "0123456789" for c in value):
                state.retry = int(value)
    return events


def newlines(text: str) -> str:
    """Return ``text`` with its line breaks as the browser gives them back: LF."""
    return re.sub(r"\r\n|\r", "\n", text)


# -- the formatter ------------------------------------------------------------------------


def test_a_string_is_one_data_line() -> None:
    assert encode_item("hello") == b"data: hello\n\n"


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        ("a\nb", b"data: a\ndata: b\n\n"),
        ("a\r\nb", b"data: a\ndata: b\n\n"),
        ("a\rb", b"data: a\ndata: b\n\n"),
        ("a\n", b"data: a\ndata: \n\n"),
        ("", b"data: \n\n"),
        # Only CR and LF end a line of an event stream.
        ("a\u2028b\x85c\x0bd", "data: a\u2028b\x85c\x0bd\n\n".encode()),
    ],
)
def test_every_line_break_starts_a_data_line(data: str, lines: bytes) -> None:
    assert encode_item(data) == lines
    assert parse_stream(lines)[0].data == newlines(data)


def test_a_dict_is_json_data_and_its_keys_are_never_fields() -> None:
    item = {"event": "x", "id": "1", "data": "a\nb"}
    chunk = encode_item(item)
    assert chunk == b'data: {"event":"x","id":"1","data":"a\\nb"}\n\n'
    (event,) = parse_stream(chunk)
    assert (event.type, json.loads(event.data), event.last_event_id) == ("message", item, "")


@pytest.mark.parametrize("value", [[1, "é"], (1, 2), 3, 2.5, True])
def test_other_json_values_are_json_data(value: Any) -> None:
    (event,) = parse_stream(encode_item(value))
    assert json.loads(event.data) == (list(value) if isinstance(value, tuple) else value)


def test_an_event_sets_every_field() -> None:
    event = ServerSentEvent("line 1\nline 2", event="token", id="7", retry=2500, comment="hi")
    chunk = event.encode()
    assert chunk == (b": hi\nevent: token\nid: 7\nretry: 2500\ndata: line 1\ndata: line 2\n\n")
    state = StreamState()
    assert parse_stream(chunk, state) == [Dispatched("token", "line 1\nline 2", "7")]
    assert (state.retry, state.comments) == (2500, 1)


def test_an_event_with_a_type_and_no_data_is_still_dispatched() -> None:
    assert parse_stream(ServerSentEvent(event="done").encode()) == [Dispatched("done", "", "")]


def test_an_id_alone_sets_the_last_id_without_an_event() -> None:
    state = StreamState()
    assert parse_stream(ServerSentEvent(id=41).encode(), state) == []
    assert state.last_event_id == "41"


def test_a_multi_line_comment_is_comment_lines_only() -> None:
    chunk = ServerSentEvent(comment="a\r\nb").encode()
    assert chunk == b": a\n: b\n\n"
    state = StreamState()
    assert parse_stream(chunk, state) == []
    assert state.comments == 2


def test_the_data_of_an_event_may_be_json() -> None:
    chunk = ServerSentEvent({"n": 1}, id="1").encode()
    assert chunk == b'id: 1\ndata: {"n":1}\n\n'


def test_dumps_replaces_the_json_encoder() -> None:
    def dumps(value: Any) -> bytes:
        return json.dumps(value, indent=1).encode()

    (event,) = parse_stream(encode_item({"a": [1]}, dumps))
    assert "\n" in event.data  # indented: several data lines, joined back
    assert json.loads(event.data) == {"a": [1]}
    assert encode_item(object(), lambda value: '"custom"') == b'data: "custom"\n\n'


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"event": "a\nb"}, "event type cannot hold CR or LF"),
        ({"event": "a\rb"}, "event type cannot hold CR or LF"),
        ({"id": "a\nb"}, r"control character '\\n': it would break the stream"),
        ({"id": "a\rb"}, r"control character '\\r': it would break the stream"),
        ({"id": "a\0b"}, r"control character '\\x00': it would break the stream"),
        ({"id": "a\tb"}, r"control character '\\t': servers answer 400"),
        ({"id": "a\x1bb"}, r"control character '\\x1b': servers answer 400"),
        ({"id": "a\x7fb"}, r"control character '\\x7f': servers answer 400"),
        ({"id": " 5 "}, "cannot start or end with a space: .* '5', not ' 5 '"),
        ({"id": "5 "}, "cannot start or end with a space"),
        ({"id": " 5"}, "cannot start or end with a space"),
        ({"id": "x" * (MAX_LAST_EVENT_ID + 1)}, "at most 1024 bytes"),
        ({"id": "é" * 513}, "at most 1024 bytes"),
        ({"retry": -1}, "0 or more"),
    ],
)
def test_fields_that_would_break_the_stream_are_refused(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ServerSentEvent("x", **fields)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"data": b"raw"}, "not bytes: decode it"),
        ({"event": 1}, "event type is a str, not int"),
        ({"id": 1.5}, "id is a str or an int, not float"),
        ({"id": True}, "id is a str or an int, not bool"),
        ({"retry": 1.5}, "retry is an int of milliseconds, not float"),
        ({"retry": True}, "retry is an int of milliseconds, not bool"),
        ({"comment": 3}, "comment is a str, not int"),
    ],
)
def test_fields_of_the_wrong_type_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        ServerSentEvent(**fields)


@pytest.mark.parametrize(
    ("item", "name"),
    [(b"data: x\n\n", "bytes"), (None, "NoneType"), (object(), "object"), ({1, 2}, "set")],
)
def test_an_unsupported_item_is_a_type_error_naming_it(item: object, name: str) -> None:
    with pytest.raises(TypeError, match=rf"not {name}\b"):
        encode_item(item)


def test_a_lone_surrogate_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="lone surrogate"):
        encode_item("a\ud800")
    # As JSON it is escaped, and valid.
    (event,) = parse_stream(encode_item(["a\ud800"]))
    assert json.loads(event.data) == ["a\ud800"]


def test_nan_is_refused_as_json() -> None:
    with pytest.raises(ValueError, match="NaN"):
        encode_item({"x": float("nan")})


# -- properties ---------------------------------------------------------------------------

ids = st.text().filter(
    lambda text: text == text.strip(" ") and not re.search(r"[\x00-\x1f\x7f]", text)
)
event_types = st.text().filter(lambda text: not {"\r", "\n"} & set(text))
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=10,
)


@given(data=st.text())
def test_any_text_round_trips(data: str) -> None:
    (event,) = parse_stream(encode_item(data))
    assert event == Dispatched("message", newlines(data), "")


@given(data=st.text(), event_type=event_types, ident=ids, comment=st.text())
def test_any_event_round_trips(data: str, event_type: str, ident: str, comment: str) -> None:
    if len(ident.encode()) > MAX_LAST_EVENT_ID:
        return
    event = ServerSentEvent(data, event=event_type, id=ident, comment=comment)
    assert parse_stream(event.encode()) == [
        Dispatched(event_type or "message", newlines(data), ident)
    ]


@given(items=st.lists(st.text() | json_values.filter(lambda v: v is not None), max_size=8))
def test_a_stream_of_items_is_read_back_item_by_item(items: list[Any]) -> None:
    stream = b"".join(encode_item(item) for item in items)
    events = parse_stream(stream)
    assert len(events) == len(items)
    for item, event in zip(items, events, strict=True):
        if isinstance(item, str):
            assert event.data == newlines(item)
        else:
            assert json.loads(event.data) == item


@given(ident=ids)
def test_an_id_sent_comes_back_from_last_event_id(ident: str) -> None:
    if not ident or len(ident.encode()) > MAX_LAST_EVENT_ID:
        return
    state = StreamState()
    parse_stream(ServerSentEvent("x", id=ident).encode(), state)
    # The browser sends the id as UTF-8; the adapters hand header bytes over as is.
    request = Request("GET", "/", b"", [(b"last-event-id", state.last_event_id.encode())], "http",
                      None, "")  # fmt: skip
    assert request.last_event_id == ident


# -- Last-Event-ID ------------------------------------------------------------------------


def request_with(*values: bytes) -> Request:
    return Request("GET", "/", b"", [(b"last-event-id", v) for v in values], "http", None, "")


def test_last_event_id_is_read() -> None:
    assert request_with(b"42").last_event_id == "42"
    assert request_with("résumé".encode()).last_event_id == "résumé"
    assert request_with(b"x" * MAX_LAST_EVENT_ID).last_event_id == "x" * MAX_LAST_EVENT_ID


@pytest.mark.parametrize(
    "values",
    [
        (),
        (b"",),
        (b"1\r\n2",),
        (b"1\n",),
        (b"1\r",),
        (b"1\x002",),
        (b"x" * (MAX_LAST_EVENT_ID + 1),),
        (b"x" * 10_240,),
        (b"\xff\xfe",),
        (b"1", b"2"),
    ],
)
def test_a_last_event_id_that_no_stream_sent_is_none(values: tuple[bytes, ...]) -> None:
    assert request_with(*values).last_event_id is None


def test_parse_last_event_id_takes_the_header_values() -> None:
    assert parse_last_event_id(["7"]) == "7"
    assert parse_last_event_id([]) is None


# -- the response -------------------------------------------------------------------------


def tokens() -> Iterator[Any]:
    yield "a"
    yield ServerSentEvent({"n": 1}, event="count", id="1")


def test_the_response_is_an_uncached_untransformed_event_stream() -> None:
    response = EventStream(tokens())
    assert response.status == 200
    assert response.raw_headers() == [
        (b"content-type", b"text/event-stream; charset=utf-8"),
        (b"cache-control", b"no-cache, no-transform"),
        (b"x-accel-buffering", b"no"),
    ]
    assert list(response.body) == [  # type: ignore[arg-type]
        b"data: a\n\n",
        b'event: count\nid: 1\ndata: {"n":1}\n\n',
    ]


def test_headers_given_replace_the_defaults() -> None:
    response = EventStream(
        tokens(), 201, {"cache-control": "no-store", "x-accel-buffering": "yes", "x-a": "1"}
    )
    assert response.status == 201
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-accel-buffering"] == "yes"
    assert response.headers["x-a"] == "1"
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"


def test_the_body_asks_the_adapter_for_keep_alives() -> None:
    body = EventStream(tokens(), keepalive_interval=0.25).body
    assert getattr(body, "idle_interval", None) == 0.25
    assert getattr(body, "idle_chunk", None) == KEEPALIVE_CHUNK == b": keep-alive\n\n"
    assert parse_stream(KEEPALIVE_CHUNK) == []
    assert EventStream(tokens()).body.idle_interval == 15.0  # type: ignore[union-attr]
    assert EventStream(tokens(), keepalive_interval=None).body.idle_interval is None  # type: ignore[union-attr]


@pytest.mark.parametrize("interval", [0, -1.0])
def test_a_keepalive_interval_must_be_positive(interval: float) -> None:
    with pytest.raises(ValueError, match="above 0"):
        EventStream(tokens(), keepalive_interval=interval)


def test_a_keepalive_interval_is_a_number() -> None:
    with pytest.raises(TypeError, match="number of seconds"):
        EventStream(tokens(), keepalive_interval="15")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ("text", "not str: for a single event, pass a list of one"),
        (b"data", "not bytes"),
        ({"a": 1}, "not dict"),
        (tokens, r"call it, EventStream\(events\(\)\)"),
        (42, "not int"),
    ],
)
def test_what_is_no_producer_is_refused(events: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        EventStream(events)


def test_a_sync_producer_is_closed_once() -> None:
    closed = []

    def producer() -> Iterator[str]:
        try:
            yield "a"
            yield "b"
        finally:
            closed.append(True)

    body: Any = EventStream(producer()).body
    assert next(iter(body)) == b"data: a\n\n"
    body.close()
    body.close()
    assert closed == [True]


def test_an_iterable_and_its_iterator_are_both_closed() -> None:
    closed = []

    class Items:
        def __iter__(self) -> Iterator[str]:
            return Closing()

        def close(self) -> None:
            closed.append("iterable")

    class Closing(Iterator[str]):
        def __next__(self) -> str:
            raise StopIteration

        def close(self) -> None:
            closed.append("iterator")

    body = EventStream(Items()).body
    assert list(body) == []  # type: ignore[arg-type]
    body.close()  # type: ignore[union-attr]
    assert closed == ["iterable", "iterator"]


def test_an_async_producer_is_formatted_and_closed_once() -> None:
    closed = []

    async def producer() -> AsyncIterator[Any]:
        try:
            yield "a"
            yield ServerSentEvent(event="end")
            yield "never"
        finally:
            closed.append(True)

    async def read_two() -> list[bytes]:
        body: Any = EventStream(producer()).body
        chunks = [await body.__anext__(), await body.__anext__()]
        await body.aclose()
        await body.aclose()
        return chunks

    assert asyncio.run(read_two()) == [b"data: a\n\n", b"event: end\ndata: \n\n"]
    assert closed == [True]


def test_an_unsupported_item_fails_when_it_is_read() -> None:
    body: Any = EventStream(iter(["a", b"b"])).body
    assert next(body) == b"data: a\n\n"
    with pytest.raises(TypeError, match="not bytes"):
        next(body)


def test_gzip_leaves_an_event_stream_as_it_is() -> None:
    response = EventStream(tokens())
    body = response.body
    request = Request("GET", "/", b"", [(b"accept-encoding", b"gzip")], "http", None, "")
    assert GZipMiddleware(minimum_size=0).process_response(request, response) is response
    assert response.body is body
    assert "content-encoding" not in response.headers
