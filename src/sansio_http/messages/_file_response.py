"""File responses: ``file_response()`` for a file the adapter has stat'ed.

It joins the pieces below it: a :class:`~sansio_http.FileBody` for the body,
a guessed content type, validators made from the size and modification time,
and :func:`~sansio_http.make_conditional` for the request's conditions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone

from sansio_http.http import http_date, quote_etag
from sansio_http.messages._conditional import RequestHead
from sansio_http.messages._files import (
    FileBody,
    content_disposition,
    guess_content_type,
    text_path,
)
from sansio_http.messages._response import Response, make_conditional

__all__ = ["file_response"]


def file_response(
    path: str | os.PathLike[str],
    *,
    size: int,
    mtime: float | datetime,
    content_type: str | None = None,
    download_name: str | None = None,
    as_attachment: bool = False,
    etag: bool | str = True,
    last_modified: bool = True,
    max_age: int | None = None,
    request: RequestHead | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """Build a response that sends a file the adapter has stat'ed.

    The core does not touch the file: the adapter passes the ``st_size``
    and ``st_mtime`` it read with ``os.stat`` (after :func:`safe_join` and
    its own symlink check) and later opens ``path`` to send the body. The
    response carries ``Content-Type`` (guessed from ``download_name`` or the
    path when not given, see :func:`guess_content_type`),
    ``Content-Length``, ``Accept-Ranges: bytes``, an ``ETag`` made from the
    size and the modification time, ``Last-Modified``, ``Cache-Control``
    and, for a download or a ``download_name``, ``Content-Disposition``.

    Args:
        path: The file to send.
        size: Its size in bytes (``st_size``).
        mtime: Its modification time, as seconds since the epoch
            (``st_mtime``) or a datetime (a naive one is taken as UTC).
        content_type: The Content-Type, instead of a guess.
        download_name: The file name the client sees, instead of the path's.
        as_attachment: ``True`` to ask the browser to save the file rather
            than display it.
        etag: ``True`` for an ETag from size and mtime, a string for that
            (unquoted, strong) tag, ``False`` for none.
        last_modified: Whether to send ``Last-Modified``.
        max_age: Seconds the client may reuse the file without asking
            (``Cache-Control: max-age=N``). ``None`` sends ``no-cache``: the
            client revalidates each time, which the ETag makes a cheap 304.
        request: If given, the response is passed through
            :func:`~sansio_http.make_conditional` for this request, so that
            it may become a 304, 412, 206 or 416.
        headers: More header fields, such as ``Vary``; one named like a
            field made here (``Cache-Control``, say, in any case) replaces
            it. They are in place before ``request`` is answered, so a 304
            keeps those that :data:`~sansio_http.messages._conditional.NOT_MODIFIED_HEADERS` lists.

    Returns:
        A ``Response`` whose body is a :class:`FileBody` of ``size`` bytes.

    Raises:
        ValueError: ``size`` or ``max_age`` is negative.
    """
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"size must be an int >= 0, not {size!r}")
    if max_age is not None and max_age < 0:
        raise ValueError(f"max_age must be None or >= 0, not {max_age!r}")
    file_path = text_path(path)
    name = download_name if download_name is not None else os.path.basename(file_path)
    if isinstance(mtime, datetime):
        moment = mtime if mtime.tzinfo is not None else mtime.replace(tzinfo=timezone.utc)
        timestamp = moment.timestamp()
    else:
        timestamp = float(mtime)
    fields = {
        "Content-Type": content_type or guess_content_type(name),
        "Content-Length": str(size),
        "Accept-Ranges": "bytes",
        "Cache-Control": "no-cache" if max_age is None else f"max-age={max_age}",
    }
    if etag is True:
        # Microseconds and size, in hex: any change to the file changes the tag.
        fields["ETag"] = quote_etag(f"{round(timestamp * 1_000_000):x}-{size:x}")
    elif etag:
        fields["ETag"] = quote_etag(etag)
    if last_modified:
        fields["Last-Modified"] = http_date(timestamp)
    if as_attachment or download_name is not None:
        fields["Content-Disposition"] = content_disposition(name, as_attachment=as_attachment)
    if headers:
        # PERF: given with the fields above, so each is checked once, in the
        # constructor, not set (and checked) again afterwards.
        for field_name, value in headers.items():
            lowered = field_name.lower()
            for made in [made for made in fields if made.lower() == lowered]:
                del fields[made]
            fields[field_name] = value
    response = Response(FileBody(file_path, length=size), 200, fields)
    return response if request is None else make_conditional(response, request)
