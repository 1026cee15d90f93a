"""``GZipMiddleware``: gzip content coding of responses, negotiated per request.

The decision is made from values only: the request's ``Accept-Encoding``
(parsed with q-values by the core) and the response's status, header fields
and body kind. Small bytes bodies are compressed at once; a streamed body is
compressed chunk by chunk as the adapter sends it
(:func:`~sansio_http.transform_body`), each chunk flushed so that a stream of
events is never held back; a large bytes body becomes such a stream of
bounded slices, so that no step of the work holds an event loop for long.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterable, Iterator
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
from sansio_http.messages._chunks import charset_of
from sansio_http.messages._files import FileBody

if TYPE_CHECKING:
    from sansio_http.messages._request import Request
    from sansio_http.messages._response import Response

__all__ = ["GZipMiddleware", "GZipTransform"]

# zlib's wbits for a gzip wrapper (RFC 1952) instead of a zlib one: 16 + 15.
_GZIP_WBITS: Final = 31
_CONTENT_ENCODING: Final = (b"content-encoding", b"gzip")
# The structured syntax suffixes of text formats (RFC 6838 §4.2.8): such a
# type is text, whatever its top-level type says (image/svg+xml).
_TEXT_SUFFIXES: Final = ("+xml", "+json")
# SECURITY: the decisions for at most this many distinct Content-Type values
# are kept per middleware, so that hostile values cannot grow the cache.
_MAX_DECISIONS: Final = 256


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
    a status without content or representation (1xx, 204); one that already
    has a Content-Encoding; one marked ``Cache-Control: no-transform``
    (RFC 9110 §7.7); one whose media type is compressed already (see
    ``exclude_types``); a :class:`~sansio_http.FileBody`, which the adapter
    sends from the file; and a body known to be smaller than
    ``minimum_size``. Every other response gets ``Vary: Accept-Encoding``,
    since another client could get the other coding, and is compressed when
    the client's ``Accept-Encoding`` rates ``gzip`` above 0 and no lower
    than ``identity``: ``gzip;q=0``, an absent header or ``identity``
    preferred mean no compression.

    A 304 and a 206 (or any response with Content-Range) are never
    compressed: a 304 has no content, and a 206 holds a range of the
    identity coding. Each gets the ``Vary`` its 200 would carry (RFC 9110
    §15.4.5, §15.3.7), so that a cache keeps the codings apart.

    A compressed response loses its Content-Length when the body is
    streamed, loses Accept-Ranges (its ranges were of the identity
    coding), and its strong ETag becomes weak (RFC 9110 §8.8.1: the bytes
    differ from the identity coding's). A bytes body larger than
    ``max_inline_size`` is sent as a stream too: it is compressed
    ``slice_size`` bytes at a time while the adapter sends it.

    Args:
        minimum_size: Bodies of fewer bytes are sent as they are; a streamed
            body with a Content-Length below it too. 500 bytes, as Starlette
            and Django choose: under that, gzip's 18 bytes of framing and a
            TCP packet's worth of data gain nothing.
        level: The zlib compression level, 1 (fastest) to 9 (smallest); 6 is
            zlib's own default, most of the gain of 9 at a third of the cost.
        exclude_types: The media types sent as they are, such as
            ``"image/png"``; ``"image/*"`` stands for every subtype of
            ``image`` except the text ones, those with a ``+xml`` or
            ``+json`` suffix (``image/svg+xml``). None for
            :attr:`DEFAULT_EXCLUDE_TYPES`; extend or narrow that set to
            change it, e.g. ``GZipMiddleware.DEFAULT_EXCLUDE_TYPES -
            {"application/pdf"}``.

    Attributes:
        DEFAULT_EXCLUDE_TYPES: The media types compressed already, which
            gzip would only make larger or barely smaller at full cost:
            images, audio and video (their formats are compressed), archives
            (zip, gzip, 7z, rar, bzip2, xz, zstd), WOFF fonts and PDF (whose
            streams are deflated since PDF 1.2).
        exclude_types: The media types this middleware sends as they are,
            lower-cased.
        max_inline_size: The largest bytes body compressed in one call,
            which keeps its Content-Length: 256 KiB, about 5 ms of zlib
            level 6 on text.
        slice_size: The input compressed per step of a larger bytes body:
            64 KiB, about 1 ms. Under ASGI each step runs in the thread pool,
            and the event loop serves other requests between steps.
    """

    blocking: ClassVar[bool] = False

    DEFAULT_EXCLUDE_TYPES: ClassVar[frozenset[str]] = frozenset(
        {
            "image/*",
            "audio/*",
            "video/*",
            "application/zip",
            "application/gzip",
            "application/x-gzip",
            "application/x-7z-compressed",
            "application/vnd.rar",
            "application/x-rar-compressed",
            "application/x-bzip2",
            "application/x-xz",
            "application/zstd",
            "font/woff",
            "font/woff2",
            "application/pdf",
        }
    )
    max_inline_size: ClassVar[int] = 256 * 1024
    slice_size: ClassVar[int] = 64 * 1024

    def __init__(
        self,
        minimum_size: int = 500,
        level: int = 6,
        *,
        exclude_types: Iterable[str] | None = None,
    ) -> None:
        if minimum_size < 0:
            raise ValueError("minimum_size cannot be negative")
        if not 0 <= level <= 9:
            raise ValueError("level is a zlib compression level, 0 to 9")
        self.minimum_size = minimum_size
        self.level = level
        self.exclude_types = (
            self.DEFAULT_EXCLUDE_TYPES if exclude_types is None else _media_types(exclude_types)
        )
        # PERF: the decision for each Content-Type value seen, made once.
        self._excluded: dict[str | bytes, bool] = {}

    def process_response(self, request: Request, response: Response) -> Response:
        """Compress the response's body if the client and the response allow it."""
        status = response.status
        # RFC 9110 §15.2, §15.3.5: no content, and no representation to vary.
        if status < 200 or status == 204:
            return response
        body = response.body
        if isinstance(body, FileBody):
            return response
        if status == 304 or status == 206:
            self._vary_partial(response)
            return response
        if isinstance(body, bytes) and len(body) < self.minimum_size:
            return response
        untouched = is_untouched(response)
        if untouched:
            content_type = _content_type_field(response.raw_headers())
            if content_type is not None:
                excluded = self._excluded.get(content_type)
                if excluded or (excluded is None and self._excluded_type(content_type)):
                    return response
        elif self._must_not_transform(response):
            return response
        elif "content-range" in response.headers:
            self._vary_partial(response)
            return response
        add_vary_field(response, b"Accept-Encoding")
        # RFC 9110 §12.5.3 lets a server pick any coding for a request without
        # Accept-Encoding, but clients that send none (curl, scripts) expect
        # the content as it is, so only an explicit gzip is answered.
        accept = request.headers.get_joined("accept-encoding")
        if accept is None or not _chooses_gzip(accept):
            return response
        if isinstance(body, bytes) and len(body) <= self.max_inline_size:
            # PERF: one call, without the per-chunk flush a stream needs
            # (zlib.compress takes wbits only from Python 3.11 on).
            compressor = zlib.compressobj(self.level, zlib.DEFLATED, _GZIP_WBITS)
            set_bytes_body(response, compressor.compress(body) + compressor.flush())
        elif isinstance(body, bytes):
            # NOTE: 16 MB of text takes zlib a third of a second, which would
            # stall every other request on an event loop. As a stream of
            # bounded slices the work happens while the adapter sends it, a
            # slice per step (in the thread pool under ASGI), and not at all
            # in answer to HEAD, whose body is never read.
            response.body = transform_body(
                _slices(body, self.slice_size), GZipTransform(self.level)
            )
        else:
            # A streamed body may yield text, encoded with the response's charset.
            charset = charset_of(response.headers.get("content-type"))
            response.body = transform_body(body, GZipTransform(self.level), charset=charset)
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
        if "content-encoding" in headers:
            return True
        length = headers.get("content-length")
        if not isinstance(response.body, bytes) and length is not None and length.isdigit():
            if int(length) < self.minimum_size:
                return True
        cache_control = headers.get_joined("cache-control")
        if cache_control is not None and parse_response_cache_control(cache_control).no_transform:
            return True
        return self._excluded_type(headers.get("content-type"))

    def _vary_partial(self, response: Response) -> None:
        """Give a 304 or a part of a representation the Vary of its 200."""
        # RFC 9110 §15.4.5 (304) and §15.3.7 (206): the Vary a 200 to the same
        # request would carry. The 200 is not at hand; what the answer keeps
        # of it (Content-Encoding, Cache-Control, Content-Type, the complete
        # length in Content-Range) tells whether it would have varied.
        if self._must_not_transform(response):
            return
        content_range = response.headers.get("content-range")
        if content_range is not None:
            complete = content_range.rpartition("/")[2].strip()
            if complete.isdigit() and int(complete) < self.minimum_size:
                return
        add_vary_field(response, b"Accept-Encoding")

    def _excluded_type(self, content_type: str | bytes | None) -> bool:
        """Tell whether a Content-Type value names a type sent as it is."""
        if content_type is None:
            return False
        decisions = self._excluded
        excluded = decisions.get(content_type)
        if excluded is None:
            text = content_type if isinstance(content_type, str) else content_type.decode("latin-1")
            excluded = _type_matches(text, self.exclude_types)
            if len(decisions) < _MAX_DECISIONS:
                decisions[content_type] = excluded
        return excluded


