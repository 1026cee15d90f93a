"""Error handling: which handler answers an exception, and the last resort.

Handlers are looked up innermost blueprint first, by status code and then by
the exception's classes; what no handler takes is a 500 (or the debug page
for a client on this machine), or propagates when the caller asks for it.
Like the pipeline, each method here is a generator that yields the calls it
needs (:data:`Call`), so that one code path serves both drivers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any

from sansio_http.app._config import AppConfig
from sansio_http.app._debug import is_local, traceback_page
from sansio_http.app._responses import _ResponseMaking
from sansio_http.app._scaffold import ErrorKey, _Scaffold
from sansio_http.http._urls import quote_path
from sansio_http.messages._abort import _ResponseAnswer
from sansio_http.messages._errors import HTTPError, HTTPException, InternalServerError
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.routing import RoutingAnswer

__all__ = ["Call"]

log = logging.getLogger("sansio_http.app")

#: One step of a pipeline: a function and its arguments, which a driver calls
#: (through the bridges) and whose result it sends back.
Call = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class _ErrorHandling(_ResponseMaking):
    """The error handlers' part of dispatch."""

    config: AppConfig

    def _find_handler(
        self, exc: BaseException, scopes: tuple[_Scaffold, ...]
    ) -> Callable[..., Any] | None:
        keys: list[ErrorKey] = []
        if isinstance(exc, RoutingAnswer):
            # A redirect or an OPTIONS answer is not an error, as in Flask.
            return None
        if isinstance(exc, HTTPError):
            if isinstance(exc, _ResponseAnswer):
                # abort(response): the view already chose the answer, as in Flask.
                return None
            keys.append(exc.status)
        keys.extend(type(exc).__mro__)
        # Innermost blueprint first; within a scope, the status code, then
        # the most specific class.
        for scope in reversed(scopes):
            for key in keys:
                handler = scope.error_handlers.get(key)
                if handler is not None:
                    return handler
        return None

    def _call_handler(
        self, request: Request, exc: Exception, scopes: tuple[_Scaffold, ...]
    ) -> Generator[Call, Any, Response | Exception]:
        """Answer ``exc`` with its error handler; return the error left if none did.

        The error left is ``exc`` when no handler takes it or the handler
        raised it again, else what the handler raised (logged).
        """
        handler = self._find_handler(exc, scopes)
        if handler is None:
            return exc
        try:
            result = yield handler, (request, exc), {}
            return self.make_response(result, handler)
        except Exception as second:
            if second is not exc:
                if second.__context__ is None:
                    # The driver called the handler outside any except
                    # block; chain as Python would have, for the traceback.
                    second.__context__ = exc
                log.error("error handler %r failed", handler, exc_info=(type(second), second, None))
            return second

    def _handle_exception(
        self,
        request: Request,
        exc: Exception,
        scopes: tuple[_Scaffold, ...],
        propagate: bool | None,
    ) -> Generator[Call, Any, tuple[Response, Exception | None]]:
        """Answer an exception; return the response and the unhandled exception.

        As in Flask, the handler of the exception's class (or status) comes
        first; an :class:`HTTPError` left unhandled is its own response. Any
        other exception left is unhandled: it propagates if asked, else the
        handler of 500 gets it as an :class:`InternalServerError` whose
        ``original_exception`` it is; without one, the answer is a bare 500
        (or the debug page).
        """
        answer = yield from self._call_handler(request, exc, scopes)
        if isinstance(answer, Response):
            return answer, None
        if isinstance(answer, HTTPException):
            return answer.to_response(request), None
        unhandled = answer
        if propagate or (propagate is None and request.propagate_exceptions):
            raise unhandled
        # SECURITY: the path percent-encoded, as the adapters log it: a
        # decoded %0A would start a log line that the client wrote.
        log.error(
            "unhandled exception in %s %s",
            request.method,
            quote_path(request.path),
            exc_info=(type(unhandled), unhandled, unhandled.__traceback__),
        )
        server_error = InternalServerError(original_exception=unhandled)
        answer = yield from self._call_handler(request, server_error, scopes)
        if isinstance(answer, Response):
            return answer, unhandled
        if isinstance(answer, HTTPError) and answer is not server_error:
            return answer.to_response(request), unhandled
        # SECURITY: the traceback only to a client on this machine that
        # names this machine (see is_local), never to the network.
        if self.config.debug and is_local(request):
            page = traceback_page(unhandled)
            return Response(page, status=500, content_type="text/html; charset=utf-8"), unhandled
        return server_error.to_response(request), unhandled
