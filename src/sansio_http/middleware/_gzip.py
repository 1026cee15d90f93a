"""``GZipMiddleware``: gzip content coding of responses, negotiated per request.

The decision is made from values only: the request's ``Accept-Encoding``
(parsed with q-values by the core) and the response's status, header fields
and body kind. Bytes are compressed at once; a streamed body is compressed
chunk by chunk as the adapter sends it (:func:`~sansio_http.transform_body`),
each chunk flushed so that a stream of events is never held back.
"""

from __future__ import annotations

import functools
import zlib
from typing import TYPE_CHECKING, ClassVar, Final

from sansio_http.app._middleware import (
    Middleware,
    add_checked_fields,
    add_vary_field,
    is_untouched,
    set_bytes_body,
    transform_body,
)
from sansio_http.http import EncodingAccept, parse_accept_header, parse_response_cache_control
from sansio_http.messages._files import FileBody

if TYPE_CHECKING:
    from sansio_http.messages._request import Request
    from sansio_http.messages._response import Response

__all__ = ["GZipMiddleware", "GZipTransform"]

# zlib's wbits for a gzip wrapper (RFC 1952) instead of a zlib one: 16 + 15.
_GZIP_WBITS: Final = 31
_CONTENT_ENCODING: Final = (b"content-encoding", b"gzip")


class GZipTransform:
    """Gzip a body fed in chunks; each chunk's output is flushed at once.

    Args:
        level: The zlib compression level, 0 to 9.
    """

    __slots__ = ("_compressor",)

    def __init__(self, level: int = 6) -> None:
        self._compressor = zlib.compressobj(level, zlib.DEFLATED, _GZIP_WBITS)

    def feed(self, chunk: bytes) -> bytes:
        """Compress a chunk and return all the output for it so far."""
        if not chunk:
            return b""  # a sync flush of nothing would still emit 5 bytes
        compressor = self._compressor
        # Z_SYNC_FLUSH ends the output on a byte boundary, so the client can
        # inflate everything sent so far: streamed events arrive when sent.
        return compressor.compress(chunk) + compressor.flush(zlib.Z_SYNC_FLUSH)

    def close(self) -> bytes:
        """Return the end of the gzip stream (the last block and the trailer)."""
        return self._compressor.flush(zlib.Z_FINISH)


class GZipMiddleware(Middleware):
    """Compress responses with gzip for clients that accept it.

    A response is left as it is when it cannot or must not be transformed:
    a status without content (1xx, 204, 304) or a part of a representation
    (206, or any response with Content-Range); one that already has a
    Content-Encoding; one marked ``Cache-Control: no-transform`` (RFC 9110
    §7.7); a :class:`~sansio_http.FileBody`, which the adapter sends from the
    file; and a body known to be smaller than ``minimum_size``. Every other
    response gets ``Vary: Accept-Encoding``, since another client could get
    the other coding, and is compressed when the client's ``Accept-Encoding``
    rates ``gzip`` above 0 and no lower than ``identity``: ``gzip;q=0``, an
    absent header or ``identity`` preferred mean no compression.

    A compressed response loses its Content-Length when the body is
    streamed, loses Accept-Ranges (its ranges were of the identity
    coding), and its strong ETag becomes weak (RFC 9110 §8.8.1: the bytes
    differ from the identity coding's).

    Args:
        minimum_size: Bodies of fewer bytes are sent as they are; a streamed
            body with a Content-Length below it too. 500 bytes, as Starlette
            and Django choose: under that, gzip's 18 bytes of framing and a
            TCP packet's worth of data gain nothing.
        level: The zlib compression level, 1 (fastest) to 9 (smallest); 6 is
            zlib's own default, most of the gain of 9 at a third of the cost.
    """

    blocking: ClassVar[bool] = False

    def __init__(self, minimum_size: int = 500, level: int = 6) -> None:
        if minimum_size < 0:
            raise ValueError("minimum_size cannot be negative")
        if not 0 <= level <= 9:
            raise ValueError("level is a zlib compression level, 0 to 9")
        self.minimum_size = minimum_size
        self.level = level

    def process_response(self, request: Request, response: Response) -> Response:
        """Compress the response's body if the client and the response allow it."""
        status = response.status
        # RFC 9110 §15.3.5, §15.4.5: no content to code; §14.4: a 206 holds a
        # range of the representation whose coding was already chosen.
        if status < 200 or status == 204 or status == 304 or status == 206:
            return response
        body = response.body
        if isinstance(body, FileBody):
            return response
        if isinstance(body, bytes) and len(body) < self.minimum_size:
            return response
        untouched = is_untouched(response)
        if not untouched and self._must_not_transform(response):
            return response
        add_vary_field(response, b"Accept-Encoding")
        # RFC 9110 §12.5.3 lets a server pick any coding for a request without
        # Accept-Encoding, but clients that send none (curl, scripts) expect
        # the content as it is, so only an explicit gzip is answered.
        accept = request.headers.get_joined("accept-encoding")
        if accept is None or not _chooses_gzip(accept):
            return response
        if isinstance(body, bytes):
            # PERF: one call, without the per-chunk flush a stream needs
            # (zlib.compress takes wbits only from Python 3.11 on).
            compressor = zlib.compressobj(self.level, zlib.DEFLATED, _GZIP_WBITS)
            set_bytes_body(response, compressor.compress(body) + compressor.flush())
        else:
            response.body = transform_body(body, GZipTransform(self.level))
        add_checked_fields(response, [_CONTENT_ENCODING])
        if not untouched:
            headers = response.headers
            headers.remove("accept-ranges")
            etag = headers.get("etag")
            if etag is not None and not etag.startswith("W/"):
                headers["etag"] = "W/" + etag
        return response

    def _must_not_transform(self, response: Response) -> bool:
        headers = response.headers
        if "content-encoding" in headers or "content-range" in headers:
            return True
        length = headers.get("content-length")
        if not isinstance(response.body, bytes) and length is not None and length.isdigit():
            if int(length) < self.minimum_size:
                return True
        cache_control = headers.get_joined("cache-control")
        return (
            cache_control is not None and parse_response_cache_control(cache_control).no_transform
        )


# PERF: clients send the same few Accept-Encoding values; each is parsed once.
# At most 256 values of at most 100 characters are kept (as the core's
# Accept parsers do), so hostile headers cannot grow the cache.
@functools.lru_cache(maxsize=256)
def _cached_choice(value: str) -> bool:
    accept = parse_accept_header(value, EncodingAccept)
    quality = accept.quality("gzip")
    # RFC 9110 §12.5.3: gzip;q=0 refuses it; identity rated higher wins.
    return quality > 0 and quality >= accept.quality("identity")


def _chooses_gzip(value: str) -> bool:
    """Tell whether an Accept-Encoding value chooses gzip over identity."""
    if len(value) > 100:
        return _cached_choice.__wrapped__(value)
    return _cached_choice(value)
