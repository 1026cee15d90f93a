"""What a Flask view may return, made into a Response as Flask makes it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any, Final

from sansio_http import Headers, JSONResponse, Response

__all__ = ["HTML", "flask_response"]

#: Flask's default type: a str, bytes or stream a view returns is HTML.
HTML: Final = "text/html; charset=utf-8"


def _headers_like(value: object) -> bool:
    return isinstance(value, (Mapping, Headers, list))


def flask_response(
    result: Any, view: Callable[..., Any] | None, fallback: Callable[..., Response]
) -> Response:
    """Make a Response of a Flask view's result.

    Args:
        result: What the view, hook or error handler returned.
        view: The function, named in errors.
        fallback: The App's own ``make_response``, for what Flask does not differ on.

    Raises:
        TypeError: The view returned None, or something Flask refuses too.
    """
    if isinstance(result, Response):
        return result
    status: Any = None
    headers: Any = None
    if isinstance(result, tuple):
        if len(result) == 3:
            result, status, headers = result
        elif len(result) == 2:
            if _headers_like(result[1]):
                result, headers = result
            else:
                result, status = result
        else:
            raise TypeError(
                "The view function did not return a valid response tuple. The tuple "
                "must have the form (body, status, headers), (body, status), or "
                "(body, headers)."
            )
    if result is None:
        name = getattr(view, "__qualname__", "the view")
        raise TypeError(
            f"The view function for {name!r} did not return a valid response. The "
            "function either returned None or ended without a return statement."
        )
    if isinstance(result, Response):
        response = result
        if status is not None:
            response.status = status
    elif isinstance(result, (str, bytes)):
        response = Response(result, status=200 if status is None else status, content_type=HTML)
    elif isinstance(result, (dict, list)):
        response = JSONResponse(result, status=200 if status is None else status)
    elif isinstance(result, (Iterator, AsyncIterator)):
        response = Response(result, status=200 if status is None else status, content_type=HTML)
    else:
        response = fallback(result if status is None else (result, status), view)
    if headers:
        items = headers.items() if isinstance(headers, Mapping) else headers
        for name, value in items:
            response.headers[name] = value
    return response
