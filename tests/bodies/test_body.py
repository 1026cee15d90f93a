"""``BodyRequest`` from a framework author's side: a transport of one's own.

A subclass supplies the primitives and gets the rest of the body API; the
core never refuses a blocking read by itself, since it knows of no event
loop (the adapters do).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from sansio_http import BadRequest, BodyRequest, FormData, FormDecoder
from sansio_http.bodies._body import EMPTY_FORM, blocking_read_error


class MemoryRequest(BodyRequest):
    """A request whose body is already in memory."""

    def __init__(self, body: bytes, content_type: str) -> None:
        super().__init__("POST", "/", b"", [("content-type", content_type)], "http", None, "")
        self.data = body

    @property
    def http_version(self) -> str:
        return "1.1"

    @property
    def raw_path(self) -> bytes | None:
        return None

    @property
    def bytes_read(self) -> int:
        return len(self.data)

    def _read_body(self) -> bytes:
        return self.data

    def _read_chunks(self) -> Iterator[bytes]:
        return iter([self.data])

    def _read_form(self) -> FormData:
        if not FormDecoder.supports(self.mimetype):
            return EMPTY_FORM
        decoder = FormDecoder(self.mimetype, self.mimetype_params)
        decoder.feed(self.data)
        return decoder.close()

    def _poll_disconnect(self) -> bool:
        return False

    async def body(self) -> bytes:
        return self.data

    async def stream(self) -> AsyncIterator[bytes]:
        yield self.data

    async def _decode_form(self) -> FormData:
        return self._read_form()

    async def is_disconnected(self) -> bool:
        return False


def test_the_blocking_spelling_is_derived_from_the_primitives() -> None:
    request = MemoryRequest(b"a=1&a=2&b=x", "application/x-www-form-urlencoded")
    assert request.get_data() == b"a=1&a=2&b=x"
    assert list(request.iter_data()) == [b"a=1&a=2&b=x"]
    assert request.get_form().getlist("a") == ["1", "2"]
    assert len(request.get_files()) == 0
    assert request.check_disconnected() is False


def test_the_awaited_spelling_is_derived_from_the_primitives() -> None:
    async def main() -> None:
        request = MemoryRequest(b'{"n": 1}', "application/json")
        assert await request.json() == {"n": 1}
        assert (await request.form()).to_dict() == {}
        assert len(await request.files()) == 0
        # The core knows of no loop: a blocking read is not refused here.
        assert request.get_json() == {"n": 1}

    asyncio.run(main())


def test_json_errors_are_400() -> None:
    with pytest.raises(BadRequest):
        MemoryRequest(b"{", "application/json").get_json()


def test_the_error_for_a_blocking_read_names_the_awaited_spelling() -> None:
    message = str(blocking_read_error("get_form"))
    assert message.startswith("request.get_form() blocks")
    assert "await request.form()" in message
