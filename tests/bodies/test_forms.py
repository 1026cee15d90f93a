from __future__ import annotations

import io
from collections.abc import Iterable, Iterator

import pytest

from sansio_http.bodies._formdata import (
    EndOfForm,
    Field,
    FileData,
    FileEnd,
    FileStart,
    FormData,
    FormEvent,
    FormLimits,
    UploadedFile,
    safe_filename,
)
from sansio_http.bodies._forms import FormCollector, FormDecoder, FormEventDecoder
from sansio_http.messages._errors import (
    BadRequest,
    ClientDisconnected,
    RequestEntityTooLarge,
    UnsupportedMediaType,
)

BOUNDARY = "b0undary"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
URLENCODED = "application/x-www-form-urlencoded"


def part(disposition: str, body: bytes, *headers: str) -> bytes:
    lines = [f"Content-Disposition: {disposition}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def multipart(*parts: bytes, boundary: str = BOUNDARY) -> bytes:
    delimiter = f"--{boundary}".encode()
    out = b"".join(delimiter + b"\r\n" + p + b"\r\n" for p in parts)
    return out + delimiter + b"--\r\n"


def chunkings(body: bytes) -> Iterator[list[bytes]]:
    yield [body]
    yield [body[i : i + 1] for i in range(len(body))]
    yield [b"", body, b""]
    yield [body[i : i + 7] for i in range(0, len(body), 7)]


def merged(events: Iterable[FormEvent]) -> list[FormEvent]:
    """Join consecutive FileData events: their cuts depend on the chunks only."""
    out: list[FormEvent] = []
    for event in events:
        if isinstance(event, FileData) and out and isinstance(out[-1], FileData):
            out[-1] = FileData(out[-1].data + event.data)
        else:
            out.append(event)
    return out


def events_of(
    chunks: Iterable[bytes], content_type: str = MULTIPART, **kwargs: object
) -> list[FormEvent]:
    decoder = FormEventDecoder(content_type, **kwargs)  # type: ignore[arg-type]
    events: list[FormEvent] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    return merged(events + decoder.close())


def decode(chunks: Iterable[bytes], content_type: str = MULTIPART, **kwargs: object) -> FormData:
    decoder = FormDecoder(content_type, **kwargs)  # type: ignore[arg-type]
    for chunk in chunks:
        decoder.feed(chunk)
    return decoder.close()


BROWSER_BODY = multipart(
    part('form-data; name="title"', "Héllo ✓".encode()),
    part('form-data; name="tag"', b"a"),
    part(
        'form-data; name="upload"; filename="a.txt"', b"line\r\n--b0und", "Content-Type: text/plain"
    ),
    part('form-data; name="tag"', b"b"),
)
BROWSER_EVENTS: list[FormEvent] = [
    Field("title", "Héllo ✓"),
    Field("tag", "a"),
    FileStart(
        "upload",
        "a.txt",
        "text/plain",
        (
            ("content-disposition", 'form-data; name="upload"; filename="a.txt"'),
            ("content-type", "text/plain"),
        ),
    ),
    FileData(b"line\r\n--b0und"),
    FileEnd(13),
    Field("tag", "b"),
    EndOfForm(),
]


@pytest.mark.parametrize("chunks", list(chunkings(BROWSER_BODY)))
def test_multipart_events_do_not_depend_on_chunking(chunks: list[bytes]) -> None:
    assert events_of(chunks) == BROWSER_EVENTS


@pytest.mark.parametrize("chunks", list(chunkings(BROWSER_BODY)))
def test_multipart_form_data(chunks: list[bytes]) -> None:
    form, files = decode(chunks)
    assert form.items(multi=True) == [("title", "Héllo ✓"), ("tag", "a"), ("tag", "b")]
    upload = files["upload"]
    assert (upload.name, upload.filename, upload.size) == ("upload", "a.txt", 13)
    assert upload.content_type == "text/plain"
    assert upload.headers["content-type"] == "text/plain"
    assert upload.headers is upload.headers
    assert upload.read() == b"line\r\n--b0und"


def test_mimetype_and_params_instead_of_header() -> None:
    decoder = FormDecoder("Multipart/Form-Data", {"boundary": BOUNDARY})
    decoder.feed(BROWSER_BODY)
    assert decoder.close().form["title"] == "Héllo ✓"


def test_empty_chunk_is_not_the_end() -> None:
    decoder = FormEventDecoder(MULTIPART)
    assert decoder.feed(BROWSER_BODY[:10]) == []
    assert decoder.feed(b"") == []
    assert merged(decoder.feed(bytearray(BROWSER_BODY[10:])) + decoder.close()) == BROWSER_EVENTS
    assert decoder.received == len(BROWSER_BODY)


def test_preamble_and_epilogue_are_ignored() -> None:
    body = b"preamble\r\n" + multipart(part('form-data; name="a"', b"1")) + b"epilogue"
    assert decode([body]).form.items(multi=True) == [("a", "1")]


def test_empty_multipart_form() -> None:
    form, files = decode([b"--b0undary--\r\n"])
    assert (len(form), len(files)) == (0, 0)


def test_empty_filename_is_still_a_file() -> None:
    # What a browser sends for a file input left empty.
    body = multipart(
        part('form-data; name="f"; filename=""', b"", "Content-Type: application/octet-stream")
    )
    upload = decode([body]).files["f"]
    assert (upload.filename, upload.size, upload.read()) == ("", 0, b"")


@pytest.mark.parametrize(
    ("disposition", "name", "filename"),
    [
        ('form-data; name="a%22b"', 'a"b', None),
        ('form-data; name="x"; filename="C:\\dir\\a.txt"', "x", "C:\\dir\\a.txt"),
        ('form-data; name="x"; filename="dir\\"', "x", "dir\\"),
        ('form-data; name="x"; filename="%22q%22%0D%0A.txt"', "x", '"q"\r\n.txt'),
        ('form-data; name="x"; filename="100%25.txt"', "x", "100%25.txt"),
        ('form-data; name="x"; filename="../../etc/passwd"', "x", "../../etc/passwd"),
        ("form-data; name=token", "token", None),
        ('form-data ; NAME = "sp" ; Filename = "f.txt" ;', "sp", "f.txt"),
        ('form-data; filename="f"; name="late"', "late", "f"),
        ('form-data; name="a;b"; filename="c;d"', "a;b", "c;d"),
        # RFC 7578 §4.2: a starred parameter never replaces the plain one.
        ("form-data; name=\"plain\"; name*=UTF-8''other", "plain", None),
        ('form-data; name="x"; filename="a.txt"; filename*=UTF-8\'\'b.exe', "x", "a.txt"),
        # A "filename*" alone still makes the part a file, under its decoded name.
        ("form-data; name=\"x\"; filename*=UTF-8''b%C3%A9.exe", "x", "bé.exe"),
        ('form-data; name=""', "", None),
    ],
)
def test_content_disposition(disposition: str, name: str, filename: str | None) -> None:
    events = events_of([multipart(part(disposition, b"v"))])
    if filename is None:
        assert events[0] == Field(name, "v")
    else:
        start = events[0]
        assert isinstance(start, FileStart)
        assert (start.name, start.filename) == (name, filename)
        assert start.headers[0] == ("content-disposition", disposition)


@pytest.mark.parametrize(
    ("disposition", "message"),
    [
        ('form-data; filename="f"', "no name"),
        ("form-data; name*=UTF-8''x", "no name"),
        ('form-data; name="a"; name="b"', "repeats"),
        ('form-data; name="a"; filename="x"; filename="y"', "repeats"),
        ('form-data; name="a\\"b"', "malformed"),
        ("form-data; name", "malformed"),
        ('form-data; name="a" junk', "malformed"),
        ('attachment; name="a"', "malformed"),
    ],
)
def test_bad_content_disposition(disposition: str, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        decode([multipart(part(disposition, b"v"))])


def test_two_content_dispositions() -> None:
    body = multipart(part('form-data; name="a"', b"v", 'Content-Disposition: form-data; name="b"'))
    with pytest.raises(BadRequest, match="two Content-Disposition"):
        decode([body])


def test_part_without_content_disposition() -> None:
    body = b"--b0undary\r\nContent-Type: text/plain\r\n\r\nv\r\n--b0undary--\r\n"
    with pytest.raises(BadRequest, match="malformed"):
        decode([body])


@pytest.mark.parametrize(
    ("charset", "raw", "value"),
    [
        (None, "é".encode(), "é"),
        ("utf-8", b"\xff", "\ufffd"),
        ("iso-8859-1", b"caf\xe9", "café"),
        ("Shift_JIS", "日本".encode("shift_jis"), "日本"),
        ("unknown-charset", "é".encode(), "é"),
        ("punycode", b"abc-", "abc-"),
        ("a\x00b", b"v", "v"),
    ],
)
def test_field_charset(charset: str | None, raw: bytes, value: str) -> None:
    headers = () if charset is None else (f"Content-Type: text/plain; charset={charset}",)
    body = multipart(part('form-data; name="f"', raw, *headers))
    assert decode([body]).form["f"] == value


def test_client_charset_names_never_reach_the_codec_cache() -> None:
    # codecs.lookup caches every name it is asked about; a client naming a
    # new charset in each part must not grow that cache.
    import encodings

    cache: dict[str, object] = encodings._cache
    names = [f"x-charset-{i}" for i in range(50)]
    parts = [
        part(f'form-data; name="f{i}"', b"v", f"Content-Type: text/plain; charset={name}")
        for i, name in enumerate(names)
    ]
    assert decode([multipart(*parts)]).form["f49"] == "v"
    assert not any(name.replace("-", "_") in cache or name in cache for name in names)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"no boundary at all",
        b"--b0undary\r\n",
        b'--b0undary\r\nContent-Disposition: form-data; name="a"\r\n',
        b'--b0undary\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue',
        b'--b0undary\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue\r\n--b0undary',
        multipart(part('form-data; name="f"; filename="x"', b"data"))[:-4],
    ],
)
def test_truncated_multipart_is_a_400(body: bytes) -> None:
    with pytest.raises(BadRequest, match="cut off"):
        decode([body])


