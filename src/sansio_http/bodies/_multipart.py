"""Decode ``multipart/form-data`` (RFC 7578) into form events.

The only module that imports ``multipart``: its ``PushMultipartParser`` finds the parts, in
its default mode (strict mode refuses valid bodies depending on where a chunk ends). This
module wires its limits to ours, turns its errors into 400 and 413 (it suggests 415), and
reads each part's Content-Disposition itself, the way browsers write it today, because
``multipart`` strips what looks like a Windows path from file names. A part with a
Content-Transfer-Encoding other than the identity ones is refused (400), never handed over
still encoded.

The answer (the form, a 400 or a 413) never depends on how the body is cut into chunks:
this module skips the preamble itself, and checks each part's header section (complete,
within ``max_part_header_size``, no CR or LF outside a CRLF) before the parser reads it.

NOTE: a known limit. ``multipart`` accepts part header names made of letters, digits, "-"
and "_" only; a name that is a valid RFC 9110 token with another token character
(``!#$%&'*+.^`|~``) makes it raise, which is a 400 here, although RFC 7578 §4.8 says such
headers are to be ignored. It has no setting for this, and working around it would mean
overriding its private methods. No browser or common client sends such names.
"""

from __future__ import annotations

import codecs
import re
import sys
from collections.abc import Iterator
from math import inf
from typing import Any, Final, Protocol, cast

import multipart as _multipart

from sansio_http.bodies._formdata import Field, FileData, FileEnd, FileStart, FormEvent, FormLimits
from sansio_http.http._parsers.options import _decode_extended, parse_options_header
from sansio_http.messages._errors import BadRequest, RequestEntityTooLarge

__all__ = ["MultipartDecoder"]


class _Parser(Protocol):
    # Yields a _Part, bytes or None; Any spares a cast per event on the hot path.
    def parse(self, chunk: bytes) -> Iterator[Any]: ...

    def close(self) -> None: ...


class _Module(Protocol):
    ParserError: type[Exception]
    ParserLimitReached: type[Exception]


# NOTE: python-multipart (Starlette's parser, a benchmark peer) installs a "multipart"
# package that re-exports this "multipart" module at run time but hides it from mypy. The
# Protocol names the part of multipart 2.x we use, so both installs type-check alike.
multipart = cast(_Module, _multipart)


class _Part:
    """The header section of one part, as the parser hands it over."""

    __slots__ = ("bytes_received", "complete", "headerlist")

    def __init__(self, headerlist: list[tuple[str, str]]) -> None:
        self.headerlist = headerlist
        # Counted by the parser as the content arrives.
        self.bytes_received = 0
        self.complete = False


_PushMultipartParser: Any = cast(Any, _multipart).PushMultipartParser


class _LeanParser(_PushMultipartParser):  # type: ignore[misc]  # a subclass of an untyped class
    """``multipart``'s parser, handing over each header section as it is.

    PERF: its own segment object parses the Content-Disposition and the Content-Type
    again, which ``MultipartDecoder._start`` does its own way (and checks the RFC 7578
    rules on); ``_create_segment`` is the hook multipart documents for subclasses.
    """

    def _create_segment(self, headerlist: list[tuple[str, str]]) -> _Part:
        return _Part(headerlist)


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
    kind = value if position == -1 else value[:position]
    if kind.strip(" \t").lower() != "form-data":
        raise BadRequest(
            "A multipart part has a malformed Content-Disposition header: "
            "its type is not form-data (RFC 7578 §4.2)."
        )
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
    # (RFC 8187 encoding, which §4.2 tells senders not to use) never replaces the plain
    # parameter, so the application sees the field a proxy or firewall also saw; it stays
    # in the part headers.
    if "name" not in params:
        raise BadRequest("A multipart part has no name parameter (RFC 7578 §4.2).")
    plain = params.get("filename")
    if plain is None and "filename*" in params:
        # Some clients name a file with "filename*" alone; the part is a file all the same.
        return _unescape(params["name"]), _extended_filename(params["filename*"])
    return _unescape(params["name"]), None if plain is None else _unescape(plain)


def _extended_filename(value: str) -> str:
    """Decode an RFC 8187 ``charset'language'value`` file name."""
    decoded = _decode_extended(value)
    if decoded is None:
        raise BadRequest(
            "A multipart part has a malformed filename* parameter: RFC 8187 asks for "
            "UTF-8''name or ISO-8859-1'lang'name."
        )
    codec, data = decoded
    return data.decode(codec, "replace")


