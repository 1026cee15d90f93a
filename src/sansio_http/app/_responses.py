"""Response making: what a view may return, turned into a Response."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sansio_http.http._fields import HeaderValueError
from sansio_http.messages._json_response import JSONResponse
from sansio_http.messages._response import Response
from sansio_http.messages._response_fields import checked_status

__all__ = ["RESPONSE_CLASSES", "not_a_response", "view_name"]

#: The classes of the responses the App makes itself. PERF: a handler's answer
#: of one of these passes the adapters' check with one set lookup, not a call
#: to isinstance (a JSONResponse is a subclass).
RESPONSE_CLASSES: Final = frozenset({Response, JSONResponse})

_OCTET_STREAM: Final = "application/octet-stream"


class _ResponseMaking:
    """:meth:`make_response`, which an App subclass may override."""

    def make_response(self, result: Any, view: Callable[..., Any] | None = None) -> Response:
        """Turn what a view returned into a Response.

        Accepted: a Response; ``str`` or ``bytes``; a ``dict`` or ``list``
        (JSON); or a ``(body, status)`` or ``(body, status, headers)`` tuple.

        Args:
            result: What the view (or a hook or error handler) returned.
            view: The function that returned it, named in the errors.

        Raises:
            TypeError: Anything else, or a dict or list that JSON cannot
                encode, naming the view by module and qualified name.
            ValueError: A value the response refuses (NaN in JSON, content
                with a 204), naming the view too.
        """
        # NOTE: every mistake names the view; a try costs next to nothing until it
        # catches (nothing at all from Python 3.11), so the common answers keep their speed.
        try:
            # PERF: the most common answers, without the checks below; a dict, the
            # JSON views' answer, before the isinstance call.
            if type(result) is dict:
                try:
                    return JSONResponse(result)
                except TypeError as exc:
                    raise TypeError(_unencodable(view, result, exc)) from exc
            if isinstance(result, Response):
                return result
            if type(result) is str:
                return Response(result)
            return _made(result, view)
        except TypeError as exc:
            if str(exc).startswith(_THE_VIEW):
                raise
            raise TypeError(_refused(view, result, exc)) from exc
        except ValueError as exc:
            # HeaderValueError keeps its type; others (UnicodeEncodeError, whose
            # constructor takes more) become a plain ValueError.
            kind = HeaderValueError if isinstance(exc, HeaderValueError) else ValueError
            raise kind(_refused(view, result, exc)) from exc


def _made(result: Any, view: Callable[..., Any] | None) -> Response:
    status: int | None = None
    headers: Any = None
    if isinstance(result, tuple):
        if len(result) == 2:
            result, status = result
        elif len(result) == 3:
            result, status, headers = result
        else:
            raise TypeError(_bad_return(view, f"a tuple of length {len(result)}"))
        if status is not None:
            # Checked first, so that a wrong status is not taken for what JSON cannot encode.
            status = checked_status(status)
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
        try:
            response = JSONResponse(result, status=status or 200)
        except TypeError as exc:
            raise TypeError(_unencodable(view, result, exc)) from exc
    else:
        raise TypeError(_bad_return(view, "None" if result is None else type(result).__name__))
    if headers:
        response.headers.update(headers)
    return response


_THE_VIEW: Final = "the view"
_FIX: Final = "return a Response, str, bytes, dict or list, or a (body, status[, headers]) tuple"


def view_name(view: object) -> str:
    """Name a view or handler as ``'module.qualname'`` for an error message.

    Args:
        view: A function, method or callable object; None for an unknown one.

    Returns:
        The quoted dotted name, its ``repr`` for an object without a
        qualified name, or ``""`` for None.
    """
    if view is None:
        return ""
    qualname = getattr(view, "__qualname__", None)
    if not isinstance(qualname, str):
        return repr(view)
    module = getattr(view, "__module__", None)
    return f"'{module}.{qualname}'" if isinstance(module, str) else f"'{qualname}'"


def not_a_response(handler: object, result: object) -> TypeError:
    """Return the error for a bare handler that returned no Response.

    A handler given to ``wsgi_app`` or ``asgi_app`` returns a Response: unlike
    an App's view, its ``str``, ``dict`` or tuple is not converted.

    Args:
        handler: The handler, named in the message.
        result: What it returned.
    """
    what = "None" if result is None else type(result).__name__
    return TypeError(
        f"the handler {view_name(handler) or repr(handler)} returned {what}: a handler"
        " returns a Response (JSONResponse for a dict); an App's view may return str,"
        " bytes, dict, list or a tuple instead"
    )


def _the_view(view: Callable[..., Any] | None) -> str:
    name = view_name(view)
    return f"{_THE_VIEW} {name}" if name else _THE_VIEW


def _bad_return(view: Callable[..., Any] | None, what: str) -> str:
    return f"{_the_view(view)} returned {what}: {_FIX}"


def _unencodable(view: Callable[..., Any] | None, data: Any, exc: TypeError) -> str:
    # The JSON encoder's own words name the type it cannot encode.
    return (
        f"{_the_view(view)} returned a {type(data).__name__} that JSON cannot encode: {exc};"
        " convert such values first (a datetime with isoformat(), say), or return a"
        " JSONResponse with a dumps that can"
    )


def _refused(view: Callable[..., Any] | None, result: Any, exc: Exception) -> str:
    """Say which view returned a value that could not become a response, and why."""
    return f"{_the_view(view)} returned {_described(result)}, which cannot be a response: {exc}"


def _described(result: Any) -> str:
    if isinstance(result, tuple):
        return "a (" + ", ".join(type(item).__name__ for item in result) + ") tuple"
    return "None" if result is None else f"a {type(result).__name__}"
