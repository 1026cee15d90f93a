"""Proactive negotiation: ``Accept`` and its ``-Language``, ``-Charset``, ``-Encoding``.

RFC 9110 §12.5 gives each a list of ranges with optional weights. One class
per header knows how its ranges match an offer; the shared base sorts the
ranges best first, decides which range rates an offer (the most specific
one, RFC 9110 §12.5.1) and picks the best of the server's offers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Iterable, Iterator
from typing import Final, TypeVar, cast, overload

from sansio_http.http._parsers.tokens import charset_name, split_quoted, unquote

_QVALUE_RE: Final = re.compile(r"[0-9]{0,5}(?:\.[0-9]{0,5})?")
# RFC 9110 §12.4.2: the smallest weight a qvalue can express.
_LEAST_QUALITY: Final = 0.001

_Key = Hashable
# MIMEAccept's comparable form: type, subtype and the parameters it names.
_Media = tuple[str, str, frozenset[tuple[str, str]]]
_NO_MATCH: Final = (-1,)
# LanguageAccept: what a range matched by RFC 4647 §3.4 lookup (a prefix of the range equal
# to the offer) weighs. Above "*" (0, 0) and below any range that covers the offer (1, n).
_FALLBACK: Final = (1, -1)
_DIRECT: Final = (1, 0)


def _canonical(value: str) -> str:
    """Return a range or offer as it is compared: ``"A ; b = 1"`` gives ``"a;b=1"``.

    Lower case, no blanks around ``;`` and ``=``, quoted parameter values unquoted
    (RFC 9110 §5.6.6 makes the two forms equivalent) and parameters sorted, so
    that a value and its parameters match the same text however it is spaced.
    An empty string when nothing precedes the parameters.
    """
    value = value.strip().lower()
    if ";" not in value:
        return value
    first, *params = split_quoted(value, ";")
    first = first.strip()
    if not first:
        return ""
    pairs = []
    for param in params:
        name, equals, text = param.partition("=")
        name = name.strip()
        if name:
            pairs.append(f"{name}={unquote(text.strip())}" if equals else name)
    return ";".join([first, *sorted(pairs)])


def _truncations(tag: str) -> Iterator[str]:
    """Yield the shorter ranges RFC 4647 §3.4 lookup falls back to, longest first.

    ``zh-hant-cn-x-a-b`` gives ``zh-hant-cn-x-a``, ``zh-hant-cn``, ``zh-hant`` and
    ``zh``: each step drops the last subtag, and a single-character subtag (an
    extension or private-use singleton) left at the end goes with it.
    """
    subtags = tag.split("-")
    while len(subtags) > 1:
        subtags.pop()
        if len(subtags) > 1 and len(subtags[-1]) == 1:
            subtags.pop()
        yield "-".join(subtags)


def _qvalue(text: str) -> float | None:
    """Read a weight, or None when it is not a number from 0 to 1."""
    text = text.strip()
    if text in {"", "."} or _QVALUE_RE.fullmatch(text) is None:
        return None
    quality = float(text)
    return round(quality, 3) if quality <= 1 else None


class Accept:
    """The ranges of an ``Accept``-style header with their weights.

    Iterating gives ``(value, quality)`` pairs best first (ties keep header
    order), with each value as written minus its weight. ``offer in accept``
    is true when :meth:`quality` is above zero.

    An ``Accept`` without ranges means the header was absent or held nothing
    valid: every offer is then acceptable with quality 1, since a request
    without the header accepts anything (RFC 9110 §12.5.1).

    This base class compares values case-insensitively, with ``*`` matching
    any offer; the subclasses know the rules of their header.

    Args:
        items: ``(value, quality)`` pairs; values that are not valid ranges
            for this header are dropped.
    """

    def __init__(self, items: Iterable[tuple[str, float]] = ()) -> None:
        ranked = sorted(items, key=lambda item: -item[1])
        self._items: list[tuple[str, float]] = []
        self._ranges: list[tuple[_Key, tuple[int, ...], float]] = []
        for value, quality in ranked:
            key = self._range_key(value)
            if key is not None:
                self._items.append((value, quality))
                self._ranges.append((key, self._specificity(key), quality))

    # Hooks for the subclasses.

    def _range_key(self, value: str) -> _Key | None:
        """Return the comparable form of a range, or None if it is invalid."""
        return _canonical(value) or None

    def _offer_key(self, offer: str) -> _Key | None:
        """Return the comparable form of an offer, or None if it is invalid."""
        return self._range_key(offer)

    def _specificity(self, key: _Key) -> tuple[int, ...]:
        """Rank a range: a more specific one overrides a broader one."""
        return (key != "*",)

    def _matches(self, key: _Key, offer: _Key) -> bool:
        """Tell whether the range ``key`` covers ``offer``."""
        return key in {"*", offer}

    def _unlisted_quality(self, offer: _Key) -> float:
        """Return the quality of an offer that no range covers."""
        return 0.0

    # Matching.

    def _rate(self, offer: str) -> tuple[float, tuple[int, ...]]:
        """Return the quality of ``offer`` and the specificity that set it."""
        key = self._offer_key(offer)
        if key is None:
            return 0.0, _NO_MATCH
        if not self._ranges:
            return 1.0, _NO_MATCH
        best: tuple[float, tuple[int, ...]] = (self._unlisted_quality(key), _NO_MATCH)
        for range_key, specificity, quality in self._ranges:
            if specificity > best[1] and self._matches(range_key, key):
                best = (quality, specificity)
        return best

    def quality(self, offer: str) -> float:
        """Return the quality the client gives ``offer``, 0 if unacceptable.

        The most specific range that covers the offer decides (RFC 9110
        §12.5.1): with ``text/*;q=0.5, text/html``, ``text/html`` gets 1.
        """
        return self._rate(offer)[0]

    def best_match(self, offers: Iterable[str], default: str | None = None) -> str | None:
        """Return the offer the client prefers, or ``default`` if none fits.

        A higher quality wins; between equal qualities, the offer rated by the
        more specific range wins (``text/html`` over ``text/*`` over
        ``*/*``); after that, the earlier offer. Offers with quality 0 are
        never chosen.

        Args:
            offers: What the server can send, in its own order of preference.
            default: Returned when no offer is acceptable.
        """
        result = default
        best: tuple[float, tuple[int, ...]] = (0.0, _NO_MATCH)
        for offer in offers:
            rating = self._rate(offer)
            if rating[0] > 0 and (result is default or rating > best):
                result, best = offer, rating
        return result

    @property
    def best(self) -> str | None:
        """The client's favourite value, or None if it accepts none."""
        if self._items and self._items[0][1] > 0:
            return self._items[0][0]
        return None

    def to_header(self) -> str:
        """Return the ranges as a header value, best first."""
        return ", ".join(
            value if quality == 1 else f"{value};q={quality:g}" for value, quality in self._items
        )

    def __contains__(self, offer: object) -> bool:
        return isinstance(offer, str) and self.quality(offer) > 0

    def __iter__(self) -> Iterator[tuple[str, float]]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Accept):
            return NotImplemented
        return type(self) is type(other) and self._items == other._items

    def __hash__(self) -> int:
        return hash((type(self), tuple(self._items)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._items!r})"


