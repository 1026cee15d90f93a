"""What an App keeps of each endpoint, and the rule joining of blueprints."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from sansio_http.app._bridges import BLOCKING
from sansio_http.app._scaffold import _Scaffold

__all__ = ["WEBSOCKET_SCHEMES", "Endpoint", "hooked", "join_rule"]

#: The request schemes of a websocket handshake.
WEBSOCKET_SCHEMES: Final = ("ws", "wss")


class Endpoint:
    """What dispatch needs of a rule: its view and the scopes around it.

    Attributes:
        view: The view as registered.
        scopes: The App, then each blueprint around the view, outermost first.
        blueprints: The scopes after the App.
        sync_view: The view as :meth:`App.ensure_sync` converted it.
        async_view: The view as :meth:`App.ensure_async` converted it.
        blocking: The plain function ``async_view`` runs in a thread (the
            default ``ensure_async`` of a ``def`` view), or None.
    """

    # PERF: slots, and the converted views kept here, so that dispatch reads
    # each in one step.
    __slots__ = ("async_view", "blocking", "blueprints", "scopes", "sync_view", "view")

    def __init__(
        self,
        view: Callable[..., Any],
        scopes: tuple[_Scaffold, ...],
        sync_view: Callable[..., Any],
        async_view: Callable[..., Awaitable[Any]],
    ) -> None:
        self.view = view
        self.scopes = scopes
        self.blueprints = scopes[1:]
        self.sync_view = sync_view
        self.async_view = async_view
        self.blocking: Callable[..., Any] | None = getattr(async_view, BLOCKING, None)


def hooked(scopes: tuple[_Scaffold, ...]) -> bool:
    """Whether any of the scopes has a before, after or teardown hook."""
    for scope in scopes:
        if scope.before_request_funcs or scope.after_request_funcs or scope.teardown_request_funcs:
            return True
    return False


def join_rule(prefix: str | None, rule: str) -> str:
    if not prefix:
        return rule
    return prefix.rstrip("/") + "/" + rule.lstrip("/") if rule != "/" else prefix.rstrip("/") + "/"
