"""The ASGI lifespan protocol: startup and shutdown hooks, and their state.

Startup hooks run once before the server accepts connections and may store
values (a connection pool, settings) in the lifespan *state*, a dict the
server copies into each request's scope (``request.state``). Servers without
the state extension get one dict kept by the application instead.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ._types import Receive, Scope, Send

__all__ = ["Hook", "Lifespan"]

logger = logging.getLogger("sansio_http.asgi")

#: A startup or shutdown hook: called with the lifespan state, sync or async.
Hook = Callable[[dict[str, Any]], "Awaitable[None] | None"]


class Lifespan:
    """Answer the lifespan protocol by running startup and shutdown hooks.

    Startup hooks run in order; the first that raises stops the startup and
    its error becomes ``lifespan.startup.failed``, so the server refuses to
    start. Shutdown hooks all run, in order, even after one fails.

    Args:
        on_startup: Hooks called with the state before serving.
        on_shutdown: Hooks called with the state after serving.
    """

    __slots__ = ("on_shutdown", "on_startup", "state")

    def __init__(self, on_startup: Iterable[Hook] = (), on_shutdown: Iterable[Hook] = ()) -> None:
        self.on_startup = list(on_startup)
        self.on_shutdown = list(on_shutdown)
        #: The state used when the server's lifespan scope has none; None
        #: while the server provides the state itself.
        self.state: dict[str, Any] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the lifespan protocol until the shutdown is answered."""
        state = scope.get("state")
        if state is None:
            state = self.state = {}
        while True:
            message = await receive()
            kind = message["type"]
            if kind == "lifespan.startup":
                error = await _run(self.on_startup, state, stop_at_error=True)
                if error is not None:
                    await send({"type": "lifespan.startup.failed", "message": error})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif kind == "lifespan.shutdown":
                error = await _run(self.on_shutdown, state, stop_at_error=False)
                if error is not None:
                    await send({"type": "lifespan.shutdown.failed", "message": error})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                return


async def _run(hooks: list[Hook], state: dict[str, Any], *, stop_at_error: bool) -> str | None:
    """Call the hooks in order; return the first error's message, if any."""
    first: str | None = None
    for hook in hooks:
        try:
            result = hook(state)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            logger.exception("lifespan hook %r failed", hook)
            first = first or f"{type(exc).__name__}: {exc}"
            if stop_at_error:
                break
    return first
