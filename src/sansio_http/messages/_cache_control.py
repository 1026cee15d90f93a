"""A typed ``Cache-Control`` bound to a response's header fields.

:attr:`Response.cache_control <sansio_http.Response.cache_control>` hands
out a :class:`~sansio_http.http.ResponseCacheControl` whose every change,
an attribute set or a change to its ``extensions`` or to a list of field
names, rewrites the ``Cache-Control`` header at once: the value and the
header never disagree. A change the header refuses is undone before its
error goes on. The parser and ``to_header`` live in
:mod:`sansio_http.http`; this module only binds them to the header.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any, Final

from sansio_http.http import (
    MAX_DELTA_SECONDS,
    ResponseCacheControl,
    parse_response_cache_control,
)
from sansio_http.http._headers import MutableHeaders
from sansio_http.http._parsers.tokens import is_token

__all__ = ["parsed_cache_control", "write_cache_control"]

_DIRECTIVES: Final = tuple(item.name for item in fields(ResponseCacheControl))
_DURATIONS: Final = frozenset({"max_age", "s_maxage", "stale_while_revalidate", "stale_if_error"})
_QUALIFIED: Final = frozenset({"no_cache", "private"})
_FLAGS: Final = frozenset(_DIRECTIVES) - _DURATIONS - _QUALIFIED - {"extensions"}


def _checked_names(names: Iterable[object]) -> list[str]:
    checked: list[str] = []
    for name in names:
        if not isinstance(name, str) or not is_token(name):
            raise ValueError(f"a Cache-Control field name is a token, not {name!r}")
        checked.append(name)
    return checked


def _rewrites_header(method: Callable[..., Any]) -> Callable[..., Any]:
    """Make a mutating method of a list or dict rewrite the header after it runs.

    A change the header refuses (a name that is not a token, CR or LF in a
    value) is undone before the error goes on, so the value and the header
    never disagree.
    """

    def rewriting(self: _FieldNames | _Extensions, *args: Any, **kwargs: Any) -> Any:
        before: Any = self._saved()
        result = method(self, *args, **kwargs)
        try:
            self._check()
            if self._owner is not None:
                self._owner._write()
        except BaseException:
            self._restore(before)
            raise
        return result

    return rewriting


class _FieldNames(list[str]):
    """The field names of ``no-cache`` or ``private``; a change rewrites the header."""

    __slots__ = ("_owner",)

    def __init__(
        self,
        names: Iterable[str] = (),
        owner: _LiveCacheControl | None = None,
        *,
        check: bool = True,
    ) -> None:
        super().__init__(_checked_names(names) if check else names)
        self._owner = owner

    def _saved(self) -> list[str]:
        return list(self)

    def _restore(self, saved: list[str]) -> None:
        list.clear(self)
        list.extend(self, saved)

    def _check(self) -> None:
        _checked_names(self)

    __setitem__ = _rewrites_header(list.__setitem__)
    __delitem__ = _rewrites_header(list.__delitem__)
    __iadd__ = _rewrites_header(list.__iadd__)
    __imul__ = _rewrites_header(list.__imul__)
    append = _rewrites_header(list.append)
    extend = _rewrites_header(list.extend)
    insert = _rewrites_header(list.insert)
    remove = _rewrites_header(list.remove)
    pop = _rewrites_header(list.pop)
    clear = _rewrites_header(list.clear)
    sort = _rewrites_header(list.sort)
    reverse = _rewrites_header(list.reverse)


class _Extensions(dict[str, "str | None"]):
    """The other directives by name; a change rewrites the header."""

    __slots__ = ("_owner",)

    def __init__(
        self, *args: Any, owner: _LiveCacheControl | None = None, check: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._owner = owner
        if check:
            self._check()

    def _saved(self) -> dict[str, str | None]:
        return dict(self)

    def _restore(self, saved: dict[str, str | None]) -> None:
        dict.clear(self)
        dict.update(self, saved)

    def _check(self) -> None:
        for name, value in self.items():
            if not isinstance(name, str) or not is_token(name):
                raise ValueError(f"a Cache-Control directive name is a token, not {name!r}")
            if value is not None and not isinstance(value, str):
                raise TypeError(
                    f"the value of the Cache-Control directive {name!r} is a str or None,"
                    f" not {type(value).__name__}"
                )

    __setitem__ = _rewrites_header(dict.__setitem__)
    __delitem__ = _rewrites_header(dict.__delitem__)
    __ior__ = _rewrites_header(dict.__ior__)
    clear = _rewrites_header(dict.clear)
    pop = _rewrites_header(dict.pop)
    popitem = _rewrites_header(dict.popitem)
    setdefault = _rewrites_header(dict.setdefault)
    update = _rewrites_header(dict.update)


class _LiveCacheControl(ResponseCacheControl):
    """A ResponseCacheControl that rewrites a Cache-Control header on each change.

    Not a dataclass of its own: its fields are those of ResponseCacheControl,
    whose ``to_header`` reads them by ``fields()``.
    """

    _headers: MutableHeaders | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_headers":
            object.__setattr__(self, name, value)
            return
        checked = self._checked(name, value)
        before = self.__dict__.get(name)
        object.__setattr__(self, name, checked)
        try:
            self._write()
        except BaseException:
            # The header refused the new value (CR or LF in it): keep the two in step.
            object.__setattr__(self, name, before)
            raise

    def _checked(self, name: str, value: Any) -> Any:
        if name in _DURATIONS:
            if value is None:
                return None
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} is a number of seconds, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"{name} cannot be negative (RFC 9111 §1.2.2), got {value}")
            # RFC 9111 §1.2.2: caches read anything larger as 2**31; so does the parser.
            return min(int(value), MAX_DELTA_SECONDS)
        if name in _FLAGS:
            if not isinstance(value, bool):
                raise TypeError(f"{name} is True or False, not {type(value).__name__}")
            return value
        if name in _QUALIFIED:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) or not isinstance(value, Iterable):
                raise TypeError(f"{name} is True, False or a list of field names, not {value!r}")
            return _FieldNames(value, self)
        if name == "extensions":
            if not isinstance(value, Mapping):
                raise TypeError(f"extensions is a dict, not {type(value).__name__}")
            return _Extensions(value, owner=self)
        raise AttributeError(f"Cache-Control has no directive {name!r}; see ResponseCacheControl")

    def _write(self) -> None:
        headers = self._headers
        if headers is None:
            return
        value = self.to_header()
        if value:
            headers["cache-control"] = value
        else:
            headers.remove("cache-control")

    def _snapshot(self) -> ResponseCacheControl:
        values = {name: getattr(self, name) for name in _DIRECTIVES}
        for name in ("no_cache", "private"):
            if isinstance(values[name], list):
                values[name] = list(values[name])
        values["extensions"] = dict(values["extensions"])
        return ResponseCacheControl(**values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResponseCacheControl):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _DIRECTIVES)

    def __repr__(self) -> str:
        return repr(self._snapshot())

    def __copy__(self) -> ResponseCacheControl:
        # A copy is a plain value, detached from the response.
        return self._snapshot()

    def __deepcopy__(self, memo: dict[int, object]) -> ResponseCacheControl:
        return self._snapshot()


def parsed_cache_control(headers: MutableHeaders) -> ResponseCacheControl:
    """Return the Cache-Control of ``headers``, parsed and bound to them.

    What the parser returns is taken unchecked, so reading never raises,
    whatever the header holds; the checks apply to changes.
    """
    parsed = parse_response_cache_control(headers.get_joined("cache-control"))
    live = _LiveCacheControl.__new__(_LiveCacheControl)
    for name in _DIRECTIVES:
        value = getattr(parsed, name)
        if name == "extensions":
            value = _Extensions(value, owner=live, check=False)
        elif isinstance(value, list):
            value = _FieldNames(value, live, check=False)
        object.__setattr__(live, name, value)
    live._headers = headers
    return live


def write_cache_control(values: ResponseCacheControl, headers: MutableHeaders) -> None:
    """Write ``values`` as the Cache-Control of ``headers``, or remove it if empty.

    Raises:
        TypeError: A directive has the wrong type.
        ValueError: A duration is negative, or a name is not a token.
        HeaderValueError: A value holds CR, LF or NUL.
    """
    live = _LiveCacheControl(**{name: getattr(values, name) for name in _DIRECTIVES})
    live._headers = headers
    live._write()
