"""The request being handled, for code that is not handed it.

:data:`current_request` and :data:`g` read a context variable that the
App's drivers set for the time of each request, so they work in sync and
async views alike, under either adapter (the ASGI adapter runs plain
functions with the context copied).
"""

from __future__ import annotations

import contextvars
from typing import Any

from sansio_http.messages._request import Request

__all__ = ["current_request", "g", "request_var"]

#: The request an App is dispatching in this context.
request_var: contextvars.ContextVar[Request] = contextvars.ContextVar("sansio_http.request")


class _CurrentRequest:
    """A stand-in for the request being handled in the current context.

    Attribute access goes to the :class:`~sansio_http.Request` of the view
    running now, in sync and async views alike. Outside a request it raises
    ``RuntimeError``.
    """

    __slots__ = ()

    def _get(self) -> Request:
        try:
            return request_var.get()
        except LookupError:
            raise RuntimeError(
                "current_request is used outside of a request: it only works while an "
                "App dispatches a request (in a view, a hook or an error handler)"
            ) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)

    def __repr__(self) -> str:
        try:
            return f"<current_request {self._get()!r}>"
        except RuntimeError:
            return "<current_request (no request)>"

    def __bool__(self) -> bool:
        return request_var.get(None) is not None


#: The request being handled, for code that is not handed it.
current_request: Any = _CurrentRequest()


class _RequestState:
    """A stand-in for the state of the request being handled (Flask's ``g``).

    Reading or setting an attribute goes to ``current_request.state``: one
    scratch space per request, shared by its hooks, view and error handlers,
    under either adapter. Outside a request it raises ``RuntimeError``.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(_CurrentRequest._get(current_request).state, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(_CurrentRequest._get(current_request).state, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(_CurrentRequest._get(current_request).state, name)

    def __contains__(self, name: str) -> bool:
        return name in _CurrentRequest._get(current_request).state

    def get(self, name: str, default: Any = None) -> Any:
        """Return a value of the request's state, or ``default``."""
        return _CurrentRequest._get(current_request).state.get(name, default)

    def __repr__(self) -> str:
        request = request_var.get(None)
        return f"<g {request.state!r}>" if request is not None else "<g (no request)>"


#: The current request's :class:`~sansio_http.State`, like Flask's ``g``.
g: Any = _RequestState()
