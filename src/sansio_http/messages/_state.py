"""``State``: a request's scratch space, read and set as attributes or items.

Each request has its own :class:`State` (``request.state``), so values that
a hook computes for a view, or a view for an ``after_request`` hook, stay
with that request. Under ASGI it starts as a shallow copy of the lifespan
state, as the ASGI specification has servers do for each request.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

__all__ = ["State"]


class State(MutableMapping[str, Any]):
    """A mutable mapping whose keys can also be read and set as attributes.

    ``state.user = user`` and ``state["user"] = user`` set the same value;
    reading a missing attribute raises ``AttributeError`` naming it.

    Args:
        values: The initial values, copied (shallowly).
    """

    __slots__ = ("_values",)

    _values: dict[str, Any]

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        object.__setattr__(self, "_values", dict(values) if values else {})

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"the request state has no value {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self._values[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self._values[name]
        except KeyError:
            raise AttributeError(f"the request state has no value {name!r}") from None

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._values[key] = value

    def __delitem__(self, key: str) -> None:
        del self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"State({self._values!r})"
