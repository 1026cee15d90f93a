"""Converters: the typed placeholders of a rule, and the converters a router knows by name.

A :class:`Converter` says what text one placeholder may hold (``regex``),
turns that text into a value (``to_python``) and a value back into URL text
(``to_url``). :data:`DEFAULT_CONVERTERS` names the built-in ones as rules
spell them: ``string``, ``int``, ``float``, ``path``, ``uuid`` and ``any``.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import quote

__all__ = [
    "DEFAULT_CONVERTERS",
    "AnyConverter",
    "Converter",
    "FloatConverter",
    "IntegerConverter",
    "PathConverter",
    "StringConverter",
    "UUIDConverter",
]


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
        """Return the URL text of a value, percent-encoded."""
        return quote(str(value), safe="")


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

    def to_python(self, text: str) -> str:
        """Return the text, checking its length."""
        if len(text) < self.minlength or (
            self.maxlength is not None and len(text) > self.maxlength
        ):
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
        signed = options.pop("signed", "false").lower() == "true"
        self.min = int(options.pop("min")) if "min" in options else None
        self.max = int(options.pop("max")) if "max" in options else None
        if options:
            raise TypeError(f"unknown int converter options: {sorted(options)}")
        if signed:
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
        """Return the decimal text of an integer."""
        return str(int(value))


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
        """Return the decimal text of a number."""
        return repr(float(value))


class PathConverter(Converter):
    """Text that may hold slashes: ``<path:rest>``."""

    regex = r"[^/].*?"
    weight = 200
    spans_segments = True

    def to_url(self, value: Any) -> str:
        """Return the path, keeping its slashes."""
        return quote(str(value), safe="/")


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
        return quote(str(value), safe="")


DEFAULT_CONVERTERS: Mapping[str, type[Converter]] = {
    "default": StringConverter,
    "string": StringConverter,
    "int": IntegerConverter,
    "float": FloatConverter,
    "path": PathConverter,
    "uuid": UUIDConverter,
    "any": AnyConverter,
}
