"""``abort``: stop a view with the error of a status, or with a response.

``abort(404)`` raises the :class:`~sansio_http.HTTPError` subclass of the
status (one made and kept for an uncommon one); ``abort(response)`` raises
an error whose answer is that response, untouched, which the App's error
handlers leave alone.
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

from sansio_http.http._status import reason_phrase
from sansio_http.messages._errors import _BY_STATUS, HTTPError, _Negotiating
from sansio_http.messages._response import Response

__all__ = ["abort"]


def _error_class(status: int) -> type[HTTPError]:
    cls = _BY_STATUS.get(status)
    if cls is None:
        if not 400 <= status <= 599:
            raise ValueError(f"abort() needs an error status (400-599), got {status}")
        # An uncommon code (say 451) gets a plain subclass, made once and kept: at most
        # 200 codes exist, so the table stays small.
        code = status

        class _Uncommon(HTTPError):
            status = code
            description = reason_phrase(code) + "."

        _Uncommon.__name__ = _Uncommon.__qualname__ = f"HTTPError{code}"
        cls = _Uncommon
        _BY_STATUS[status] = cls
    return cls


class _ResponseAnswer(HTTPError):
    """An error whose answer is a response the application built: ``abort(response)``.

    The adapters and the App answer every :class:`HTTPError` with its
    :meth:`to_response`, which here is the response itself: its status,
    headers and body, untouched.
    """

    def __init__(self, response: Response) -> None:
        self.args = (response,)
        self.response = response

    def to_response(self, request: _Negotiating | None = None) -> Response:
        """Return the response given to ``abort``, whatever the request accepts."""
        return self.response


# One class per status, so that ``status`` stays a class attribute that error handlers
# and logs read as they do for any HTTPError: at most 500 classes, made once each.
_ANSWER_CLASSES: Final[dict[int, type[_ResponseAnswer]]] = {}


def _answer_class(status: int) -> type[_ResponseAnswer]:
    cls = _ANSWER_CLASSES.get(status)
    if cls is None:
        code = status

        class _Answer(_ResponseAnswer):
            status = code
            description = reason_phrase(code) + "."

        _Answer.__name__ = _Answer.__qualname__ = f"ResponseAnswer{code}"
        cls = _ANSWER_CLASSES[status] = _Answer
    return cls


def abort(status: int | Response, detail: str | None = None, **kwargs: Any) -> NoReturn:
    """Raise the :class:`HTTPError` subclass for ``status``, or answer with a response.

    ``abort(response)`` stops a view, a hook or a handler with a response it
    built, of any status (``abort(redirect(url))`` works too): the exception
    is an :class:`HTTPError` of the response's status whose
    :meth:`~HTTPError.to_response` returns that very response. As for any
    HTTPError, an error handler the App has for that status sees it first;
    without one, the response is the answer.

    Args:
        status: An error status from 400 to 599, or a
            :class:`~sansio_http.Response`. A code without its own class
            raises a plain :class:`HTTPError` subclass with that code.
        detail: Text for the client; not with a response.
        **kwargs: Keyword arguments of that class, such as ``allowed`` for
            405 or ``headers``; not with a response.

    Raises:
        HTTPError: Always, the subclass for ``status``.
        ValueError: If ``status`` is an int not between 400 and 599.
        TypeError: A response is given with ``detail`` or keyword arguments.
    """
    if isinstance(status, Response):
        if detail is not None or kwargs:
            raise TypeError(
                "abort(response) sends the response as it is and takes no detail or"
                " keyword arguments: set them on the response (its body and headers)"
            )
        raise _answer_class(status.status)(status)
    raise _error_class(status)(detail, **kwargs)
