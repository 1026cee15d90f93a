"""What a Response body may be, and the mistakes refused where they are made.

A body is bytes (bytearray and memoryview are copied to bytes), a str, a sync
or async iterable of chunks, or a FileBody. A dict, or a list or tuple of JSON
values, is a value meant for JSON: it is refused when the Response is built or
its body is set, naming the fix, not when an adapter sends it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import MappingProxyType
from typing import Any

import pytest

from sansio_http import FileBody, JSONResponse, Response
from sansio_http.messages._response import body_chunk

JSON_FIX = r"use JSONResponse\(.*\) or return (the|a) \w+ from a view"


@pytest.mark.parametrize(
    "body",
    [
        {"a": 1},
        {},
        MappingProxyType({"a": 1}),
        [1, 2],
        [{"a": 1}],
        [None],
        (1.5, 2),
    ],
    ids=["dict", "empty-dict", "mapping", "list-of-int", "list-of-dict", "list-of-none", "tuple"],
)
def test_a_json_value_is_refused_when_built(body: Any) -> None:
    with pytest.raises(TypeError, match=JSON_FIX):
        Response(body)
    with pytest.raises(TypeError, match=JSON_FIX):
        Response(body, content_type="application/json")
    with pytest.raises(TypeError, match=JSON_FIX):
        Response(body, headers={"x-a": "1"})


@pytest.mark.parametrize("body", [{"a": 1}, [1, 2]], ids=["dict", "list"])
def test_a_json_value_is_refused_when_set(body: Any) -> None:
    response = Response(b"kept")
    with pytest.raises(TypeError, match=JSON_FIX):
        response.body = body
    assert response.body == b"kept"
    assert response.headers["content-length"] == "4"


def test_the_message_names_the_type_and_the_fix() -> None:
    mapping: Any = {"a": 1}
    listed_ints: Any = [1, 2]
    with pytest.raises(TypeError) as info:
        Response(mapping)
    assert str(info.value) == (
        "a body is bytes, str, an iterable or async iterable of bytes, or a FileBody,"
        " not dict: for JSON, use JSONResponse({...}) or return the dict from a view"
    )
    with pytest.raises(TypeError) as listed:
        Response(listed_ints)
    assert "not a list of int" in str(listed.value)
    assert "JSONResponse([...]) or return the list from a view" in str(listed.value)


@pytest.mark.parametrize("body", [42, None, 1.5, object(), True])
def test_other_values_are_refused_naming_their_type(body: Any) -> None:
    with pytest.raises(TypeError, match=f"not {type(body).__name__}"):
        Response(body)
    with pytest.raises(TypeError, match=f"not {type(body).__name__}"):
        Response(b"").body = body


def test_json_response_still_takes_the_same_values() -> None:
    assert JSONResponse({"a": 1}).body == b'{"a":1}'
    assert JSONResponse([1, 2]).body == b"[1,2]"


# -- what stays accepted ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "sent"),
    [
        (b"ab", b"ab"),
        (bytearray(b"ab"), b"ab"),
        (memoryview(b"ab"), b"ab"),
        ("ab", b"ab"),
        ("é", "é".encode()),
    ],
)
def test_bytes_like_and_text_bodies_become_bytes(body: Any, sent: bytes) -> None:
    for response in (Response(body), Response(body, headers={})):
        assert response.body == sent
        assert type(response.body) is bytes
        assert response.headers["content-length"] == str(len(sent))


def test_text_is_encoded_by_the_charset_of_the_content_type() -> None:
    response = Response("é", content_type="text/plain; charset=latin-1")
    assert response.body == b"\xe9"


def _chunks() -> Iterator[bytes]:
    yield b"a"


async def _async_chunks() -> AsyncIterator[bytes]:
    yield b"a"


@pytest.mark.parametrize(
    "body",
    [
        [b"a", b"b"],
        (b"a", b"b"),
        [bytearray(b"a"), memoryview(b"b")],
        ["text", "chunks"],  # str chunks are checked when sent
        [],
        iter([b"a"]),
    ],
    ids=["list", "tuple", "bytes-like", "str-chunks", "empty", "iterator"],
)
def test_lists_and_tuples_of_chunks_are_streamed(body: Any) -> None:
    response = Response(body)
    assert response.body is body
    assert "content-length" not in response.headers


def test_generators_async_iterables_and_file_bodies_are_accepted() -> None:
    generator = _chunks()
    assert Response(generator).body is generator
    agen = _async_chunks()
    assert Response(agen).body is agen
    file = FileBody("/srv/a.bin", length=3)
    assert Response(file).body is file
    response = Response(b"")
    response.body = [b"a"]
    assert response.body == [b"a"]


# -- chunks that are not bytes (checked when sent) ---------------------------------------


@pytest.mark.parametrize(
    ("chunk", "name"), [("text", "str"), (1, "int"), ({"a": 1}, "dict"), (None, "NoneType")]
)
def test_a_chunk_that_is_not_bytes_is_named_by_its_type(chunk: object, name: str) -> None:
    with pytest.raises(TypeError, match=f"a response body yields bytes, not {name}"):
        body_chunk(chunk)