def test_truncated_file_closes_its_spool() -> None:
    spools: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        spools.append(io.BytesIO())
        return spools[-1]

    body = multipart(
        part('form-data; name="f"; filename="1"', b"one"),
        part('form-data; name="f"; filename="2"', b"two"),
    )
    with pytest.raises(BadRequest):
        decode([body[:-10]], spool=spool)
    assert [s.closed for s in spools] == [True, True]


@pytest.mark.parametrize(
    "body",
    [
        b"--b0undary\nContent-Disposition: form-data; name=a\n\nv\n--b0undary--",
        b'--b0undary\r\nContent-Disposition: form-data; name="a"\nX: y\r\n\r\n',
        b"--b0undary\r\nno colon\r\n\r\n",
        b"--b0undary\r\nBad Name: v\r\n\r\n",
        b"--b0undary\r\n\xff\xfe: v\r\n\r\n",
        b'--b0undary\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--b0undaryXX',
        b"junk--b0undary\r\n",
    ],
)
def test_malformed_multipart_is_a_400_not_a_415(body: bytes) -> None:
    with pytest.raises(BadRequest, match="malformed") as info:
        decode([body])
    assert info.value.status == 400


@pytest.mark.parametrize(
    ("content_type", "error"),
    [
        ("multipart/form-data", BadRequest),
        ('multipart/form-data; boundary=""', BadRequest),
        ("multipart/form-data; boundary=a\nb", BadRequest),
        ("application/json", UnsupportedMediaType),
        ("", UnsupportedMediaType),
    ],
)
def test_bad_content_type(content_type: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        FormDecoder(content_type)


def test_boundary_not_latin1() -> None:
    with pytest.raises(BadRequest, match="boundary"):
        FormDecoder("multipart/form-data", {"boundary": "✓"})


def test_supports() -> None:
    assert FormDecoder.supports(URLENCODED)
    assert FormEventDecoder.supports("multipart/form-data")
    assert not FormDecoder.supports("application/json")


# -- urlencoded ---------------------------------------------------------------------------

URLENCODED_BODY = b"name=caf%C3%A9&tag=a&&tag=b+c&empty=&novalue&%zz=1"
URLENCODED_PAIRS = [
    ("name", "café"),
    ("tag", "a"),
    ("tag", "b c"),
    ("empty", ""),
    ("novalue", ""),
    ("%zz", "1"),
]


@pytest.mark.parametrize("chunks", list(chunkings(URLENCODED_BODY)))
def test_urlencoded(chunks: list[bytes]) -> None:
    assert decode(chunks, URLENCODED).form.items(multi=True) == URLENCODED_PAIRS
    events = events_of(chunks, URLENCODED)
    assert events == [*(Field(n, v) for n, v in URLENCODED_PAIRS), EndOfForm()]


def test_urlencoded_fields_arrive_as_soon_as_complete() -> None:
    decoder = FormEventDecoder(URLENCODED)
    assert decoder.feed(b"a=1") == []
    assert decoder.feed(b"2&b") == [Field("a", "12")]
    assert decoder.feed(b"=3&") == [Field("b", "3")]
    assert decoder.close() == [EndOfForm()]


def test_urlencoded_ignores_charset_and_empty_body() -> None:
    assert decode([], f"{URLENCODED}; charset=latin-1").form.items() == []


# -- limits -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limits", "body", "content_type", "limit"),
    [
        (FormLimits(max_content_length=10), BROWSER_BODY, MULTIPART, "max_content_length"),
        (FormLimits(max_content_length=10), b"a=" + b"1" * 20, URLENCODED, "max_content_length"),
        (FormLimits(max_form_parts=3), BROWSER_BODY, MULTIPART, "max_form_parts"),
        (FormLimits(max_form_parts=2), b"a&b&c", URLENCODED, "max_form_parts"),
        (FormLimits(max_form_parts=2), b"a&b&c&", URLENCODED, "max_form_parts"),
        (FormLimits(max_form_memory_size=5), BROWSER_BODY, MULTIPART, "max_form_memory_size"),
        (
            FormLimits(max_form_memory_size=4),
            multipart(part('form-data; name="long-name"', b"")),
            MULTIPART,
            "max_form_memory_size",
        ),
        (FormLimits(max_form_memory_size=5), b"a=12345", URLENCODED, "max_form_memory_size"),
        (FormLimits(max_form_memory_size=5), b"a=1&b=2345", URLENCODED, "max_form_memory_size"),
        (FormLimits(max_form_memory_size=5), b"a=12345&", URLENCODED, "max_form_memory_size"),
        (FormLimits(max_part_headers=1), BROWSER_BODY, MULTIPART, "max_part_headers"),
        (FormLimits(max_part_header_size=40), BROWSER_BODY, MULTIPART, "max_part_header_size"),
        (
            FormLimits(max_part_header_size=60),
            multipart(part('form-data; name="a"', b"", "X-A: " + "a" * 20, "X-B: " + "b" * 20)),
            MULTIPART,
            "max_part_header_size",
        ),
    ],
)
def test_limits_give_413_naming_the_limit(
    limits: FormLimits, body: bytes, content_type: str, limit: str
) -> None:
    for chunks in chunkings(body):
        with pytest.raises(RequestEntityTooLarge, match=limit):
            decode(chunks, content_type, limits=limits)


