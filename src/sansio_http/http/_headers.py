"""HTTP header fields: the read-only ``Headers`` and the ``MutableHeaders`` of a response.

Both hold fields as ``(name, value)`` pairs of ``bytes``, the form ASGI servers hand over and
the form a response is written in; names compare without regard to case (RFC 9110 §5.1) and
values read as latin-1 text (RFC 9110 §5.5 allows only ISO-8859-1 octets in field values).
Parsing the meaning of individual header values belongs to ``sansio_http.http``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, TypeAlias, TypeVar, overload

from sansio_http.http._fields import (
    HeaderValueError,
    _checked_field,
    _checked_pair,
    _encoded_pair,
    _field_iterator,
    _lookup_key,
    _not_pair,
    _not_text,
    _pair,
    _text,
)

if TYPE_CHECKING:
    from typing_extensions import Self

    # Everything the Headers constructor accepts, as a deferred source may return it.
    _FieldSource: TypeAlias = (
        "Iterable[tuple[bytes, bytes]] | Iterable[tuple[str, str]] | Mapping[str, str] | Headers"
    )

__all__ = ["DeferredHeaders", "HeaderValueError", "Headers", "MutableHeaders"]

_T = TypeVar("_T")

# PERF: the first lookup on fresh headers scans the pairs, which is cheaper than building an
# index when a view reads one field; from the second lookup on, an index from lower-case name
# to first value is built and used. Measured on a 12-field browser request, one scan before
# indexing beat zero, two, three or only scanning for one, five and eight lookups.
_SCANS_BEFORE_INDEX = 1

_MISSING: object = object()


def _pairs_of(
    raw: Iterable[tuple[bytes, bytes]] | Iterable[tuple[str, str]] | Mapping[str, str] | Headers,
) -> Iterable[tuple[str | bytes, str | bytes]]:
    """Return the fields of any accepted input, each meant as a pair of str or bytes."""
    if type(raw) is list:  # PERF: the usual input, before any isinstance() against an ABC
        return raw
    if isinstance(raw, Headers):
        return raw._raw
    if isinstance(raw, Mapping):
        return raw.items()
    return _field_iterator(raw)


def _checked_fields(
    raw: Iterable[tuple[bytes, bytes]] | Iterable[tuple[str, str]] | Mapping[str, str] | Headers,
) -> list[tuple[bytes, bytes]]:
    """Check and encode the fields of any accepted input for sending."""
    if type(raw) is not list and isinstance(raw, Mapping):
        # A mapping's items are pairs by construction.
        return [_checked_field(name, value) for name, value in raw.items()]
    # PERF: a tuple of two, the usual shape, is checked inline; any other shape goes through
    # _checked_pair, which refuses what is no pair (a two-character str, say).
    return [
        _checked_field(*f) if type(f) is tuple and len(f) == 2 else _checked_pair(f)
        for f in _pairs_of(raw)
    ]


class Headers:
    """An immutable, ordered, case-insensitive, multi-valued view of header fields.

    ``Headers`` accepts ASGI raw pairs (an iterable of ``(bytes, bytes)``), text pairs
    (``(str, str)``), a mapping of text, or another ``Headers``. A list or tuple of bytes pairs
    is kept by reference: nothing is copied or decoded until a field is read, so wrapping the
    headers of every request costs next to nothing. Pairs should be all bytes or all text.

    Names are compared case-insensitively and reported in lower case; values are read as
    latin-1 text, so every byte maps to one character and nothing is lost. Raw ``bytes``
    pairs come in through the constructor (and :meth:`MutableHeaders.extend`) and go out
    through :meth:`raw`; every method that takes one name, or one name and one value,
    takes text, and raises ``TypeError`` for anything else, ``bytes`` included (``in``
    is simply false).

    Values are never converted: ``None``, a number or a list where text belongs is a
    ``TypeError`` naming the field and what was given, at the call that gave it (pass
    ``str(value)`` to send a number). Raw ``bytes`` pairs, the form ASGI servers hand over,
    are kept as given without a look at each one, so that wrapping them stays free.

    Args:
        raw: The header fields, in order; ``None`` for none.

    Raises:
        HeaderValueError: A text name or value is not latin-1 text.
        TypeError: ``raw`` is not a mapping or an iterable of ``(name, value)`` pairs
            (a ``str`` is refused), or a text pair holds a name or value that is not
            ``str``.

    Example:
        >>> headers = Headers([(b"accept", b"text/html"), (b"Accept", b"*/*")])
        >>> headers.get("ACCEPT"), headers.get_joined("accept")
        ('text/html', 'text/html, */*')

    Fields kept somewhere else (a WSGI environ, a foreign structure, a message parsed on
    demand) need not be copied up front: :meth:`deferred` takes a function that produces
    them the first time they are needed.
    """

    # NOTE: DeferredHeaders replaces ``_raw`` with a property; keep every read of the fields
    # going through ``self._raw`` so that deferred fields load when first read.
    __slots__ = ("_first", "_lowered", "_raw", "_scans")

    _raw: Sequence[tuple[bytes, bytes]]
    # True when every stored name is known to be lower case already.
    _lowered: bool
    # The lazily built index from lower-case name to first value.
    _first: dict[bytes, bytes] | None
    _scans: int

    def __init__(
        self,
        raw: Iterable[tuple[bytes, bytes]]
        | Iterable[tuple[str, str]]
        | Mapping[str, str]
        | Headers
        | None = None,
    ) -> None:
        self._first = None
        self._scans = 0
        self._lowered = False
        # PERF: the ASGI case first, with no isinstance() against an ABC; the names are lower
        # case per the ASGI spec, but lookups fold case anyway so other callers are safe.
        if type(raw) is list:
            try:
                if not raw or type(raw[0][0]) is bytes:
                    self._raw = raw
                    return
            except (TypeError, LookupError):
                raise _not_pair(raw[0]) from None
        if raw is None:
            self._raw = ()
            return
        if isinstance(raw, Headers):
            # A mutable source may change later; an immutable one is shared as it is. Its
            # fields are read before its flag: reading them loads deferred headers.
            self._raw = list(raw._raw) if isinstance(raw, MutableHeaders) else raw._raw
            self._lowered = raw._lowered
            return
        if isinstance(raw, Mapping):
            items: Sequence[tuple[str | bytes, str | bytes]] = list(raw.items())
        elif isinstance(raw, (list, tuple)):
            items = raw
        else:
            items = list(_field_iterator(raw))
        first: tuple[object, object] | None = items[0] if items else None
        if first is not None and (type(first) is not tuple or len(first) != 2):
            first = _pair(first)  # PERF: only off the usual shape, refusing what is no pair
        if first is None or isinstance(first[0], bytes):
            # NOTE: bytes pairs, as ASGI servers hand them over, are kept as given, unchecked.
            self._raw = items  # type: ignore[assignment]
            return
        try:
            # PERF: text pairs, the common case after bytes, in one comprehension.
            self._raw = [
                (name.encode("latin-1").lower(), value.encode("latin-1"))  # type: ignore[union-attr]
                for name, value in items
            ]
        except (UnicodeEncodeError, AttributeError, TypeError, ValueError):
            # Not latin-1 text, bytes mixed in, or not a pair: redo it pair by pair for a
            # precise error.
            self._raw = [_encoded_pair(field) for field in items]
        self._lowered = True

    @classmethod
    def deferred(cls, source: Callable[[], _FieldSource]) -> Headers:
        """Return read-only headers whose fields ``source`` produces when first needed.

        ``source`` is called once, the first time a method needs the fields, and never if
        none does; it may return anything the constructor accepts. Use it for fields that are
        costly to copy or decode when most requests read only a few of them. To answer some
        lookups without loading every field, subclass :class:`DeferredHeaders` instead.

        Args:
            source: A function of no arguments that returns the header fields.

        Returns:
            Headers that behave exactly like ``Headers(source())``.

        Raises:
            TypeError: Called on :class:`MutableHeaders`, which checks each field as it is
                set and so cannot take its fields later.

        Example:
            >>> calls = []
            >>> def read_fields():
            ...     calls.append(1)
            ...     return [(b"accept", b"text/html")]
            >>> headers = Headers.deferred(read_fields)
            >>> calls
            []
            >>> headers.get("accept"), headers.get("accept-language"), len(calls)
            ('text/html', None, 1)
        """
        if issubclass(cls, MutableHeaders):
            raise TypeError("MutableHeaders check each field when set and cannot defer them")
        return DeferredHeaders(source)

    def _index(self) -> dict[bytes, bytes]:
        raw = self._raw
        # Walking backwards leaves the first value of each name in the index.
        if self._lowered:
            first = {name: value for name, value in reversed(raw)}
        else:
            first = {name.lower(): value for name, value in reversed(raw)}
        self._first = first
        return first

    @overload
    def get(self, name: str) -> str | None: ...
    @overload
    def get(self, name: str, default: _T) -> str | _T: ...
    def get(self, name: str, default: object = None) -> object:
        """Return the first value of the field ``name``, or ``default``.

        Args:
            name: The field name, in any case.
            default: What to return when the field is absent.

        Returns:
            The value as latin-1 text, or ``default``.

        Raises:
            TypeError: ``name`` is not ``str``.
        """
        # PERF: this is the call every request makes several times, so it is kept flat.
        try:
            key = name.encode("latin-1").lower()
        except UnicodeEncodeError:
            return default
        except AttributeError:
            raise _not_text(name) from None
        first = self._first
        if first is not None:
            value = first.get(key)
        elif self._scans >= _SCANS_BEFORE_INDEX:
            value = self._index().get(key)
        else:
            self._scans += 1
            value = None
            if self._lowered:
                for field_name, field_value in self._raw:
                    if field_name == key:
                        value = field_value
                        break
            else:
                # PERF: only a name of the key's length can fold to it, and
                # len() costs less than lower(): most names are skipped by it.
                size = len(key)
                for field_name, field_value in self._raw:
                    if len(field_name) == size and field_name.lower() == key:
                        value = field_value
                        break
        return default if value is None else value.decode("latin-1")

    def getlist(self, name: str) -> list[str]:
        """Return every value of the field ``name``, in order.

        Args:
            name: The field name, in any case.

        Returns:
            The values as latin-1 text; an empty list when the field is absent.
        """
        key = _lookup_key(name)
        if key is None:
            return []
        if self._lowered:
            return [value.decode("latin-1") for field, value in self._raw if field == key]
        return [value.decode("latin-1") for field, value in self._raw if field.lower() == key]

    def get_joined(self, name: str) -> str | None:
        """Return all values of the field ``name`` joined by ``", "``.

        RFC 9110 §5.3 allows a recipient to combine the lines of a list-based field (such as
        Accept or Cache-Control) into one value this way, in order. Do not use it for
        Set-Cookie, whose values may themselves contain commas.

        Args:
            name: The field name, in any case.

        Returns:
            The combined value, or None when the field is absent.
        """
        values = self.getlist(name)
        return ", ".join(values) if values else None

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __len__(self) -> int:
        return len(self._raw)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def keys(self) -> list[str]:
        """Return the lower-case name of every field, in order, repeats included."""
        return [name.lower().decode("latin-1") for name, _ in self._raw]

    def values(self) -> list[str]:
        """Return the value of every field, in order."""
        return [value.decode("latin-1") for _, value in self._raw]

    def items(self) -> list[tuple[str, str]]:
        """Return every field as a ``(lower-case name, value)`` pair of text, in order."""
        return [
            (name.lower().decode("latin-1"), value.decode("latin-1")) for name, value in self._raw
        ]

    def raw(self) -> list[tuple[bytes, bytes]]:
        """Return every field as a ``(lower-case name, value)`` pair of bytes, in order.

        Returns:
            A new list, ready to send as ASGI ``headers`` or to write out.
        """
        if self._lowered:
            return list(self._raw)
        return [(name.lower(), value) for name, value in self._raw]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Headers):
            return NotImplemented
        return self.raw() == other.raw()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.items()!r})"


class DeferredHeaders(Headers):
    """Read-only headers that produce their fields the first time they are needed.

    :meth:`Headers.deferred` builds one around a function. A subclass whose fields live
    somewhere else overrides the protected method ``_load_fields()`` instead of passing a
    ``source``, and may override the read methods it can answer without every field (the
    WSGI adapter's environ view answers ``get`` with one dict lookup). Every method it
    leaves alone sees the fields ``_load_fields()`` returns, called at most once.

    A subclass that promises every name its ``_load_fields()`` returns is lower-case
    ``bytes`` sets the class attribute ``_names_lowered`` to True, which spares ``raw()`` and
    ``getlist()`` folding the names again.

    Args:
        source: A function of no arguments that returns the fields, in any form
            ``Headers`` accepts; ``None`` when a subclass overrides ``_load_fields()``.

    Raises:
        HeaderValueError: On first use, when a text name or value is not latin-1 text.
    """

    __slots__ = ("_loaded", "_source")

    _names_lowered: ClassVar[bool] = False

    def __init__(self, source: Callable[[], _FieldSource] | None = None) -> None:
        self._source = source
        self._loaded: Sequence[tuple[bytes, bytes]] | None = None
        self._first = None
        self._scans = 0
        self._lowered = self._names_lowered

    def _load_fields(self) -> _FieldSource:
        """Return the fields; called at most once, by the first method that needs them.

        Subclasses override it. The default calls the ``source`` given to the constructor.

        Raises:
            TypeError: Neither a ``source`` nor an override was given.
        """
        if self._source is None:
            raise TypeError(f"{type(self).__name__} needs a source or a _load_fields() override")
        return self._source()

    # Read-only on purpose: the fields come from _load_fields() and nothing replaces them.
    @property
    def _raw(self) -> Sequence[tuple[bytes, bytes]]:  # type: ignore[override]
        loaded = self._loaded
        if loaded is None:
            fields = Headers(self._load_fields())
            loaded = self._loaded = fields._raw
            self._lowered = self._lowered or fields._lowered
        return loaded


class MutableHeaders(Headers):
    """Header fields that can be changed, as a response carries them.

    Besides everything ``Headers`` offers, ``headers[name] = value`` replaces every field of
    that name (the new one takes the place of the first), ``del headers[name]`` removes them
    (``KeyError`` when there is none), and the methods below add, remove and merge fields.

    Every name and value is checked when it is set: a name must be an RFC 9110 token and a
    value must be latin-1 text without CR, LF or NUL, so a header block can never be split or
    truncated. Fields are stored encoded, with lower-case names, which makes ``raw()`` cheap.

    Args:
        raw: The initial fields, in any form ``Headers`` accepts.

    Raises:
        HeaderValueError: A name or value cannot be sent.
        TypeError: ``raw`` is not a mapping or an iterable of ``(name, value)`` pairs, or a
            name or value is neither ``str`` nor ``bytes`` (``None``, an ``int``, a list).

    Example:
        >>> headers = MutableHeaders({"Content-Type": "text/plain"})
        >>> headers.add("Vary", "Accept")
        >>> headers.raw()
        [(b'content-type', b'text/plain'), (b'vary', b'Accept')]
    """

    __slots__ = ("_fields",)

    _fields: list[tuple[bytes, bytes]]

    def __init__(
        self,
        raw: Iterable[tuple[bytes, bytes]]
        | Iterable[tuple[str, str]]
        | Mapping[str, str]
        | Headers
        | None = None,
    ) -> None:
        self._first = None
        self._scans = 0
        self._lowered = True
        if raw is None:
            fields: list[tuple[bytes, bytes]] = []
        elif isinstance(raw, MutableHeaders):
            fields = list(raw._fields)  # already checked
        else:
            fields = _checked_fields(raw)
        self._raw = self._fields = fields

    def _changed(self) -> None:
        self._first = None
        self._scans = 0

    def __setitem__(self, name: str, value: str) -> None:
        """Replace every field ``name`` with one field holding ``value``.

        The new field takes the place of the first existing one, or goes last.

        Raises:
            HeaderValueError: The name or value cannot be sent.
            TypeError: The name or value is not ``str``.
        """
        key, data = _checked_field(_text(name), _text(value, "value", name))
        fields = self._fields
        for position, (field, _) in enumerate(fields):
            if field == key:
                fields[position] = (key, data)
                fields[position + 1 :] = [f for f in fields[position + 1 :] if f[0] != key]
                break
        else:
            fields.append((key, data))
        self._changed()

    def add(self, name: str, value: str) -> None:
        """Append a field, keeping any existing fields of the same name.

        Args:
            name: The field name, an RFC 9110 token.
            value: The value, latin-1 text without CR, LF or NUL.

        Raises:
            HeaderValueError: The name or value cannot be sent.
            TypeError: The name or value is not ``str``.
        """
        self._fields.append(_checked_field(_text(name), _text(value, "value", name)))
        self._changed()

    def setdefault(self, name: str, default: str) -> str:
        """Return the first value of ``name``, adding ``default`` if it is absent.

        Raises:
            HeaderValueError: ``default`` had to be added and cannot be sent.
            TypeError: ``default`` had to be added and is not ``str``.
        """
        value = self.get(name)
        if value is None:
            self.add(name, default)
            return default
        return value

    def _remove(self, name: str) -> bytes | None:
        """Remove every field ``name`` and return the first value removed, if any."""
        key = _lookup_key(name)
        fields = self._fields
        found: bytes | None = None
        kept: list[tuple[bytes, bytes]] = []
        for field in fields:
            if field[0] == key:
                if found is None:
                    found = field[1]
            else:
                kept.append(field)
        if found is not None:
            fields[:] = kept
            self._changed()
        return found

    def __delitem__(self, name: str) -> None:
        """Remove every field ``name``; raise KeyError when there is none."""
        if self._remove(name) is None:
            raise KeyError(name)

    def remove(self, name: str) -> None:
        """Remove every field ``name``, if there is any."""
        self._remove(name)

    @overload
    def pop(self, name: str) -> str: ...
    @overload
    def pop(self, name: str, default: _T) -> str | _T: ...
    def pop(self, name: str, default: object = _MISSING) -> object:
        """Remove every field ``name`` and return the first value.

        Args:
            name: The field name, in any case.
            default: What to return when the field is absent.

        Raises:
            KeyError: The field is absent and no default was given.
        """
        value = self._remove(name)
        if value is not None:
            return value.decode("latin-1")
        if default is _MISSING:
            raise KeyError(name)
        return default

    def extend(
        self,
        fields: Iterable[tuple[bytes, bytes]]
        | Iterable[tuple[str, str]]
        | Mapping[str, str]
        | Headers,
    ) -> None:
        """Append fields, keeping the existing ones.

        Args:
            fields: Fields in any form ``Headers`` accepts.

        Raises:
            HeaderValueError: A name or value cannot be sent; no field is added then.
            TypeError: ``fields`` is not fields, or a name or value is neither ``str`` nor
                ``bytes``; no field is added then.
        """
        checked = _checked_fields(fields)
        self._fields.extend(checked)
        self._changed()

    def update(
        self,
        fields: Mapping[str, str]
        | Headers
        | Iterable[tuple[str, str]]
        | Iterable[tuple[bytes, bytes]],
    ) -> None:
        """Replace the fields named in ``fields`` by the values given there.

        A name given several times (by pairs or a ``Headers``) keeps all those values.

        Args:
            fields: Fields in any form ``Headers`` accepts.

        Raises:
            HeaderValueError: A name or value cannot be sent; nothing is changed then.
            TypeError: ``fields`` is not fields, or a name or value is neither ``str`` nor
                ``bytes``; nothing is changed then.
        """
        checked = _checked_fields(fields)
        names = {key for key, _ in checked}
        own = self._fields
        # Each replaced name keeps the position of its first existing field.
        positions: dict[bytes, int] = {}
        kept: list[tuple[bytes, bytes] | None] = []
        for field in own:
            if field[0] in names:
                if field[0] not in positions:
                    positions[field[0]] = len(kept)
                    kept.append(None)
            else:
                kept.append(field)
        placed: dict[int, list[tuple[bytes, bytes]]] = {}
        tail: list[tuple[bytes, bytes]] = []
        for field in checked:
            position = positions.get(field[0])
            if position is None:
                tail.append(field)
            else:
                placed.setdefault(position, []).append(field)
        result: list[tuple[bytes, bytes]] = []
        for position, field_or_gap in enumerate(kept):
            if field_or_gap is None:
                result.extend(placed[position])
            else:
                result.append(field_or_gap)
        own[:] = [*result, *tail]
        self._changed()

    def clear(self) -> None:
        """Remove every field."""
        self._fields.clear()
        self._changed()

    def copy(self) -> Self:
        """Return an independent copy of these fields."""
        new = type(self).__new__(type(self))
        new._first = None
        new._scans = 0
        new._lowered = True
        new._raw = new._fields = list(self._fields)
        return new
