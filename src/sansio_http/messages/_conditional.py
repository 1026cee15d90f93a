"""Conditional and range requests: the rules that answer 304, 412, 206 and 416.

:func:`conditional_answer` decides what a conditional or range request gets
instead of a response, following RFC 9110 §13.2.2: the preconditions
(``If-Match``, ``If-Unmodified-Since``, ``If-None-Match``,
``If-Modified-Since``) first, then ``Range`` and ``If-Range``. It reads only
a response's status, header fields and body and the request's method and
headers, and returns the status, body and fields of the answer; the
:class:`~sansio_http.Response` module builds the answer from them
(:func:`~sansio_http.make_conditional`), so this module sits below it and
never imports it. It does no I/O: a :class:`~sansio_http.FileBody` is
narrowed to the requested regions, which the adapter then reads.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Final, Protocol, TypeAlias

from sansio_http.http import (
    DEFAULT_MAX_RANGES,
    content_range,
    parse_date,
    parse_etags,
    parse_if_range,
    parse_range,
    unquote_etag,
    unsatisfied_range,
)
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.messages._files import FileBody, Segment

__all__ = ["NOT_MODIFIED_HEADERS", "Answer", "RequestHead", "conditional_answer"]

#: An answer that replaces a response: its status, body and header fields.
Answer: TypeAlias = "tuple[int, bytes | FileBody, MutableHeaders]"

_EMPTY_BODY_TYPE: Final = "text/plain; charset=utf-8"

#: The headers a 304 keeps (lower-case). RFC 9110 §15.4.5 requires
#: Cache-Control, Content-Location, Date, ETag, Expires and Vary. We also keep
#: Last-Modified, which §15.4.5 names as useful to caches and which nginx and
#: Apache send, and Set-Cookie, which is not representation metadata: dropping
#: it would lose a session refresh that happens to answer a revalidation.
#: Content-Type, Content-Length and the other representation headers go.
NOT_MODIFIED_HEADERS: Final = frozenset(
    {
        "cache-control",
        "content-location",
        "date",
        "etag",
        "expires",
        "vary",
        "last-modified",
        "set-cookie",
    }
)

_SAFE_METHODS: Final = frozenset({"GET", "HEAD"})


class RequestHead(Protocol):
    """What conditional answers read from a request: its method and headers."""

    @property
    def method(self) -> str:
        """The request method, upper-case."""

    @property
    def headers(self) -> Headers:
        """The request headers."""


def conditional_answer(
    status: int,
    fields: MutableHeaders,
    body: object,
    request: RequestHead,
    *,
    max_ranges: int = DEFAULT_MAX_RANGES,
) -> Answer | None:
    """Return what a conditional or range request gets instead of a response.

    The rules are those :func:`~sansio_http.make_conditional` documents.

    Args:
        status: The status of the response the request would get
            unconditionally.
        fields: Its header fields; they are copied, never changed.
        body: Its body; only ``bytes`` and a ``FileBody`` of known length
            are range capable.
        request: The request; only ``method`` and ``headers`` are read.
        max_ranges: The most ranges one request may ask for.

    Returns:
        None when the response answers as it is, else the status, body and
        header fields of the answer.
    """
    if not 200 <= status < 300:
        return None
    method = request.method
    headers = request.headers
    etag, etag_is_weak = _response_etag(fields)

    # RFC 9110 §13.2.2 step 1 and 2: If-Match, else If-Unmodified-Since.
    if_match = _list_header(headers, "if-match")
    if if_match is not None:
        tags = parse_etags(if_match)
        # A weak ETag never matches strongly (RFC 9110 §8.8.3.2).
        strong_etag = None if etag_is_weak else etag
        if not (tags.is_star or (strong_etag is not None and tags.contains_strong(strong_etag))):
            return _answer_without_body(fields, 412)
    else:
        unmodified_since = parse_date(headers.get("if-unmodified-since"))
        last_modified = _last_modified(fields) if unmodified_since is not None else None
        if unmodified_since is not None and last_modified is not None:
            if last_modified > unmodified_since:  # changed since the client's copy
                return _answer_without_body(fields, 412)

    # Step 3 and 4: If-None-Match, else If-Modified-Since (GET and HEAD only).
    if_none_match = _list_header(headers, "if-none-match")
    if if_none_match is not None:
        tags = parse_etags(if_none_match)
        if tags.is_star or (etag is not None and tags.contains_weak(etag)):
            return _answer_without_body(fields, 304 if method in _SAFE_METHODS else 412)
    elif method in _SAFE_METHODS:
        modified_since = parse_date(headers.get("if-modified-since"))
        last_modified = _last_modified(fields) if modified_since is not None else None
        if modified_since is not None and last_modified is not None:
            if last_modified <= modified_since:  # the client's copy is current
                return _answer_without_body(fields, 304)

    # Step 5: Range, for a 200 to GET whose length is known; a HEAD gets the
    # fields of the 200 that a GET without Range would get.
    if isinstance(body, bytes):
        length = len(body)
    elif isinstance(body, FileBody) and body.content_length is not None:
        length = body.content_length
    else:
        return None  # a stream: its length is unknown, so no range applies
    if (
        method not in _SAFE_METHODS
        or status != 200
        or "content-range" in fields
        or (fields.get("accept-ranges") or "").strip().lower() == "none"
    ):
        return None
    # RFC 9110 §14.2: GET is the only method whose Range is honoured; a HEAD
    # ignores it and gets the fields of the 200 (§9.3.2), never a 206 or 416.
    range_header = headers.get("range") if method == "GET" else None
    # An empty body has no byte to send a range of; RFC 9110 §14.1.2 would make
    # every range unsatisfiable, and a 416 for an empty file helps no client.
    if range_header is None or length == 0:
        return _full(fields, body, length)
    if_range = headers.get("if-range")
    if if_range is not None and not _if_range_holds(if_range, etag, etag_is_weak, fields):
        return _full(fields, body, length)
    requested = parse_range(range_header, max_ranges=max_ranges)
    if requested is None:  # malformed, another unit, or too many ranges
        return _full(fields, body, length)
    spans = requested.resolve(length)
    if not spans:
        # RFC 9110 §15.5.17: a 416 names the current length.
        return _answer_without_body(fields, 416, unsatisfied_range(length))
    # SECURITY: overlapping ranges that add up to more than the body are an
    # amplification attack (CVE-2011-3192); RFC 9110 §14.2 lets us ignore them.
    if _requested_bytes(requested.ranges, length) > length:
        return _full(fields, body, length)
    partial_headers = fields.copy()
    partial_headers["Accept-Ranges"] = "bytes"
    if len(spans) > 1:
        return _multipart(partial_headers, body, spans, length)
    start, stop = spans[0]
    partial_headers["Content-Range"] = content_range(start, stop, length)
    return 206, _cut(body, start, stop), partial_headers


def _list_header(headers: Headers, name: str) -> str | None:
    # If-Match and If-None-Match are lists that may span several fields (RFC 9110 §5.3).
    value = headers.get_joined(name)
    return value if value is not None and value.strip() else None


def _response_etag(fields: Headers) -> tuple[str | None, bool]:
    value = fields.get("etag")
    if value is None:
        return None, False
    return unquote_etag(value)


def _last_modified(fields: Headers) -> datetime | None:
    # PERF: parsed only when a request names a date to compare it with.
    return parse_date(fields.get("last-modified"))


def _if_range_holds(value: str, etag: str | None, etag_is_weak: bool, fields: Headers) -> bool:
    # RFC 9110 §13.1.5: an entity tag must match strongly; a date must be exactly the
    # Last-Modified date (a weak date validator never holds).
    condition = parse_if_range(value)
    if condition.etag is not None:
        return not condition.weak and not etag_is_weak and condition.etag == etag
    return condition.date is not None and condition.date == _last_modified(fields)


def _cut(body: bytes | FileBody, start: int, stop: int) -> bytes | FileBody:
    return body[start:stop] if isinstance(body, bytes) else body.slice(start, stop)


def _full(fields: MutableHeaders, body: bytes | FileBody, length: int) -> Answer | None:
    # A range-capable 200 says so (RFC 9110 §14.3) and states its length.
    if fields.get("accept-ranges") == "bytes" and fields.get("content-length") == str(length):
        return None
    headers = fields.copy()
    headers["Accept-Ranges"] = "bytes"
    headers["Content-Length"] = str(length)
    return 200, body, headers


def _answer_without_body(
    fields: MutableHeaders, status: int, unsatisfied: str | None = None
) -> Answer:
    headers = fields.copy()
    for name in set(headers) - NOT_MODIFIED_HEADERS:
        headers.remove(name)
    if unsatisfied is not None:
        headers["Content-Range"] = unsatisfied
    if status != 304:
        # RFC 9110 §15.4.5: a 304 has no Content-Length to describe (its body is
        # implied); a 412 or 416 carries an empty body, so it says 0. PEP 3333's
        # validator (wsgiref.validate) wants a Content-Type on every status but 204 and
        # 304, and forbids it on those: the 412 and 416 say what their empty body is.
        headers["Content-Length"] = "0"
        headers["Content-Type"] = _EMPTY_BODY_TYPE
    return status, b"", headers


def _multipart(
    headers: MutableHeaders,
    body: bytes | FileBody,
    spans: list[tuple[int, int]],
    length: int,
) -> Answer:
    # RFC 9110 §14.6: each part has the representation's Content-Type and its own
    # Content-Range; the boundary must not occur in the content.
    boundary = _boundary(body, spans, length, headers.get("etag"))
    content_type = headers.get("content-type")
    type_line = (
        b"" if content_type is None else b"Content-Type: %s\r\n" % content_type.encode("latin-1")
    )
    pieces: list[bytes | tuple[int, int]] = []
    for index, (start, stop) in enumerate(spans):
        pieces.append(
            b"%s--%s\r\n%sContent-Range: %s\r\n\r\n"
            % (
                b"\r\n" if index else b"",
                boundary,
                type_line,
                content_range(start, stop, length).encode("latin-1"),
            )
        )
        pieces.append((start, stop))
    pieces.append(b"\r\n--%s--\r\n" % boundary)
    payload: bytes | FileBody
    if isinstance(body, bytes):
        payload = b"".join(
            piece if isinstance(piece, bytes) else body[piece[0] : piece[1]] for piece in pieces
        )
    else:
        # PERF: the file is not read here: its regions become segments between the
        # part headers, and the adapter reads only those.
        segments: list[Segment] = []
        for piece in pieces:
            if isinstance(piece, bytes):
                segments.append(piece)
            else:
                segments.extend(body.slice(*piece).segments)
        payload = FileBody.from_segments(body.path, segments)
    multipart_headers = headers.copy()
    multipart_headers["Content-Type"] = f"multipart/byteranges; boundary={boundary.decode()}"
    return 206, payload, multipart_headers


def _boundary(
    body: bytes | FileBody, spans: list[tuple[int, int]], length: int, etag: str | None
) -> bytes:
    # NOTE: derived, not random, so that the answer is the same for the same
    # request under every adapter. A bytes body is checked for the boundary; a
    # file cannot be (the core does not read it), but 32 hex digits of a hash of
    # its validators and the ranges will not occur in it by chance.
    seed = f"{etag}|{length}|{spans}".encode("latin-1", "replace")
    # A body holds fewer distinct 34-byte runs than there are boundaries, so this ends.
    attempt = 0
    while True:
        boundary = hashlib.sha256(b"%d|%s" % (attempt, seed)).hexdigest()[:32].encode()
        if not isinstance(body, bytes) or b"--" + boundary not in body:
            return boundary
        attempt += 1


def _requested_bytes(ranges: list[tuple[int | None, int | None]], length: int) -> int:
    # What the ranges would send before Range.resolve merges overlaps: "0-,0-,0-"
    # asks for three copies of the body, and a client that does so is not a real one.
    total = 0
    for first, last in ranges:
        if first is None:
            total += min(last or 0, length)
        elif first < length:
            total += (length if last is None else min(last + 1, length)) - first
    return total