def _content_type_field(fields: list[tuple[bytes, bytes]]) -> bytes | None:
    """Return the Content-Type among the raw fields of an untouched response."""
    # PERF: raw_headers() of such a response copies its few encoded fields,
    # where reading ``headers`` would build a MutableHeaders; its constructor
    # puts the content type first.
    if fields and fields[0][0] == b"content-type":
        return fields[0][1]
    for name, value in fields:
        if name == b"content-type":
            return value
    return None


def _type_matches(content_type: str, patterns: frozenset[str]) -> bool:
    """Tell whether a Content-Type value's media type is among ``patterns``."""
    media_type = content_type.partition(";")[0].strip().lower()
    if media_type in patterns:
        return True
    top, _, subtype = media_type.partition("/")
    return f"{top}/*" in patterns and not subtype.endswith(_TEXT_SUFFIXES)


def _media_types(values: Iterable[str]) -> frozenset[str]:
    """Check and lower-case the media types given as ``exclude_types``."""
    if isinstance(values, str):
        raise TypeError("exclude_types is a collection of media types; wrap a single one in [ ]")
    types = set()
    for value in values:
        media_type = value.strip().lower()
        top, slash, subtype = media_type.partition("/")
        if not slash or not top or not subtype or top == "*" or ";" in media_type:
            raise ValueError(
                f"{value!r} is not a media type: give one such as 'image/png' or 'image/*'"
            )
        types.add(media_type)
    return frozenset(types)


def _slices(data: bytes, size: int) -> Iterator[bytes]:
    """Yield ``data`` in pieces of ``size`` bytes, the last one shorter."""
    for start in range(0, len(data), size):
        yield data[start : start + size]


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
