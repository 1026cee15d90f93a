"""Decode ``multipart/form-data`` (RFC 7578) into form events.

The only module that imports ``multipart``: its ``PushMultipartParser`` finds the parts, in
its default mode (strict mode refuses valid bodies depending on where a chunk ends). This
module wires its limits to ours, turns its errors into 400 and 413 (it suggests 415), and
reads each part's Content-Disposition itself, the way browsers write it today, because
``multipart`` strips what looks like a Windows path from file names. A part with a
Content-Transfer-Encoding other than the identity ones is refused (400), never handed over
still encoded.

NOTE: a known limit. ``multipart`` accepts part header names made of letters, digits, "-"
and "_" only; a name that is a valid RFC 9110 token with another token character
(``!#$%&'*+.^`|~``) makes it raise, which is a 400 here, although RFC 7578 §4.8 says such
headers are to be ignored. It has no setting for this, and working around it would mean
overriding its private methods. No browser or common client sends such names.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from math import inf
from typing import Any, Final, Protocol, cast

import multipart as _multipart

from sansio_http.bodies._formdata import Field, FileData, FileEnd, FileStart, FormEvent, FormLimits
from sansio_http.messages._errors import BadRequest, RequestEntityTooLarge

__all__ = ["MultipartDecoder"]


class _Segment(Protocol):
    headerlist: list[tuple[str, str]]
    charset: str | None

    def header(self, name: str) -> str | None: ...


class _Parser(Protocol):
    # Yields a _Segment, bytes or None; Any spares a cast per event on the hot path.
    def parse(self, chunk: bytes) -> Iterator[Any]: ...

    def close(self) -> None: ...


class _Module(Protocol):
    ParserError: type[Exception]
    ParserLimitReached: type[Exception]

    def PushMultipartParser(  # a class in the real module
        self,
        boundary: bytes,
        *,
        max_header_size: float,
        max_header_count: float,
        max_segment_count: float,
    ) -> _Parser: ...


# NOTE: python-multipart (Starlette's parser, a benchmark peer) installs a "multipart"
# package that re-exports this "multipart" module at run time but hides it from mypy. The
# Protocol names the part of multipart 2.x we use, so both installs type-check alike.
multipart = cast(_Module, _multipart)

# multipart names the limit in its message only; map each one to ours.
_LIMIT_NAMES: Final = {
    "Maximum segment count exceeded": "max_form_parts",
    "Maximum segment header length exceeded": "max_part_header_size",
    "Maximum segment header count exceeded": "max_part_headers",
}

# One "; key=value" parameter of a Content-Disposition. HTML5 quoting: a quoted value ends
# at the next '"' and backslashes are ordinary characters (browsers send %22 for '"').
_PARAMETER: Final = re.compile(
    r'[ \t]*;[ \t]*([^ \t=;"]+)[ \t]*=[ \t]*(?:"([^"]*)"|([^ \t;"]*))[ \t]*'
)

# SECURITY: a part may name any charset, and some Python codecs are not fit for client data
# (punycode and idna decode in quadratic time). Decode only with the encodings browsers use
# (the WHATWG Encoding Standard); anything else is read as UTF-8. Names are looked up in
# this table, never passed to codecs.lookup: that caches every unknown name it is asked
# about, so a client naming a new charset in each part would grow the cache without end.
_TEXT_NAMES: Final = (
    "utf-8 utf8 utf-16 utf-16le utf-16-le utf-16be utf-16-be ascii us-ascii latin-1 latin1 "
    "iso-8859-1 iso8859-1 iso-8859-2 iso-8859-3 iso-8859-4 iso-8859-5 iso-8859-6 "
    "iso-8859-7 iso-8859-8 iso-8859-10 iso-8859-13 iso-8859-14 iso-8859-15 iso-8859-16 "
    "cp874 cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 "
    "windows-1250 windows-1251 windows-1252 windows-1253 windows-1254 windows-1255 "
    "windows-1256 windows-1257 windows-1258 koi8-r koi8-u mac-roman macintosh "
    "mac-cyrillic gbk gb2312 gb18030 big5 euc-jp iso-2022-jp shift-jis "
    "shift_jis sjis euc-kr"
).split()
_TEXT_CODECS: Final = {name: codecs.lookup(name).name for name in _TEXT_NAMES}


def _unescape(value: str) -> str:
    """Undo the HTML5 escapes of a quoted name: %22, %0D and %0A, nothing else."""
    # None of the results contains "%", so the order of the replacements does not matter.
    return value.replace("%22", '"').replace("%0D", "\r").replace("%0A", "\n")


def _parse_disposition(value: str) -> tuple[str, str | None]:
    """Return the ``name`` and ``filename`` of a part's Content-Disposition value."""
    # PERF: browsers, curl and httpx all write exactly this shape; skip the regex for it.
    split = value.split('"')
    if split[0] == "form-data; name=" and not split[-1]:
        if len(split) == 3:
            name = split[1]
            return (_unescape(name) if "%" in name else name), None
        if len(split) == 5 and split[2] == "; filename=":
            name, filename = split[1], split[3]
            return (
                _unescape(name) if "%" in name else name,
                _unescape(filename) if "%" in filename else filename,
            )
    value = value.rstrip(" \t;")
    position = value.find(";")
    params: dict[str, str] = {}
    while position != -1 and position < len(value):
        match = _PARAMETER.match(value, position)
        if match is None:
            raise BadRequest("A multipart part has a malformed Content-Disposition header.")
        key = match[1].lower()
        if key in params:
            # RFC 6266 §4.1: a repeated parameter makes the header invalid; reading either
            # copy could disagree with what a proxy or firewall read.
            raise BadRequest(f"A multipart part repeats the {key!r} parameter.")
        quoted, token = match.group(2, 3)
        params[key] = token if quoted is None else quoted
        position = match.end()
    # RFC 7578 §4.2: the plain "name" parameter names the field. A "name*" or "filename*"
    # (RFC 5987 encoding, which §4.2 forbids here) never replaces the plain parameter, so the
    # application sees the field a proxy or firewall also saw; it stays in the part headers.
    if "name" not in params:
        raise BadRequest("A multipart part has no name parameter (RFC 7578 §4.2).")
    plain_filename = params.get("filename")
    return (
        _unescape(params["name"]),
        None if plain_filename is None else _unescape(plain_filename),
    )


