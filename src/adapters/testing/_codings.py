"""Content codings: undo the ``Content-Encoding`` of a response body.

A client such as httpx or requests hands a test the body its application
meant, not the bytes on the wire; this module does the same for the test
client. ``gzip`` (and its alias ``x-gzip``) and ``deflate`` are decoded;
any other coding (``br``, ``zstd``, ``compress``) is left as it is. The
decoders are push parsers, fed the body chunk by chunk.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Final, Protocol

__all__ = ["BodyDecoder", "DecodingError", "body_decoder"]

# zlib's wbits: 16 + 15 reads a gzip header and trailer, -15 raw deflate.
GZIP_WBITS: Final = 16 + zlib.MAX_WBITS
RAW_DEFLATE_WBITS: Final = -zlib.MAX_WBITS


class DecodingError(RuntimeError):
    """A response body that its ``Content-Encoding`` does not decode.

    Args:
        coding: The content coding that failed, such as ``"gzip"``.
        reason: What went wrong.
    """

    def __init__(self, coding: str, reason: str) -> None:
        super().__init__(f"the body does not decode as {coding!r} (Content-Encoding): {reason}")
        #: The content coding that failed, as the header names it.
        self.coding = coding


class _Decoder(Protocol):
    def feed(self, data: bytes) -> bytes: ...

    def close(self) -> bytes: ...


class _GzipDecoder:
    """Decode gzip, member after member (RFC 1952 §2.2 allows several)."""

    def __init__(self) -> None:
        self._zlib = zlib.decompressobj(GZIP_WBITS)
        self._fed = False

    def feed(self, data: bytes) -> bytes:
        out = []
        while data:
            if self._zlib.eof:
                self._zlib = zlib.decompressobj(GZIP_WBITS)
            self._fed = True
            out.append(self._zlib.decompress(data))
            data = self._zlib.unused_data
        return b"".join(out)

    def close(self) -> bytes:
        if self._fed and not self._zlib.eof:
            raise zlib.error("the compressed data ends early")
        return b""


class _DeflateDecoder:
    """Decode deflate: zlib-wrapped as RFC 9110 §8.4.1.2 says, else raw.

    NOTE: Some servers send raw deflate (RFC 1951) under this name; httpx,
    urllib3 and browsers accept both, so the first two bytes decide.
    """

    def __init__(self) -> None:
        self._head = b""
        self._zlib: zlib._Decompress | None = None

    def feed(self, data: bytes) -> bytes:
        if self._zlib is None:
            self._head += data
            if len(self._head) < 2:
                return b""
            data, self._head = self._head, b""
            # RFC 1950 §2.2: method 8 (deflate), and CMF·256 + FLG a multiple of 31.
            zlib_wrapped = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS if zlib_wrapped else RAW_DEFLATE_WBITS)
        if self._zlib.eof and data:
            raise zlib.error("data after the end of the compressed stream")
        out = self._zlib.decompress(data)
        if self._zlib.unused_data:
            raise zlib.error("data after the end of the compressed stream")
        return out

    def close(self) -> bytes:
        if self._head or (self._zlib is not None and not self._zlib.eof):
            raise zlib.error("the compressed data ends early")
        return b""


_DECODERS: Final[dict[str, type[_Decoder]]] = {
    "gzip": _GzipDecoder,
    "x-gzip": _GzipDecoder,
    "deflate": _DeflateDecoder,
}


class BodyDecoder:
    """Undo the content codings of a body, last applied first.

    Args:
        codings: The codings from the ``Content-Encoding`` fields, in order.
    """

    def __init__(self, codings: Iterable[str]) -> None:
        # RFC 9110 §8.4: codings are listed in the order they were applied,
        # so the last is undone first. Decoding stops at one we do not know:
        # what it wraps stays encoded, as a client without it would see it.
        self._chain: list[tuple[str, _Decoder]] = []
        for coding in reversed(list(codings)):
            name = coding.lower()
            if name == "identity":
                continue
            if name not in _DECODERS:
                break
            self._chain.append((coding, _DECODERS[name]()))

    def feed(self, data: bytes) -> bytes:
        """Decode the next chunk of the body.

        Args:
            data: The chunk as the application sent it.

        Returns:
            What it decodes to so far, perhaps nothing.

        Raises:
            DecodingError: The chunk does not decode.
        """
        for coding, decoder in self._chain:
            if not data:
                break
            try:
                data = decoder.feed(data)
            except zlib.error as exc:
                raise DecodingError(coding, str(exc)) from exc
        return data

    def close(self) -> bytes:
        """End the body.

        Returns:
            The last decoded bytes.

        Raises:
            DecodingError: The body ended in the middle of a coding.
        """
        data = b""
        for coding, decoder in self._chain:
            try:
                data = decoder.feed(data) + decoder.close()
            except zlib.error as exc:
                raise DecodingError(coding, str(exc)) from exc
        return data


def body_decoder(field_values: Iterable[str]) -> BodyDecoder:
    """Return the decoder for the ``Content-Encoding`` fields of a response.

    Args:
        field_values: Each ``Content-Encoding`` field value, in order.

    Returns:
        A decoder; one that changes nothing if no coding is known.
    """
    codings = [c.strip() for value in field_values for c in value.split(",") if c.strip()]
    return BodyDecoder(codings)