class MIMEAccept(Accept):
    """The ``Accept`` header: media ranges such as ``text/*;level=1``.

    A range matches when its type and subtype are equal or ``*`` and every
    parameter it names is on the offer with an equal value (names and values
    compared case-insensitively). A lone ``*`` reads as ``*/*``, as sent by
    older Java clients.
    """

    def _range_key(self, value: str) -> _Key | None:
        if len(value) > _MAX_CACHED_LENGTH:
            return _media_key.__wrapped__(value)
        return _media_key(value)

    def _specificity(self, key: _Key) -> tuple[int, ...]:
        kind, subtype, params = cast(_Media, key)
        return (kind != "*", subtype != "*", len(params))

    def _matches(self, key: _Key, offer: _Key) -> bool:
        kind, subtype, params = cast(_Media, key)
        offer_kind, offer_subtype, offer_params = cast(_Media, offer)
        return (
            kind in {"*", offer_kind} and subtype in {"*", offer_subtype} and params <= offer_params
        )


class LanguageAccept(Accept):
    """The ``Accept-Language`` header, matched by RFC 4647 filtering, then lookup.

    A range covers a tag equal to it or starting with it plus ``-``,
    case-insensitively (basic filtering, RFC 4647 §3.3.1): ``en`` covers
    ``en-GB``. ``*`` covers any tag, and ``_`` reads as ``-`` in ranges and
    offers (``en_GB`` is a common locale spelling).

    An offer that no range covers falls back as RFC 4647 §3.4 lookup does: a
    more specific range is shortened one subtag at a time, and an offer equal
    to one of its prefixes gets that range's quality. With ``en-US``, the
    offer ``en`` is acceptable with quality 1 (``en-GB`` is not: the prefix
    must equal the offer). The fallback ranks below every range that covers
    the offer, so ``en-US`` beats ``en`` among equal qualities and an explicit
    ``en;q=0`` still refuses ``en``; it ranks above ``*``, and a range with
    quality 0 never lends its quality to a prefix (refusing ``en-US`` says
    nothing about ``en``).

    Example:
        >>> accept = parse_accept_header("en-US, fr;q=0.5", LanguageAccept)
        >>> accept.quality("en"), accept.best_match(["fr", "en"])
        (1.0, 'en')
    """

    def _range_key(self, value: str) -> _Key | None:
        return _canonical(value).replace("_", "-") or None

    def _specificity(self, key: _Key) -> tuple[int, ...]:
        return (key != "*", str(key).count("-"))

    def _matches(self, key: _Key, offer: _Key) -> bool:
        # RFC 4647 §3.3.1: a prefix match must end at a subtag boundary.
        return key in {"*", offer} or str(offer).startswith(f"{key}-")

    def _rate(self, offer: str) -> tuple[float, tuple[int, ...]]:
        rating = super()._rate(offer)
        if rating[1] >= _DIRECT or not self._ranges:
            return rating
        key = self._offer_key(offer)
        if key is None:
            return rating
        tag = str(key)
        # The ranges are ranked best first, so the first one to fall back wins.
        for range_key, _, quality in self._ranges:
            if quality > 0 and range_key != "*" and tag in _truncations(str(range_key)):
                return quality, _FALLBACK
        return rating


