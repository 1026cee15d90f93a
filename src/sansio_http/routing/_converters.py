"""Converters: the typed placeholders of a rule, and the converters a router knows by name.

A :class:`Converter` says what text one placeholder may hold (``regex``),
turns that text into a value (``to_python``) and a value back into URL text
(``to_url``). :data:`DEFAULT_CONVERTERS` names the built-in ones as rules
spell them: ``string``, ``int``, ``float``, ``path``, ``uuid`` and ``any``.

A value's URL text is what ``match()`` gives back: it is encoded as the
literal text of a rule is, to RFC 3986 ``pchar`` form (``segment_text``), and
a number is written so that its converter's regex takes it.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar, Final
from urllib.parse import quote

__all__ = [
    "DEFAULT_CONVERTERS",
    "SEGMENT_SAFE",
    "AnyConverter",
    "Converter",
    "FloatConverter",
    "IntegerConverter",
    "PathConverter",
    "StringConverter",
    "UUIDConverter",
    "segment_text",
]

#: RFC 3986 §3.3: a path segment keeps pchar (unreserved, sub-delims, ":" and "@") as it is;
#: ``quote`` always keeps the unreserved characters.
SEGMENT_SAFE: Final = "!$&'()*+,;=:@"


def segment_text(text: str, safe: str = SEGMENT_SAFE) -> str:
    r"""Percent-encode decoded text for one path segment (RFC 3986 §2.1, §3.3).

    Everything outside ``pchar`` is encoded as its UTF-8 bytes, ``/``, ``\``
    and ``%`` among them, so that the text decodes back to itself.

    Args:
        text: The decoded text.
        safe: The characters kept as they are; ``SEGMENT_SAFE`` plus ``/``
            for text that spans segments.
    """
    return quote(text, safe=safe)


class Converter:
    """Turn one placeholder of a rule into a value and back.

    Subclasses set ``regex`` (what one segment may hold) and override
    :meth:`to_python` and :meth:`to_url`. ``to_python`` raises ``ValueError``
    to reject a segment that the regex let through.

    Attributes:
        regex: A pattern for the placeholder's text, without anchors.
        weight: Order among placeholders at the same place: lower tries first.
        spans_segments: Whether the placeholder may hold slashes.
    """

    regex: str = "[^/]+"
    weight: ClassVar[int] = 100
    spans_segments: ClassVar[bool] = False

    def __init__(self, *args: str) -> None:
        if args:
            raise TypeError(f"{type(self).__name__} takes no arguments")
        self._pattern = re.compile(self.regex)

    def match(self, text: str) -> bool:
        """Return whether ``text`` is all placeholder."""
        return self._pattern.fullmatch(text) is not None

    def to_python(self, text: str) -> Any:
        """Return the value of a matched placeholder."""
        return text

    def to_url(self, value: Any) -> str:
        """Return the URL text of a value, percent-encoded.

        The text of ``str(value)`` is encoded to RFC 3986 ``pchar`` form, a
        ``/`` among the rest: ``Request.path`` is decoded, so a value holding
        a slash does not come back to a placeholder that refuses slashes. An
        override should encode likewise; :meth:`Router.build` encodes what
        it leaves that a path may not hold, a ``%`` aside.
        """
        return segment_text(str(value))


class StringConverter(Converter):
    """Text without slashes: ``<name>`` or ``<string(minlength=2,maxlength=8):name>``."""

    def __init__(self, *args: str) -> None:
        options = dict(arg.split("=", 1) for arg in args)
        self.minlength = int(options.pop("minlength", 1))
        maxlength = options.pop("maxlength", None)
        length = options.pop("length", None)
        if options:
            raise TypeError(f"unknown string converter options: {sorted(options)}")
        self.maxlength = int(maxlength) if maxlength is not None else None
        if length is not None:
            self.minlength = self.maxlength = int(length)
        super().__init__()

    def match(self, text: str) -> bool:
        """Return whether ``text`` is one segment of an allowed length."""
        return super().match(text) and self._fits(text)

    def _fits(self, text: str) -> bool:
        return len(text) >= self.minlength and (
            self.maxlength is None or len(text) <= self.maxlength
        )

    def to_python(self, text: str) -> str:
        """Return the text, checking its length."""
        if not self._fits(text):
            raise ValueError("length out of bounds")
        return text


#: Python's int() digit limit (sys.int_info.default_max_str_digits); never a valid id.
_MAX_DIGITS = 4300


class IntegerConverter(Converter):
    """A non-negative decimal integer: ``<int:id>`` (``<int(signed=true):n>``)."""

    regex = r"\d+"
    weight = 50

    def __init__(self, *args: str) -> None:
        options = dict(arg.split("=", 1) for arg in args)
        self.signed = options.pop("signed", "false").lower() == "true"
        self.min = int(options.pop("min")) if "min" in options else None
        self.max = int(options.pop("max")) if "max" in options else None
        if options:
            raise TypeError(f"unknown int converter options: {sorted(options)}")
        if self.signed:
            self.regex = r"-?\d+"
        super().__init__()

    def to_python(self, text: str) -> int:
        """Return the integer, checking its bounds."""
        if len(text) > _MAX_DIGITS:
            raise ValueError("too many digits")
        value = int(text)
        if (self.min is not None and value < self.min) or (
            self.max is not None and value > self.max
        ):
            raise ValueError("out of bounds")
        return value

    def to_url(self, value: Any) -> str:
        """Return the decimal text of an integer.

        Raises:
            ValueError: The converter would not match the text back: a
                negative number where it is not signed, or one out of bounds.
        """
        number = int(value)
        if number < 0 and not self.signed:
            raise ValueError(f"{number} is negative; write <int(signed=true):name> to allow it")
        if (self.min is not None and number < self.min) or (
            self.max is not None and number > self.max
        ):
            raise ValueError(f"{number} is out of the bounds of its placeholder")
        return str(number)


class FloatConverter(Converter):
    """A non-negative decimal number with a point: ``<float:ratio>``."""

    regex = r"\d+\.\d+"
    weight = 50

    def to_python(self, text: str) -> float:
        """Return the number."""
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not finite")
        return value

    def to_url(self, value: Any) -> str:
        r"""Return the decimal text of a number, without an exponent.

        ``repr`` gives the shortest text that reads back as the same float;
        written out in positional notation, it still does, and the regex
        ``\d+\.\d+`` takes it (``1e-05`` becomes ``0.00001``).

        Raises:
            ValueError: The number is negative, infinite or NaN, which the
                converter never matches.
        """
        number = float(value)
        if not math.isfinite(number) or number < 0:
            raise ValueError(f"{number!r} is not a finite non-negative number")
        # abs() turns -0.0 into 0.0, which compares equal to it.
        text = format(Decimal(repr(abs(number))), "f")
        return text if "." in text else text + ".0"


class PathConverter(Converter):
    """Text that may hold slashes: ``<path:rest>``.

    It takes text that does not start with a slash and holds no line feed:
    ``/files//etc`` is not matched by ``/files/<path:p>``, so a value is never
    an absolute path, and :meth:`Router.build` refuses a value that starts
    with a slash, which this placeholder would not match back. Map a value onto a directory with
    :func:`~sansio_http.safe_join`, never with ``os.path.join``.
    """

    regex = r"[^/].*?"
    weight = 200
    spans_segments = True

    def to_url(self, value: Any) -> str:
        """Return the path, encoded to RFC 3986 form, keeping its slashes."""
        return segment_text(str(value), SEGMENT_SAFE + "/")


class UUIDConverter(Converter):
    """A UUID in its canonical hexadecimal form: ``<uuid:id>``."""

    regex = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    weight = 50

    def to_python(self, text: str) -> uuid.UUID:
        """Return the UUID."""
        return uuid.UUID(text)


class AnyConverter(Converter):
    """One of a fixed set of words: ``<any(about,help):page>``."""

    weight = 40

    def __init__(self, *items: str) -> None:
        if not items:
            raise TypeError("any() needs at least one item")
        self.items = frozenset(items)
        self.regex = "|".join(re.escape(item) for item in items)
        super().__init__()

    def to_url(self, value: Any) -> str:
        """Return the word, which must be one of the items."""
        if str(value) not in self.items:
            raise ValueError(f"{value!r} is not one of {sorted(self.items)}")
        return segment_text(str(value))


DEFAULT_CONVERTERS: Mapping[str, type[Converter]] = {
    "default": StringConverter,
    "string": StringConverter,
    "int": IntegerConverter,
    "float": FloatConverter,
    "path": PathConverter,
    "uuid": UUIDConverter,
    "any": AnyConverter,
}