def test_none_turns_limits_off() -> None:
    off = FormLimits(None, None, None, None, None)
    assert decode([BROWSER_BODY], limits=off).form["title"] == "Héllo ✓"
    assert decode([b"a=1&b=2"], URLENCODED, limits=off).form["b"] == "2"


def test_file_bytes_do_not_count_as_form_memory() -> None:
    body = multipart(part('form-data; name="f"; filename="f"', b"x" * 100))
    limits = FormLimits(max_form_memory_size=10)
    assert decode([body], limits=limits).files["f"].size == 100


def test_content_length_over_the_limit_is_refused_before_reading() -> None:
    with pytest.raises(RequestEntityTooLarge, match="max_content_length"):
        FormEventDecoder(URLENCODED, content_length=11, limits=FormLimits(max_content_length=10))


def test_body_longer_than_content_length() -> None:
    decoder = FormEventDecoder(URLENCODED, content_length=3)
    with pytest.raises(BadRequest, match="longer than its Content-Length"):
        decoder.feed(b"a=12")


def test_body_shorter_than_content_length() -> None:
    decoder = FormDecoder(MULTIPART, content_length=len(BROWSER_BODY) + 1)
    decoder.feed(BROWSER_BODY)
    with pytest.raises(ClientDisconnected, match="ended after"):
        decoder.close()


