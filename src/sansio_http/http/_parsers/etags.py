"""Entity tags: ``ETag`` values, ``If-Match`` / ``If-None-Match`` and ``If-Range``.

RFC 9110 §8.8.3 writes a tag as ``"opaque"`` (strong) or ``W/"opaque"``
(weak). The names here take and return the opaque part without quotes; the
conditional-request logic that compares them lives with the responses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sansio_http.http._parsers.dates import parse_date

# RFC 9110 §8.8.3: etagc = "!" / %x23-7E / obs-text; a tag has no escapes.
_ETAGC_RE: Final = re.compile(r"[\x21\x23-\x7e\x80-\xff]*")
# A quoted tag (with an optional W/), or a run of other text, which we keep as
# a strong tag because some clients send tags unquoted. A quote that is never
# closed ends the scan: `[^"]*` stops at the next quote, so this is linear.
_ITEM_RE: Final = re.compile(r'([Ww]/)?"([^"]*)"|([^\s,"]+)')


class ETags:
    """The entity tags of an ``If-Match`` or ``If-None-Match`` header.

    ``tag in etags`` is the weak comparison (:meth:`contains_weak`), the one
    ``If-None-Match`` uses (RFC 9110 §13.1.2). Iterating gives the strong
    tags, then the weak ones, without quotes.

    Args:
        strong: Opaque parts of strong tags.
        weak: Opaque parts of weak tags.
        star: Whether the header was ``*``, which matches any tag.
    """

    def __init__(
        self, strong: Iterable[str] = (), weak: Iterable[str] = (), *, star: bool = False
    ) -> None:
        self._strong = frozenset(strong)
        self._weak = frozenset(weak) - self._strong
        self._star = star

    @property
    def is_star(self) -> bool:
        """Whether the header was ``*``, matching any current representation."""
        return self._star

    def contains_strong(self, tag: str) -> bool:
        """Tell whether ``tag`` matches by strong comparison (RFC 9110 §8.8.3.2).

        Only strong tags in the header can match; ``*`` matches any tag.
        """
        return self._star or tag in self._strong

    def contains_weak(self, tag: str) -> bool:
        """Tell whether ``tag`` matches by weak comparison (RFC 9110 §8.8.3.2).

        Strong and weak tags in the header both match; ``*`` matches any tag.
        """
        return self._star or tag in self._strong or tag in self._weak

    def to_header(self) -> str:
        """Return the tags as a header value, ``*`` for a star."""
        if self._star:
            return "*"
        return ", ".join(
            [quote_etag(tag) for tag in sorted(self._strong)]
            + [quote_etag(tag, weak=True) for tag in sorted(self._weak)]
        )

    def __contains__(self, tag: object) -> bool:
        return isinstance(tag, str) and self.contains_weak(tag)

    def __iter__(self) -> Iterator[str]:
        yield from sorted(self._strong)
        yield from sorted(self._weak)

    def __len__(self) -> int:
        return len(self._strong) + len(self._weak)

    def __bool__(self) -> bool:
        return self._star or bool(self._strong or self._weak)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ETags):
            return NotImplemented
        return (self._strong, self._weak, self._star) == (other._strong, other._weak, other._star)

    def __hash__(self) -> int:
        return hash((self._strong, self._weak, self._star))

    def __repr__(self) -> str:
        if self._star:
            return "ETags(star=True)"
        return f"ETags(strong={sorted(self._strong)!r}, weak={sorted(self._weak)!r})"


@dataclass(frozen=True)
class IfRange:
    """An ``If-Range`` header: an entity tag or a date (RFC 9110 §13.1.5).

    Attributes:
        etag: The opaque part of the tag, or None if the header held none.
        weak: Whether the tag is weak; a weak tag never matches in If-Range.
        date: The date, or None if the header held none.
    """

    etag: str | None = None
    weak: bool = False
    date: datetime | None = None


def parse_etags(value: str | None) -> ETags:
    """Parse an ``If-Match`` or ``If-None-Match`` header.

    Tags are read leniently: text outside quotes, such as an unquoted tag,
    counts as a strong tag, and a ``*`` anywhere makes the set a star. A
    quote that is never closed ends the list.

    Args:
        value: The header value (all field lines joined by ``", "``), or None.

    Returns:
        The tags; an empty :class:`ETags` (which matches nothing) for an absent
        or empty header. Never raises.
    """
    strong: list[str] = []
    weak: list[str] = []
    star = False
    for match in _ITEM_RE.finditer(value or ""):
        weak_mark, quoted, bare = match.groups()
        if bare == "*":
            star = True
        elif bare is not None:
            strong.append(bare)
        else:
            (weak if weak_mark else strong).append(quoted)
    return ETags(strong, weak, star=star)


def quote_etag(tag: str, weak: bool = False) -> str:
    """Quote an opaque tag for an ``ETag`` header: ``"tag"`` or ``W/"tag"``.

    Args:
        tag: The opaque part: visible ASCII other than ``"``, or Latin-1
            characters from U+0080 (RFC 9110 §8.8.3 ``etagc``).
        weak: Whether to mark the tag weak.

    Raises:
        ValueError: The tag holds a character an entity tag cannot carry.
    """
    if _ETAGC_RE.fullmatch(tag) is None:
        raise ValueError(f"{tag!r} cannot be an entity tag")
    return f'W/"{tag}"' if weak else f'"{tag}"'


def unquote_etag(value: str | None) -> tuple[str | None, bool]:
    """Split an ``ETag`` value into its opaque part and its weakness.

    ``W/"a"`` gives ``("a", True)`` and ``"a"`` gives ``("a", False)``; an
    unquoted tag without spaces or quotes is taken as it is.

    Args:
        value: The header value, or None.

    Returns:
        ``(tag, is_weak)``; ``(None, False)`` for an absent, empty, ``*`` or
        malformed value. Never raises.
    """
    text = (value or "").strip()
    weak = text[:2] in {"W/", "w/"}
    if weak:
        text = text[2:]
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        return text[1:-1], weak
    if not text or text == "*" or '"' in text or any(char.isspace() for char in text):
        return None, False
    return text, weak


def parse_if_range(value: str | None) -> IfRange:
    """Parse an ``If-Range`` header, which holds an entity tag or a date.

    Args:
        value: The header value, or None.

    Returns:
        An :class:`IfRange` with ``etag`` or ``date`` set; one with neither for
        an absent or malformed header. Never raises.
    """
    text = (value or "").strip()
    if text.startswith(('"', "W/", "w/")):
        tag, weak = unquote_etag(text)
        return IfRange(tag, weak)
    return IfRange(date=parse_date(text))
