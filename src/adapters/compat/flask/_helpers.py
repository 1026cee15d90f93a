"""Flask's helper functions: responses, URLs, errors, flashed messages, files."""

from __future__ import annotations

import contextvars
import os
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import IO, Any, NoReturn

from sansio_http import JSONResponse, Response, file_response, safe_join
from sansio_http import abort as core_abort
from sansio_http import redirect as core_redirect
from sansio_http.compat.flask._globals import (
    _request_var,
    app_context,
    request_context,
)

__all__ = [
    "abort",
    "flash",
    "get_flashed_messages",
    "jsonify",
    "make_response",
    "redirect",
    "send_file",
    "send_from_directory",
    "stream_with_context",
    "url_for",
]

_FLASHES = "_flashes"


def jsonify(*args: Any, **kwargs: Any) -> Response:
    """Return a JSON response of one value, of several (a list), or of keywords (an object).

    Raises:
        TypeError: Both positional and keyword arguments are given.
    """
    if args and kwargs:
        raise TypeError("jsonify() behavior undefined when passed both args and kwargs")
    data: Any = kwargs if not args else args[0] if len(args) == 1 else list(args)
    return JSONResponse(data)


def make_response(*args: Any) -> Response:
    """Make a response of what a view could return, to change it before returning it."""
    app = app_context().app
    if not args:
        return Response(b"", content_type="text/html; charset=utf-8")
    response: Response = app.make_response(args[0] if len(args) == 1 else args)
    return response


def redirect(location: str, code: int = 302, Response: Any = None) -> Response:
    """Return a redirection to ``location`` (relative URLs stay relative, as in Flask)."""
    return core_redirect(location, status=code)


def abort(code: int | Response, description: str | None = None, **kwargs: Any) -> NoReturn:
    """Raise the HTTP error of ``code`` (its description, if given), or answer with a response."""
    core_abort(code, description, **kwargs)


def url_for(
    endpoint: str,
    *,
    _anchor: str | None = None,
    _method: str | None = None,
    _scheme: str | None = None,
    _external: bool | None = None,
    **values: Any,
) -> str:
    """Return the URL of an endpoint; ``static`` takes ``filename=``.

    ``".name"`` names a view of the current request's blueprint. Unknown
    values become the query string.

    Raises:
        LookupError: No rule of that endpoint takes the values.
    """
    url: str = app_context().app.url_for(
        endpoint, _anchor=_anchor, _method=_method, _external=bool(_external or _scheme), **values
    )
    if _scheme is not None:
        url = _scheme + url[url.index(":") :]
    return url


def flash(message: Any, category: str = "message") -> None:
    """Keep a message in the session for the next page (``get_flashed_messages``)."""
    session = request_context().session
    flashes = list(session.get(_FLASHES, []))
    flashes.append([category, message])
    session[_FLASHES] = flashes


def get_flashed_messages(
    with_categories: bool = False, category_filter: Iterable[str] = ()
) -> list[Any]:
    """Return the messages flashed, and take them out of the session.

    Args:
        with_categories: Return ``(category, message)`` pairs.
        category_filter: Only these categories, when given.
    """
    context = request_context()
    flashes = context.flashes
    if flashes is None:
        session = context.session
        stored = session.pop(_FLASHES) if _FLASHES in session else []
        flashes = context.flashes = [(str(c), m) for c, m in stored]
    wanted = set(category_filter)
    if wanted:
        flashes = [pair for pair in flashes if pair[0] in wanted]
    if with_categories:
        return list(flashes)
    return [message for _, message in flashes]


def send_file(
    path_or_file: str | os.PathLike[str] | IO[bytes],
    mimetype: str | None = None,
    as_attachment: bool = False,
    download_name: str | None = None,
    conditional: bool = True,
    etag: bool | str = True,
    last_modified: Any = None,
    max_age: int | Callable[[str | None], int | None] | None = None,
) -> Response:
    """Send a file: a path (relative to the app's folder) or a binary file object.

    A path is sent by the adapter's file machinery (ranges, conditional
    requests); a file object is read whole.

    Raises:
        NotFound: The path is not a regular file (404).
    """
    context = request_context()
    request = context.request._request
    if not isinstance(path_or_file, (str, os.PathLike)):
        data = path_or_file.read()
        name = download_name or os.path.basename(getattr(path_or_file, "name", "") or "")
        response = Response(data, content_type=mimetype or _guess(name))
        if as_attachment or download_name:
            from sansio_http import content_disposition

            response.headers["Content-Disposition"] = content_disposition(
                name or "download", as_attachment=as_attachment
            )
        return response
    path = os.path.join(context.app.root_path, os.fspath(path_or_file))
    try:
        stat = os.stat(path)
    except OSError:
        core_abort(404)
    if not os.path.isfile(path):
        core_abort(404)
    age = max_age(path) if callable(max_age) else max_age
    return file_response(
        path,
        size=stat.st_size,
        mtime=stat.st_mtime,
        content_type=mimetype,
        download_name=download_name,
        as_attachment=as_attachment,
        etag=etag,
        last_modified=last_modified is not False,
        max_age=age,
        request=request if conditional else None,
    )


def _guess(name: str) -> str:
    from sansio_http import guess_content_type

    return guess_content_type(name) if name else "application/octet-stream"


def send_from_directory(directory: str | os.PathLike[str], path: str, **kwargs: Any) -> Response:
    """Send a file of ``directory`` named by an untrusted ``path``.

    The path is joined by :func:`~sansio_http.safe_join`; one that would
    leave the folder, or is not a regular file inside it, is a 404. A symlink
    that leads outside the folder is a 404 too.

    Raises:
        NotFound: As described (404).
    """
    base = os.path.join(app_context().app.root_path, os.fspath(directory))
    joined = safe_join(base, path)
    if joined is None:
        core_abort(404)
    real_base = os.path.realpath(base)
    if os.path.commonpath([real_base, os.path.realpath(joined)]) != real_base:
        core_abort(404)
    return send_file(joined, **kwargs)


def stream_with_context(generator: Iterable[Any] | Callable[..., Iterable[Any]]) -> Any:
    """Keep the request's context for a streamed body pulled after the view returned.

    Takes a generator, or decorates a generator function. Closing the
    stream before its end (a client that leaves) closes the generator at
    once, in the request's context, so its ``finally`` sees ``request``.
    """
    if callable(generator) and not isinstance(generator, Iterator):
        function = generator

        def decorated(*args: Any, **kwargs: Any) -> Any:
            return stream_with_context(function(*args, **kwargs))

        return decorated
    if isinstance(generator, AsyncIterator):
        return generator
    context = contextvars.copy_context()
    if _request_var not in context:
        raise RuntimeError(
            "stream_with_context() can only be used when a request context is active, "
            "such as in a view function."
        )
    iterator = iter(generator)

    def pulled() -> Iterator[Any]:
        try:
            while True:
                try:
                    yield context.run(next, iterator)
                except StopIteration:
                    return
        finally:
            # Closed early (a client gone, a response replaced): the stream's
            # clean-up runs now, in the request's context, as in Flask; not
            # later, from the garbage collector, without it.
            close = getattr(iterator, "close", None)
            if close is not None:
                context.run(close)

    return pulled()