def test_exact_content_length() -> None:
    form = decode([BROWSER_BODY], content_length=len(BROWSER_BODY)).form
    assert form["tag"] == "a"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_content_length": -1},
        {"max_form_parts": 1.5},
        {"max_part_headers": True},
    ],
)
def test_limits_must_be_counts(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be None or an int"):
        FormLimits(**kwargs)  # type: ignore[arg-type]


def test_negative_content_length_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="content_length"):
        FormDecoder(URLENCODED, content_length=-1)


# -- misuse and the collector -------------------------------------------------------------


def test_feed_or_close_after_close() -> None:
    decoder = FormDecoder(URLENCODED)
    decoder.close()
    with pytest.raises(ValueError, match="closed"):
        decoder.feed(b"a")
    with pytest.raises(ValueError, match="closed"):
        decoder.close()
    events = FormEventDecoder(URLENCODED)
    events.close()
    with pytest.raises(ValueError, match="closed"):
        events.feed(b"a")
    with pytest.raises(ValueError, match="closed"):
        events.close()


def test_decoder_is_closed_after_an_error() -> None:
    decoder = FormDecoder(URLENCODED, limits=FormLimits(max_content_length=1))
    with pytest.raises(RequestEntityTooLarge):
        decoder.feed(b"ab")
    with pytest.raises(ValueError, match="closed"):
        decoder.feed(b"a")
    events = FormEventDecoder(URLENCODED, limits=FormLimits(max_content_length=1))
    with pytest.raises(RequestEntityTooLarge):
        events.feed(b"ab")
    with pytest.raises(ValueError, match="closed"):
        events.close()


