"""Multidicts: mappings that keep every value given for a key, for query strings and forms.

``ImmutableMultiDict`` is what a request exposes (``Request.args``, decoded forms);
``MultiDict`` is the mutable form for building one. Both keep keys in first-seen order and
the values of each key in the order they came.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, overload

from sansio_http.http._compiled import mypyc_attr

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ImmutableMultiDict", "MultiDict"]

K = TypeVar("K")
V = TypeVar("V")
_T = TypeVar("_T")
_D = TypeVar("_D")

_MISSING: object = object()


@mypyc_attr(allow_interpreted_subclasses=True)
class _MultiDictBase(Generic[K, V]):
    """The reading half shared by both multidicts."""

    __slots__ = ("_data",)

    #: What ``md[key]`` raises for an absent key, called with the key: ``KeyError``
    #: here. A subclass may name a ``KeyError`` subclass that says more, as the
    #: request's query arguments and forms do with a 400 error.
    key_error: ClassVar[type[KeyError]] = KeyError

    # Invariant: every list holds at least one value.
    _data: dict[K, list[V]]

    def __init__(
        self, data: Mapping[K, V] | _MultiDictBase[K, V] | Iterable[tuple[K, V]] | None = None
    ) -> None:
        lists: dict[K, list[V]] = {}
        if isinstance(data, _MultiDictBase):
            if isinstance(data, ImmutableMultiDict) and isinstance(self, ImmutableMultiDict):
                # PERF: neither can change, so they share their lists; a subclass that only
                # changes the error of a missing key (a request's form) costs no copy.
                self._data = data._data
                return
            lists = {key: list(values) for key, values in data._data.items()}
        elif isinstance(data, Mapping):
            lists = {key: [value] for key, value in data.items()}
        elif data is not None:
            for key, value in data:
                values = lists.get(key)
                if values is None:
                    lists[key] = [value]
                else:
                    values.append(value)
        self._data = lists

    def __getitem__(self, key: K) -> V:
        try:
            return self._data[key][0]
        except KeyError:
            raise self.key_error(key) from None

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: _D) -> V | _D: ...
    @overload
    def get(self, key: K, default: None = None, *, type: Callable[[V], _T]) -> _T | None: ...
    @overload
    def get(self, key: K, default: _D, type: Callable[[V], _T]) -> _T | _D: ...
    def get(
        self, key: K, default: object = None, type: Callable[[V], object] | None = None
    ) -> object:
        """Return the first value of ``key``, optionally converted, or ``default``.

        Args:
            key: The key to look up.
            default: What to return when the key is absent or its value does not convert.
            type: A callable such as ``int`` applied to the value; a ``ValueError`` or
                ``TypeError`` it raises gives ``default``.

        Returns:
            The (converted) first value, or ``default``.
        """
        values = self._data.get(key)
        if values is None:
            return default
        if type is None:
            return values[0]
        try:
            return type(values[0])
        except (ValueError, TypeError):
            return default

    @overload
    def getlist(self, key: K) -> list[V]: ...
    @overload
    def getlist(self, key: K, type: Callable[[V], _T]) -> list[_T]: ...
    def getlist(self, key: K, type: Callable[[V], object] | None = None) -> list[Any]:
        """Return every value of ``key``, optionally converted.

        Args:
            key: The key to look up.
            type: A callable applied to each value; values for which it raises
                ``ValueError`` or ``TypeError`` are left out.

        Returns:
            A new list, empty when the key is absent.
        """
        values = self._data.get(key, ())
        if type is None:
            return list(values)
        converted: list[Any] = []
        for value in values:
            try:
                converted.append(type(value))
            except (ValueError, TypeError):
                continue
        return converted

    @overload
    def items(self, multi: Literal[False] = False) -> list[tuple[K, V]]: ...
    @overload
    def items(self, multi: bool) -> list[tuple[K, V]]: ...
    def items(self, multi: bool = False) -> list[tuple[K, V]]:
        """Return ``(key, value)`` pairs: the first value of each key, or all of them.

        Args:
            multi: Give one pair per value, grouped by key, instead of one per key.
        """
        if multi:
            return [(key, value) for key, values in self._data.items() for value in values]
        return [(key, values[0]) for key, values in self._data.items()]

    def keys(self) -> list[K]:
        """Return the distinct keys, in first-seen order."""
        return list(self._data)

    def values(self) -> list[V]:
        """Return the first value of each key."""
        return [values[0] for values in self._data.values()]

    def lists(self) -> list[tuple[K, list[V]]]:
        """Return each key with a new list of all its values."""
        return [(key, list(values)) for key, values in self._data.items()]

    @overload
    def to_dict(self, flat: Literal[True] = True) -> dict[K, V]: ...
    @overload
    def to_dict(self, flat: Literal[False]) -> dict[K, list[V]]: ...
    def to_dict(self, flat: bool = True) -> dict[K, V] | dict[K, list[V]]:
        """Return a plain dict of the first values, or of all values when not ``flat``."""
        if flat:
            return {key: values[0] for key, values in self._data.items()}
        return {key: list(values) for key, values in self._data.items()}

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _MultiDictBase):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # A private subclass (the one a request uses) shows the public class it extends.
        cls = next(c for c in type(self).__mro__ if not c.__name__.startswith("_"))
        return f"{cls.__name__}({self.items(multi=True)!r})"

    def copy(self) -> Self:
        """Return a copy of the same class; changing a mutable copy never changes this one."""
        return type(self)(self)


@mypyc_attr(allow_interpreted_subclasses=True)
class ImmutableMultiDict(_MultiDictBase[K, V]):
    """A read-only mapping from each key to one or more values.

    Built from a mapping (one value per key), another multidict, or ``(key, value)`` pairs,
    whose repeated keys gather their values in order. ``md[key]`` and ``get`` give the first
    value, ``getlist`` all of them; ``len()`` counts distinct keys.

    An absent key makes ``md[key]`` raise :attr:`key_error`, a ``KeyError``. The
    multidicts of a request (``Request.args``, ``cookies`` and the decoded form and files)
    raise :class:`~sansio_http.BadRequestKeyError` instead, a ``KeyError`` that is also a
    400 error, so a view that indexes a field the client left out answers 400, not 500.
    ``get()`` and ``in`` never raise.

    Args:
        data: The initial contents; ``None`` for none.

    Example:
        >>> args = ImmutableMultiDict([("tag", "a"), ("page", "2"), ("tag", "b")])
        >>> args["tag"], args.getlist("tag"), args.get("page", type=int)
        ('a', ['a', 'b'], 2)
    """

    __slots__ = ()


@mypyc_attr(allow_interpreted_subclasses=True)
class MultiDict(_MultiDictBase[K, V]):
    """A mutable mapping from each key to one or more values.

    Reads like ``ImmutableMultiDict``; ``md[key] = value`` replaces every value of the key
    while ``add`` and ``update`` append.

    Args:
        data: The initial contents; ``None`` for none.

    Example:
        >>> form = MultiDict({"name": "Ada"})
        >>> form.add("lang", "en")
        >>> form.add("lang", "fr")
        >>> form.getlist("lang")
        ['en', 'fr']
    """

    __slots__ = ()

    def __setitem__(self, key: K, value: V) -> None:
        self._data[key] = [value]

    def __delitem__(self, key: K) -> None:
        if self._data.pop(key, None) is None:
            raise self.key_error(key)

    def add(self, key: K, value: V) -> None:
        """Append ``value`` to the values of ``key``."""
        values = self._data.get(key)
        if values is None:
            self._data[key] = [value]
        else:
            values.append(value)

    def setlist(self, key: K, values: Iterable[V]) -> None:
        """Replace the values of ``key``; an empty iterable removes the key."""
        new = list(values)
        if new:
            self._data[key] = new
        else:
            self._data.pop(key, None)

    def setdefault(self, key: K, default: V) -> V:
        """Return the first value of ``key``, setting it to ``default`` if absent."""
        values = self._data.get(key)
        if values is None:
            self._data[key] = [default]
            return default
        return values[0]

    @overload
    def pop(self, key: K) -> V: ...
    @overload
    def pop(self, key: K, default: V | _T) -> V | _T: ...
    def pop(self, key: K, default: object = _MISSING) -> object:
        """Remove ``key`` and return its first value.

        Args:
            key: The key to remove.
            default: What to return when the key is absent.

        Raises:
            KeyError: The key is absent and no default was given (:attr:`key_error`).
        """
        values = self._data.pop(key, None)
        if values is not None:
            return values[0]
        if default is _MISSING:
            raise self.key_error(key)
        return default

    def poplist(self, key: K) -> list[V]:
        """Remove ``key`` and return all its values; an empty list when absent."""
        return self._data.pop(key, [])

    def update(self, other: Mapping[K, V] | _MultiDictBase[K, V] | Iterable[tuple[K, V]]) -> None:
        """Add the values of ``other`` to those already held, keeping both.

        Args:
            other: A mapping, a multidict (all its values) or ``(key, value)`` pairs.
        """
        if isinstance(other, _MultiDictBase):
            pairs: Iterable[tuple[K, V]] = other.items(multi=True)
        elif isinstance(other, Mapping):
            pairs = other.items()
        else:
            pairs = other
        for key, value in pairs:
            self.add(key, value)

    def clear(self) -> None:
        """Remove every key."""
        self._data.clear()
