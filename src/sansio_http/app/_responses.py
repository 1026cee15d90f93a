"""Response making: what a view may return, turned into a Response."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sansio_http.messages._json_response import JSONResponse
from sansio_http.messages._response import Response

__all__: list[str] = []

_OCTET_STREAM: Final = "application/octet-stream"


class _ResponseMaking:
    """:meth:`make_response`, which an App subclass may override."""

    def make_response(self, result: Any, view: Callable[..., Any] | None = None) -> Response:
        """Turn what a view returned into a Response.

        Accepted: a Response; ``str`` or ``bytes``; a ``dict`` or ``list``
        (JSON); or a ``(body, status)`` or ``(body, status, headers)`` tuple.

        Raises:
            TypeError: Anything else, naming the view.
        """
        if isinstance(result, Response):
            return result
        # PERF: the two most common other answers, without the checks below.
        if type(result) is dict:
            return JSONResponse(result)
        if type(result) is str:
            return Response(result)
        status: int | None = None
        headers: Any = None
        if isinstance(result, tuple):
            if len(result) == 2:
                result, status = result
            elif len(result) == 3:
                result, status, headers = result
            else:
                raise TypeError(_bad_return(view, "a tuple of length " + str(len(result))))
        if isinstance(result, Response):
            if status is not None:
                result.status = status
            if headers:
                result.headers.update(headers)
            return result
        if isinstance(result, str):
            response = Response(result, status=status or 200)
        elif isinstance(result, bytes):
            # Every response needs a type (wsgiref.validate refuses one
            # without); bytes say nothing more than octet-stream.
            response = Response(result, status=status or 200, content_type=_OCTET_STREAM)
        elif isinstance(result, (dict, list)):
            response = JSONResponse(result, status=status or 200)
        else:
            raise TypeError(_bad_return(view, type(result).__name__))
        if headers:
            response.headers.update(headers)
        return response


def _bad_return(view: Callable[..., Any] | None, what: str) -> str:
    name = getattr(view, "__qualname__", repr(view))
    return (
        f"the view {name} returned {what}; a view returns a Response, str, bytes, "
        "dict, list, or a (body, status[, headers]) tuple"
    )