def test_error_in_close_discards_files() -> None:
    stream = io.BytesIO()
    decoder = FormDecoder(MULTIPART, content_length=10_000, spool=lambda: stream)
    decoder.feed(multipart(part('form-data; name="f"; filename="x"', b"data")))
    with pytest.raises(ClientDisconnected):
        decoder.close()
    assert stream.closed


@pytest.mark.parametrize(
    "events",
    [
        [FileData(b"x")],
        [FileEnd(0)],
        [FileStart("a", "a", None, ()), FileStart("b", "b", None, ())],
    ],
)
def test_collector_refuses_events_out_of_order(events: list[FormEvent]) -> None:
    with pytest.raises(ValueError, match="out of order"):
        FormCollector().send(events)


def test_collector_discard_closes_the_open_file() -> None:
    stream = io.BytesIO()
    collector = FormCollector(lambda: stream)
    collector.send([FileStart("a", "a", None, ()), FileData(b"x")])
    collector.discard()
    assert stream.closed
    assert len(collector.result().files) == 0


def test_collector_uses_the_spool_factory() -> None:
    streams: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        streams.append(io.BytesIO())
        return streams[-1]

    files = decode([BROWSER_BODY], spool=spool).files
    assert files["upload"].stream is streams[0]
    assert streams[0].getvalue() == b"line\r\n--b0und"


# -- UploadedFile and FormData ------------------------------------------------------------


