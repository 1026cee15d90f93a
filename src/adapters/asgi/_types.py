"""The shapes of ASGI 3: scopes, messages and the receive and send callables.

The ASGI specification defines these as plain dicts and coroutine functions;
the aliases and protocols here only name them for type checking. Nothing in
this module runs at request time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

__all__ = ["ASGIApp", "Message", "Receive", "Scope", "Send"]

#: The connection scope: ``type``, ``path``, ``headers``... (ASGI 3).
Scope = MutableMapping[str, Any]

#: One event dict passed to ``send`` or returned by ``receive``.
Message = MutableMapping[str, Any]


class Receive(Protocol):
    """The ``receive`` awaitable callable a server hands an application."""

    def __call__(self) -> Awaitable[Message]:
        """Return the next event from the client or the server."""


class Send(Protocol):
    """The ``send`` awaitable callable a server hands an application."""

    def __call__(self, message: Message, /) -> Awaitable[None]:
        """Pass one event to the server."""


#: An ASGI 3 application.
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