# RFC 2045 §6.1: the identity encodings, under which the part's bytes are its content.
_IDENTITY_ENCODINGS: Final = frozenset({"7bit", "8bit", "binary"})


def _check_transfer_encoding(value: str) -> None:
    """Refuse a part whose bytes are not its content (RFC 7578 §4.7)."""
    # SECURITY: a base64 or quoted-printable part handed over as it is would be read as
    # its encoded form, and a scanner that decodes it would see other content. RFC 7578
    # §4.7 deprecates the header and no browser sends it: refuse rather than decode.
    if value.strip(" \t").lower() not in _IDENTITY_ENCODINGS:
        raise BadRequest(
            "A multipart part has a Content-Transfer-Encoding other than 7bit, 8bit or binary."
        )


def _decode_text(data: bytes, charset: str) -> str:
    """Decode a field value by its part's charset, or UTF-8 (RFC 7578 §5.1.2)."""
    codec = _TEXT_CODECS.get(charset.strip().lower(), "utf-8")
    return data.decode(codec, "replace")


class MultipartDecoder:
    """Turn the chunks of one multipart/form-data body into form events."""

    __slots__ = (
        "_charset",
        "_chunks",
        "_header_limit",
        "_memory",
        "_memory_limit",
        "_name",
        "_parser",
        "_size",
        "pairs",
    )

    def __init__(self, boundary: str, limits: FormLimits) -> None:
        """Start decoding a body whose Content-Type named ``boundary``."""
        try:
            encoded = boundary.encode("latin-1")
            self._parser = multipart.PushMultipartParser(
                encoded,
                max_header_size=_or_inf(limits.max_part_header_size),
                max_header_count=_or_inf(limits.max_part_headers),
                max_segment_count=_or_inf(limits.max_form_parts),
            )
        except (UnicodeEncodeError, multipart.ParserError) as exc:
            raise BadRequest("The multipart boundary is invalid.") from exc
        self._header_limit = _or_inf(limits.max_part_header_size)
        self._memory_limit = _or_inf(limits.max_form_memory_size)
        self._memory = 0
        # The current part: a field collects its chunks; a file (name None) counts its size.
        self._name: str | None = None
        self._chunks: list[bytes] = []
        self._charset: str | None = None
        self._size = 0
        #: Where complete fields go as pairs instead of Field events, when set (PERF: the
        #: collector of FormDecoder needs no event objects for text fields).
        self.pairs: list[tuple[str, str]] | None = None

    def feed(self, chunk: bytes, events: list[FormEvent]) -> None:
        """Parse a non-empty chunk and append the events it completes."""
        # PERF: the state of the current part lives in locals inside the loop and is stored
        # back at the end; after an error the decoder is not used again.
        name, chunks, size, memory = self._name, self._chunks, self._size, self._memory
        memory_limit, pairs, append = self._memory_limit, self.pairs, events.append
        try:
            for item in self._parser.parse(chunk):
                if item.__class__ is bytes:
                    if name is None:
                        size += len(item)
                        append(FileData(item))
                    else:
                        memory += len(item)
                        if memory > memory_limit:
                            raise _memory_error()
                        chunks.append(item)
                elif item is None:
                    if name is None:
                        append(FileEnd(size))
                        continue
                    data = b"".join(chunks)
                    if self._charset is None:
                        value = data.decode("utf-8", "replace")
                    else:
                        value = _decode_text(data, self._charset)
                    if pairs is None:
                        append(Field(name, value))
                    else:
                        pairs.append((name, value))
                else:
                    name = self._start(item, events)
                    if name is None:
                        size = 0
                    else:
                        chunks = []
                        memory += len(name)
                        if memory > memory_limit:
                            raise _memory_error()
        except multipart.ParserLimitReached as exc:
            limit = _LIMIT_NAMES.get(str(exc), "a multipart limit")
            raise RequestEntityTooLarge(f"The form breaks {limit}: {exc}.") from exc
        except multipart.ParserError as exc:
            raise BadRequest(f"The multipart body is malformed: {exc}.") from exc
        self._name, self._chunks, self._size, self._memory = name, chunks, size, memory

    def _start(self, segment: _Segment, events: list[FormEvent]) -> str | None:
        """Begin a part: return a field's name, or None for a file (after FileStart)."""
        headerlist = segment.headerlist
        if len(headerlist) == 1:
            # PERF: the usual text field. multipart checked that the one header is a
            # form-data Content-Disposition.
            key, disposition = headerlist[0]
            size = len(key) + len(disposition) + 4  # "Name: value\r\n"
        else:
            disposition = ""
            size = count = 0
            for key, value in headerlist:
                size += len(key) + len(value) + 4
                if key == "Content-Disposition":
                    disposition = value
                    count += 1
                elif key == "Content-Transfer-Encoding":
                    _check_transfer_encoding(value)
            if count > 1:
                raise BadRequest("A multipart part has two Content-Disposition headers.")
        if size > self._header_limit:
            raise RequestEntityTooLarge(
                "The form breaks max_part_header_size: a part's header section is too large."
            )
        # multipart already refused a part without a form-data Content-Disposition.
        name, filename = _parse_disposition(disposition)
        if filename is None:
            self._charset = segment.charset
            return name
        headers = tuple((key.lower(), value) for key, value in headerlist)
        events.append(FileStart(name, filename, segment.header("Content-Type"), headers))
        return None

    def close(self, events: list[FormEvent]) -> None:
        """Check that the body reached its closing delimiter; no event is left."""
        try:
            self._parser.close()
        except multipart.ParserError as exc:
            raise BadRequest(
                "The multipart body ends before its closing boundary: it was cut off."
            ) from exc


def _or_inf(limit: int | None) -> float:
    return inf if limit is None else limit


def _memory_error() -> RequestEntityTooLarge:
    return RequestEntityTooLarge(
        "The form breaks max_form_memory_size: its fields are too large to hold in memory."
    )