def test_uploaded_file_api() -> None:
    data = decode([BROWSER_BODY])
    upload = data.files["upload"]
    assert upload.mimetype == "text/plain"
    assert upload.read(4) == b"line"
    assert upload.tell() == 4
    assert upload.seek(0) == 0
    dst = io.BytesIO()
    upload.read(2)
    assert upload.save(dst, buffer_size=3) == 13
    assert dst.getvalue() == b"line\r\n--b0und"
    assert repr(upload) == "<UploadedFile 'upload': 'a.txt' (text/plain, 13 bytes)>"
    data.close()
    assert upload.stream.closed  # type: ignore[attr-defined]


def test_uploaded_file_defaults_and_context_manager() -> None:
    stream = io.BytesIO(b"x")
    upload = UploadedFile("n", "f", None, (), stream, 1)
    assert upload.mimetype == "text/plain"
    assert "no content type" in repr(upload)
    with upload as same:
        assert same is upload
    assert stream.closed


@pytest.mark.parametrize(
    ("content_type", "mimetype"),
    [("Text/HTML; charset=utf-8", "text/html"), ("image/png", "image/png")],
)
def test_uploaded_file_mimetype(content_type: str, mimetype: str) -> None:
    upload = UploadedFile("n", "f", content_type, [], io.BytesIO(), 0)
    assert upload.mimetype == mimetype


def test_form_data_unpacks() -> None:
    form, files = decode([b"a=1"], URLENCODED)
    assert (form["a"], len(files)) == ("1", 0)


# -- safe_filename ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "safe"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\résumé.docx", "résumé.docx"),
        ("dir\\", "upload"),
        ("..", "upload"),
        ("", "upload"),
        (".htaccess", "htaccess"),
        ("  name. ", "name"),
        ('a<b>c:d"e|f?g*h', "abcdefgh"),
        ("tab\there\x00\x7f\x85", "tabhere"),
        ("CON", "_CON"),
        ("con.tar.gz", "_con.tar.gz"),
        ("COM1.txt", "_COM1.txt"),
        ("console.txt", "console.txt"),
        ("e\u0301.txt", "é.txt"),
        ("日本語.txt", "日本語.txt"),
    ],
)
def test_safe_filename(filename: str, safe: str) -> None:
    assert safe_filename(filename) == safe


def test_safe_filename_default() -> None:
    assert safe_filename("/", default="file.bin") == "file.bin"


@pytest.mark.parametrize(
    ("filename", "suffix"),
    [("é" * 300 + ".txt", ".txt"), ("a" * 300, "a"), ("a" * 300 + ".verylongsuffix12345", "a")],
)
def test_safe_filename_keeps_within_255_bytes(filename: str, suffix: str) -> None:
    safe = safe_filename(filename)
    assert len(safe.encode()) <= 255
    assert safe.endswith(suffix)
    safe.encode().decode()


@pytest.mark.parametrize(
    ("content_type", "body"), [(MULTIPART, BROWSER_BODY), (URLENCODED, URLENCODED_BODY)]
)
def test_event_decoder_and_collector_give_what_form_decoder_gives(
    content_type: str, body: bytes
) -> None:
    decoder = FormEventDecoder(content_type)
    collector = FormCollector()
    collector.send(decoder.feed(body))
    collector.send(decoder.close())
    streamed = collector.result()
    direct = decode([body], content_type)
    assert streamed.form == direct.form
    assert [(n, f.read()) for n, f in streamed.files.items(multi=True)] == [
        (n, f.read()) for n, f in direct.files.items(multi=True)
    ]


def test_close_closes_every_file_of_a_field_with_several() -> None:
    body = multipart(
        part('form-data; name="uploads"; filename="a.txt"', b"a"),
        part('form-data; name="uploads"; filename="b.txt"', b"b"),
        part('form-data; name="other"; filename="c.txt"', b"c"),
    )
    spools: list[io.BytesIO] = []

    def spool() -> io.BytesIO:
        spools.append(io.BytesIO())
        return spools[-1]

    data = decode([body], spool=spool)
    assert len(data.files.getlist("uploads")) == 2
    data.close()
    assert [file.closed for file in spools] == [True, True, True]