# A complete header section: lines ending with CRLF and holding no other CR or LF, then the
# blank line. (What does not match is looked at again to tell why: see _refuse_unmatched.)
_section: Final = re.compile(rb"(?:[^\r\n]+\r\n)*\r\n").match

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


def _charset(content_type: str) -> str | None:
    """Return the charset parameter of a part's Content-Type, if any."""
    return parse_options_header(content_type)[1].get("charset")


def _decode_text(data: bytes, charset: str) -> str:
    """Decode a field value by its part's charset, or UTF-8 (RFC 7578 §5.1.2)."""
    codec = _TEXT_CODECS.get(charset.strip().lower(), "utf-8")
    return data.decode(codec, "replace")


class MultipartDecoder:
    """Turn the chunks of one multipart/form-data body into form events.

    NOTE: the answer never depends on where the chunks end. ``multipart`` answers the same
    bytes differently when they are cut differently in two places: it forgets the preamble
    it skipped, so bytes before the first boundary are refused or not, and it judges a part
    header line that a chunk cut in two before the line is complete (a bare LF in it is a
    400, its length a 413, where the whole line would be read). So this decoder finds the
    first boundary itself, and hands the parser a part's header section only once the
    whole section is here and checked: a section still incomplete at the end of a chunk is
    held here (at most ``max_part_header_size`` bytes) and a new parser takes over when it
    is complete. Part content goes through the parser as it arrives.
    """

    __slots__ = (
        "_body_start",
        "_charset",
        "_chunks",
        "_delimiter_size",
        "_fed",
        "_held",
        "_limits",
        "_marker",
        "_memory",
        "_memory_limit",
        "_name",
        "_parser",
        "_parts",
        "_preamble",
        "_section_bound",
        "_size",
        "_skipped",
        "pairs",
    )

    def __init__(self, boundary: str, limits: FormLimits) -> None:
        """Start decoding a body whose Content-Type named ``boundary``."""
        try:
            encoded = boundary.encode("latin-1")
        except UnicodeEncodeError as exc:
            raise BadRequest("The multipart boundary is invalid.") from exc
        # RFC 2046 §5.1.1: a boundary is 1 to 70 characters, none of them CR or LF (a
        # boundary holding one could not be found the same way in every chunking).
        if not encoded or b"\r" in encoded or b"\n" in encoded:
            raise BadRequest("The multipart boundary is invalid.")
        # multipart's limits for each parser (max_form_parts less the parts already begun).
        self._limits = (
            _or_inf(limits.max_part_header_size),
            _or_inf(limits.max_part_headers),
            _or_inf(limits.max_form_parts),
        )
        self._marker = b"--" + encoded
        # From the end of a part's content to the start of the next header section:
        # CRLF, "--", the boundary, CRLF (RFC 2046 §5.1.1).
        self._delimiter_size = len(self._marker) + 4
        # A header section of at most max_part_header_size bytes (its lines with their
        # CRLFs) ends with the CRLF of its blank line within this many bytes of its start.
        limit = limits.max_part_header_size
        # (Without a limit, half of sys.maxsize: start + bound must stay a valid index.)
        self._section_bound = sys.maxsize // 2 if limit is None else limit + 2
        self._memory_limit = _or_inf(limits.max_form_memory_size)
        self._memory = 0
        self._parser: _Parser | None = None
        # Before the first boundary, _held keeps the last bytes seen (a boundary may straddle
        # two chunks) and _skipped tells whether any came before them. After it, while there
        # is no parser, _held is the header section received so far.
        self._preamble = True
        self._skipped = False
        self._held = bytearray()
        # Where the parser is in the bytes it was given, and where the current part's
        # content started there: together they say where the next header section starts.
        self._fed = 0
        self._body_start = 0
        self._parts = 0  # the parts begun, which a new parser counts on from
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
        try:
            if self._parser is None:
                self._begin(chunk, events)
            else:
                self._parse(chunk, events)
        except multipart.ParserLimitReached as exc:
            limit = _LIMIT_NAMES.get(str(exc), "a multipart limit")
            raise RequestEntityTooLarge(f"The form breaks {limit}: {exc}.") from exc
        except multipart.ParserError as exc:
            raise BadRequest(f"The multipart body is malformed: {exc}.") from exc

    def _begin(self, chunk: bytes, events: list[FormEvent]) -> None:
        """Find the first boundary, or the end of a held header section; then parse on."""
        held = self._held
        if self._preamble:
            data = bytes(held) + chunk if held else chunk
            # PERF: a body from a browser starts with its first boundary and a CRLF.
            start = len(self._marker) + 2
            if held or data[:start] != self._marker + b"\r\n":
                start = self._skip_preamble(data)
                if start < 0:
                    return
            self._preamble = False
            if not self._limits[2]:
                raise _too_many_parts()
            match = _section(data, start, start + self._section_bound)
            if match is None:
                self._refuse_unmatched(data, start)
                held[:] = data[start:]
                return
            # The parser starts at the first boundary, which the preamble check accepted.
            origin = start - self._delimiter_size + 2
            self._open(match.end() - origin)
            self._parse(data[origin:] if origin else data, events)
            return
        # A header section is held: look for its blank line in the bytes that arrive, where
        # it can first be (PERF: a section fed byte by byte is searched once, not anew).
        size, bound = len(held), self._section_bound
        held += chunk[: bound + 2 - size]
        if not held.startswith(b"\r\n") and held.find(b"\r\n\r\n", max(0, size - 3), bound) < 0:
            if len(held) >= bound:
                raise _header_too_large()
            return
        match = _section(held, 0, bound)
        if match is None:  # it ends within the limit, so one of its lines is at fault
            raise _bare_line_break()
        end = match.end()
        head = self._marker + b"\r\n" + held[:end]
        held.clear()
        self._open(len(head))
        self._parse(head, events)
        if end - size < len(chunk):
            self._parse(chunk[end - size :], events)

    def _skip_preamble(self, data: bytes) -> int:
        """Return where the first header section starts in ``data``, or -1 for not yet."""
        marker = self._marker
        index = data.find(marker)
        if index < 0:
            keep = len(marker) + 1
            if len(data) > keep:
                self._skipped = True
                data = data[-keep:]
            self._held[:] = data
            return -1
        # RFC 2046 §5.1.1: the first boundary starts the body or follows a CRLF; what comes
        # before it (the preamble) is skipped.
        if (index or self._skipped) and data[index - 2 : index] != b"\r\n":
            raise BadRequest(
                "The multipart body is malformed: its first boundary does not start a line."
            )
        after = index + len(marker)
        tail = data[after : after + 2]
        if tail == b"\r\n":
            self._held.clear()
            return after + 2
        if tail == b"--":
            # The first boundary is the closing one: a form without parts. The parser
            # skips what follows (the epilogue).
            self._preamble = False
            self._held.clear()
            list(self._open(0).parse(marker + b"--"))  # no events: it only ends the body
            return -1
        if len(tail) == 2:
            raise BadRequest(
                "The multipart body is malformed: its first boundary is not followed by CRLF."
            )
        # Wait for the two bytes after the boundary, keeping the CRLF before it.
        if index >= 2:
            self._skipped = True
            index -= 2
        self._held[:] = data[index:]
        return -1

    def _open(self, body_start: int) -> _Parser:
        """Start a parser; its first part's content starts at ``body_start``."""
        header_size, header_count, parts = self._limits
        self._parser = parser = _LeanParser(
            self._marker[2:],
            max_header_size=header_size,
            max_header_count=header_count,
            max_segment_count=parts - self._parts,
        )
        self._fed = 0
        self._body_start = body_start
        return parser

    def _refuse_unmatched(self, data: bytes, start: int) -> None:
        """Raise for a header section that ``_section`` did not match at ``start``.

        Unless it only goes on past the end of ``data``: that returns. Raises 413
        for a section over ``max_part_header_size`` and 400 for one whose lines
        hold a CR or LF that does not end a line.
        """
        bound = self._section_bound
        if data.find(b"\r\n\r\n", start, start + bound) >= 0:
            raise _bare_line_break()
        # A blank line further on would make the section longer than the limit.
        if len(data) - start >= bound:
            raise _header_too_large()

    def _parse(self, chunk: bytes, events: list[FormEvent]) -> None:
        """Hand a chunk to the parser and append the events it completes."""
        # PERF: the state of the current part lives in locals inside the loop and is stored
        # back at the end; after an error the decoder is not used again.
        name, chunks, size, memory = self._name, self._chunks, self._size, self._memory
        memory_limit, pairs, append = self._memory_limit, self.pairs, events.append
        parser = cast(_Parser, self._parser)
        fed = self._fed
        self._fed = fed + len(chunk)
        body_start, parts, bound = self._body_start, self._parts, self._section_bound
        parts_limit = self._limits[2]
        # Where the next header section starts in the chunk, less the size of a content
        # that started at body_start: after it come CRLF, "--", the boundary and CRLF.
        skip = self._delimiter_size - fed
        for item in parser.parse(chunk):
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
                else:
                    data = b"".join(chunks)
                    size = len(data)
                    if self._charset is None:
                        value = data.decode("utf-8", "replace")
                    else:
                        value = _decode_text(data, self._charset)
                    if pairs is None:
                        append(Field(name, value))
                    else:
                        pairs.append((name, value))
                # The next header section is checked before the parser reads any of it,
                # after the part count (the limit breaks at the delimiter, before it).
                start = body_start + size + skip
                if parts >= parts_limit and chunk[start - 1] != 45:
                    raise _too_many_parts()
                match = _section(chunk, start, start + bound)
                if match is None:
                    if chunk[start - 1] == 45:  # "--boundary--": the body is complete
                        continue
                    # The section goes on in the next chunk: hold it, and drop this parser
                    # before it reads lines that are not complete yet.
                    self._refuse_unmatched(chunk, start)
                    self._held[:] = chunk[start:]
                    self._parser = None
                    break
                body_start = fed + match.end()
            else:
                parts += 1
                headerlist = item.headerlist
                if len(headerlist) == 1 and headerlist[0][0] == "Content-Disposition":
                    # PERF: a browser's text field, as _parse_disposition reads it first.
                    split = headerlist[0][1].split('"')
                    if len(split) == 3 and split[0] == "form-data; name=" and not split[2]:
                        name = split[1]
                        if "%" in name:
                            name = _unescape(name)
                        self._charset = None  # no Content-Type header
                        chunks = []
                        memory += len(name)
                        if memory > memory_limit:
                            raise _memory_error()
                        continue
                name = self._start(item, events, memory)
                if name is None:
                    size = 0
                else:
                    chunks = []
                    memory += len(name)
                    if memory > memory_limit:
                        raise _memory_error()
        self._name, self._chunks, self._size, self._memory = name, chunks, size, memory
        self._body_start, self._parts = body_start, parts

    def _start(self, part: _Part, events: list[FormEvent], memory: int) -> str | None:
        """Begin a part: return a field's name, or None for a file (after FileStart)."""
        disposition = content_type = None
        length = count = 0
        for key, value in part.headerlist:
            if key == "Content-Disposition":
                disposition = value
                count += 1
            elif key == "Content-Type":
                if content_type is None:
                    content_type = value
            elif key == "Content-Transfer-Encoding":
                _check_transfer_encoding(value)
            elif key == "Content-Length":
                length = int(value)  # multipart checked it is a decimal number
        if disposition is None:
            raise BadRequest(
                "The multipart body is malformed: a part has no Content-Disposition header."
            )
        if count > 1:
            raise BadRequest("A multipart part has two Content-Disposition headers.")
        name, filename = _parse_disposition(disposition)
        if filename is None:
            # multipart refuses content longer than a part's Content-Length (400) as the
            # bytes arrive, so a field that declares more than the memory left is refused
            # now: otherwise the first chunks could break the limit (413) in one chunking
            # and the whole content the Content-Length (400) in another.
            if length and memory + len(name) + length > self._memory_limit:
                raise _memory_error()
            self._charset = None if content_type is None else _charset(content_type)
            return name
        headers = tuple([(key.lower(), value) for key, value in part.headerlist])
        events.append(FileStart(name, filename, content_type, headers))
        return None

    def close(self, events: list[FormEvent]) -> None:
        """Check that the body reached its closing delimiter; no event is left."""
        parser = self._parser
        try:
            if parser is not None:
                parser.close()
                return
        except multipart.ParserError as exc:
            raise _cut_off() from exc
        raise _cut_off()  # before the first boundary, or inside a held header section


def _or_inf(limit: int | None) -> float:
    return inf if limit is None else limit


def _header_too_large() -> RequestEntityTooLarge:
    return RequestEntityTooLarge(
        "The form breaks max_part_header_size: a part's header section is too large."
    )


def _bare_line_break() -> BadRequest:
    # SECURITY: RFC 5322 §2.2 and RFC 9112 §2.2: a header line ends with CRLF. A bare CR or
    # LF is a line break to some readers and not to others (multipart keeps it in a value,
    # or strips it from a name), so a proxy could see other headers than the application.
    return BadRequest(
        "The multipart body is malformed: a part header holds a CR or LF that does not end a line."
    )


def _too_many_parts() -> RequestEntityTooLarge:
    # The words of multipart's own error, which the parser also raises as a safety net.
    return RequestEntityTooLarge("The form breaks max_form_parts: Maximum segment count exceeded.")


def _cut_off() -> BadRequest:
    return BadRequest("The multipart body ends before its closing boundary: it was cut off.")


def _memory_error() -> RequestEntityTooLarge:
    return RequestEntityTooLarge(
        "The form breaks max_form_memory_size: its fields are too large to hold in memory."
    )