class CharsetAccept(Accept):
    """The ``Accept-Charset`` header; aliases compare equal (``utf8``).

    Names are compared case-insensitively, with ``_`` read as ``-`` and the
    common aliases folded: ``latin-1`` and ``ISO-8859-1`` are one charset.
    Python's codec registry is not consulted, since it keeps every unknown
    name it is asked about.
    """

    def _range_key(self, value: str) -> _Key | None:
        return charset_name(_canonical(value)) or None


class EncodingAccept(Accept):
    """The ``Accept-Encoding`` header, with the RFC 9110 ``identity`` rule.

    ``identity`` (no encoding) stays acceptable unless ``identity;q=0`` or
    ``*;q=0`` excludes it (RFC 9110 §12.5.3); if no range names it, it gets
    the least weight (0.001), so any listed coding is preferred. ``x-gzip``
    and ``x-compress`` read as ``gzip`` and ``compress`` (RFC 9110 §8.4.1).
    """

    _ALIASES: Final = {"x-gzip": "gzip", "x-compress": "compress"}

    def _range_key(self, value: str) -> _Key | None:
        name = _canonical(value)
        return self._ALIASES.get(name, name) or None

    def _unlisted_quality(self, offer: _Key) -> float:
        return _LEAST_QUALITY if offer == "identity" else 0.0


A = TypeVar("A", bound=Accept)


# PERF: servers offer the same few types on every request and browsers send the
# same few ranges, so parsing each once pays. The cache holds at most 256 values
# of at most 100 characters, so hostile headers cannot make it grow.
_MAX_CACHED_LENGTH: Final = 100


@functools.lru_cache(maxsize=256)
def _media_key(value: str) -> _Media | None:
    """Return ``(type, subtype, params)`` of a media range, or None."""
    media, *params = value.split(";")
    kind, slash, subtype = media.strip().lower().partition("/")
    if not slash:
        if kind != "*":
            return None
        subtype = "*"
    if not kind or not subtype or (kind == "*" and subtype != "*"):
        return None
    pairs = []
    for param in params:
        name, equals, text = param.partition("=")
        if equals:
            pairs.append((name.strip().lower(), text.strip().strip('"').lower()))
    return kind, subtype, frozenset(pairs)


def _parse_items(value: str) -> list[tuple[str, float]]:
    items = []
    quoted = '"' in value
    for item in split_quoted(value, ",") if quoted else value.split(","):
        pieces = split_quoted(item, ";") if quoted else item.split(";")
        kept = [pieces[0].strip()]
        quality: float | None = 1.0
        for piece in pieces[1:]:
            name, _, text = piece.partition("=")
            # RFC 9110 §12.4.2: parameters after the weight are extensions,
            # which no Accept header defines; they are dropped with it.
            if name.strip().lower() == "q":
                quality = _qvalue(text)
                break
            kept.append(piece.strip())
        if quality is not None and kept[0]:
            items.append((";".join(kept), quality))
    return items


@overload
def parse_accept_header(value: str | None) -> Accept: ...
@overload
def parse_accept_header(value: str | None, cls: type[A]) -> A: ...
def parse_accept_header(value: str | None, cls: type[Accept] = Accept) -> Accept:
    """Parse an ``Accept``-style header into ``cls``.

    Items with a weight that is not a number from 0 to 1 are skipped, as are
    ranges that ``cls`` finds invalid. A present ``Accept-Encoding`` that
    names no valid coding (empty, ``","``, or malformed) means "``identity``
    only" (RFC 9110 §12.5.3); for the other headers an absent, empty or
    wholly malformed value gives an empty ``cls``, which accepts everything.

    Args:
        value: The header value (all field lines joined by ``", "``), or None.
        cls: :class:`Accept` or one of its subclasses, such as
            :class:`MIMEAccept` for the ``Accept`` header.

    Returns:
        A ``cls`` instance. Never raises.
    """
    if value is None:
        return cls()
    accept = cls(_parse_items(value))
    if not accept and issubclass(cls, EncodingAccept):
        # RFC 9110 §12.5.3: an empty Accept-Encoding asks for no coding. A list of empty
        # elements ("," is two empty field lines joined, §5.6.1) or of invalid ones says
        # no more than that: identity, which every client reads, not "anything".
        return cls([("identity", 1.0)])
    return accept
