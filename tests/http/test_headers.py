from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import Headers, HeaderValueError, MutableHeaders
from sansio_http.http._headers import DeferredHeaders

BROWSER = [
    (b"host", b"example.com"),
    (b"accept", b"text/html"),
    (b"accept-language", b"en-GB,en;q=0.5"),
    (b"cookie", b"a=1; b=2"),
    (b"accept", b"*/*;q=0.8"),
]

TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
tokens = st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=12)
latin1 = st.text(alphabet=st.characters(max_codepoint=255, exclude_characters="\r\n\x00"))
field_lists = st.lists(st.tuples(tokens, latin1), max_size=8)


# Reading


def test_get_first_value_case_insensitively() -> None:
    headers = Headers(BROWSER)
    assert headers.get("Accept") == "text/html"
    assert headers.get("ACCEPT-LANGUAGE") == "en-GB,en;q=0.5"
    assert headers.get("x-missing") is None
    assert headers.get("x-missing", "fallback") == "fallback"


def test_repeated_lookups_agree_with_the_first_one() -> None:
    headers = Headers(BROWSER)
    first = [headers.get(name) for name, _ in headers.items()]
    again = [headers.get(name) for name, _ in headers.items()]
    expected = ["example.com", "text/html", "en-GB,en;q=0.5", "a=1; b=2", "text/html"]
    assert first == again == expected
    assert headers.get("x-missing") is None


@pytest.mark.parametrize("lookups_before", [0, 1, 2, 5])
def test_mixed_case_raw_names_are_found_at_any_lookup(lookups_before: int) -> None:
    headers = Headers([(b"Content-Type", b"text/plain"), (b"X-Tag", b"1"), (b"x-tag", b"2")])
    for _ in range(lookups_before):
        headers.get("host")
    assert headers.get("content-type") == "text/plain"
    assert headers.get("x-TAG") == "1"
    assert headers.getlist("X-Tag") == ["1", "2"]


def test_getlist_and_get_joined() -> None:
    headers = Headers(BROWSER)
    assert headers.getlist("accept") == ["text/html", "*/*;q=0.8"]
    assert headers.get_joined("Accept") == "text/html, */*;q=0.8"
    assert headers.getlist("x-missing") == []
    assert headers.get_joined("x-missing") is None


def test_getitem_and_contains() -> None:
    headers = Headers(BROWSER)
    assert headers["Cookie"] == "a=1; b=2"
    with pytest.raises(KeyError, match="x-missing"):
        headers["x-missing"]
    assert "HOST" in headers
    assert "x-missing" not in headers
    assert 42 not in headers


def test_names_that_are_not_latin1_are_simply_absent() -> None:
    headers = Headers(BROWSER)
    assert headers.get("ĥost") is None
    assert headers.getlist("ĥost") == []
    assert "ĥost" not in headers


def test_values_are_latin1_text() -> None:
    headers = Headers([(b"x-name", b"Ren\xe9 \xff")])
    assert headers["x-name"] == "René ÿ"
    assert headers.raw() == [(b"x-name", b"Ren\xe9 \xff")]


def test_len_iter_keys_values_items_raw() -> None:
    headers = Headers([(b"Host", b"example.com"), (b"accept", b"a"), (b"ACCEPT", b"b")])
    assert len(headers) == 3
    assert list(headers) == ["host", "accept", "accept"]
    assert headers.keys() == ["host", "accept", "accept"]
    assert headers.values() == ["example.com", "a", "b"]
    assert headers.items() == [("host", "example.com"), ("accept", "a"), ("accept", "b")]
    assert headers.raw() == [(b"host", b"example.com"), (b"accept", b"a"), (b"accept", b"b")]


def test_empty_headers() -> None:
    for headers in (Headers(), Headers([]), Headers({}), Headers(())):
        assert len(headers) == 0
        assert headers.get("host") is None
        assert headers.raw() == []


# Construction


def test_asgi_raw_list_is_kept_by_reference() -> None:
    raw = [(b"host", b"example.com")]
    headers = Headers(raw)
    raw.append((b"x-late", b"1"))
    assert headers.getlist("x-late") == ["1"]


def test_asgi_pairs_may_be_lists() -> None:
    headers = Headers([[b"host", b"example.com"]])  # type: ignore[arg-type]
    assert headers.get("host") == "example.com"
    assert headers.raw() == [(b"host", b"example.com")]


def test_text_pairs_mapping_tuple_and_generator() -> None:
    expected = [(b"content-type", b"text/plain"), (b"x-a", b"\xe9")]
    assert Headers([("Content-Type", "text/plain"), ("X-A", "é")]).raw() == expected
    assert Headers({"Content-Type": "text/plain", "X-A": "é"}).raw() == expected
    assert Headers((("Content-Type", "text/plain"), ("X-A", "é"))).raw() == expected
    assert Headers(p for p in [(b"content-type", b"text/plain"), (b"x-a", b"\xe9")]).raw() == (
        expected
    )


def test_text_pairs_with_bytes_pairs_mixed_in() -> None:
    mixed = [("Content-Type", "text/plain"), (b"X-A", b"\xe9")]
    headers = Headers(mixed)  # type: ignore[arg-type]
    assert headers.raw() == [(b"content-type", b"text/plain"), (b"x-a", b"\xe9")]


def test_text_that_is_not_latin1_is_refused() -> None:
    with pytest.raises(HeaderValueError, match="latin-1"):
        Headers({"x-price": "10 €"})


def test_headers_from_headers() -> None:
    source = Headers(BROWSER)
    copy = Headers(source)
    assert copy == source
    assert copy.items() == source.items()


def test_headers_from_mutable_headers_is_a_snapshot() -> None:
    mutable = MutableHeaders({"X-A": "1"})
    snapshot = Headers(mutable)
    mutable["x-a"] = "2"
    assert snapshot.get("x-a") == "1"
    assert mutable.get("x-a") == "2"


@given(fields=field_lists)
def test_bytes_pairs_text_pairs_and_mappings_agree(fields: list[tuple[str, str]]) -> None:
    from_text = Headers(fields)
    from_bytes = Headers([(n.encode("latin-1"), v.encode("latin-1")) for n, v in fields])
    assert from_text == from_bytes
    assert from_text.items() == from_bytes.items()
    for name, _ in fields:
        assert from_text.getlist(name.upper()) == from_bytes.getlist(name)
        assert from_text.get(name) == from_bytes.get(name.upper())
    mapping = dict(fields)
    from_mapping = Headers(mapping)
    from_mapping_bytes = Headers(
        [(n.encode("latin-1"), v.encode("latin-1")) for n, v in mapping.items()]
    )
    assert from_mapping == from_mapping_bytes


# Deferred fields


class CountingSource:
    """A deferred source that counts its calls."""

    def __init__(self, fields: Any) -> None:
        self.fields = fields
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        return self.fields


def test_deferred_source_is_not_called_until_fields_are_read() -> None:
    source = CountingSource(BROWSER)
    headers = Headers.deferred(source)
    assert source.calls == 0
    assert headers.get("ACCEPT") == "text/html"
    assert source.calls == 1


def test_deferred_source_is_called_once_whatever_is_read() -> None:
    source = CountingSource(BROWSER)
    headers = Headers.deferred(source)
    for _ in range(3):
        assert headers.get("accept-language") == "en-GB,en;q=0.5"
        assert headers.getlist("accept") == ["text/html", "*/*;q=0.8"]
        assert "cookie" in headers
        assert len(headers) == 5
        assert headers.raw() == BROWSER
    assert source.calls == 1


def test_deferred_source_that_is_never_needed_is_never_called() -> None:
    source = CountingSource(BROWSER)
    Headers.deferred(source)
    assert source.calls == 0


@pytest.mark.parametrize(
    "fields",
    [
        [(b"Content-Type", b"text/plain"), (b"X-A", b"\xe9")],
        [("Content-Type", "text/plain"), ("X-A", "é")],
        {"Content-Type": "text/plain", "X-A": "é"},
        Headers([(b"content-type", b"text/plain"), (b"x-a", b"\xe9")]),
        MutableHeaders({"Content-Type": "text/plain", "X-A": "é"}),
    ],
    ids=["bytes-pairs", "text-pairs", "mapping", "headers", "mutable-headers"],
)
def test_deferred_source_may_return_any_constructor_input(fields: Any) -> None:
    headers = Headers.deferred(lambda: fields)
    assert headers.raw() == [(b"content-type", b"text/plain"), (b"x-a", b"\xe9")]
    assert headers.get("x-a") == "é"


def test_deferred_text_that_is_not_latin1_is_refused_on_first_read() -> None:
    headers = Headers.deferred(lambda: {"x-price": "10 €"})
    with pytest.raises(HeaderValueError, match="latin-1"):
        headers.get("x-price")


def test_mutable_headers_cannot_be_deferred() -> None:
    with pytest.raises(TypeError, match="cannot defer"):
        MutableHeaders.deferred(lambda: BROWSER)


def test_copy_of_deferred_headers_loads_them() -> None:
    source = CountingSource([("X-A", "1")])
    copy = Headers(Headers.deferred(source))
    assert source.calls == 1
    assert copy.raw() == [(b"x-a", b"1")]
    assert MutableHeaders(Headers.deferred(source)).raw() == [(b"x-a", b"1")]


def test_deferred_headers_are_read_only_headers() -> None:
    headers = Headers.deferred(lambda: BROWSER)
    assert isinstance(headers, Headers)
    assert not isinstance(headers, MutableHeaders)


def test_deferred_headers_without_a_source_say_what_is_missing() -> None:
    headers = DeferredHeaders()
    with pytest.raises(TypeError, match="needs a source or a _load_fields"):
        headers.get("host")


@given(fields=field_lists, lookups=st.lists(tokens, max_size=4))
def test_deferred_headers_behave_like_eager_ones(
    fields: list[tuple[str, str]], lookups: list[str]
) -> None:
    eager = Headers(fields)
    deferred = Headers.deferred(lambda: fields)
    # Lookups before and after the fields load must agree with the eager headers.
    for name in [*lookups, *(n for n, _ in fields), *lookups]:
        assert deferred.get(name) == eager.get(name)
        assert deferred.getlist(name) == eager.getlist(name)
        assert (name in deferred) == (name in eager)
    assert deferred == eager
    assert deferred.items() == eager.items()
    assert deferred.raw() == eager.raw()
    assert repr(deferred) == f"Deferred{eager!r}"


class NamesOnly(DeferredHeaders):
    """A subclass on the protected hook: fields from a mapping of lower-case names."""

    __slots__ = ("loads", "names")

    _names_lowered = True

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names
        self.loads = 0

    def _load_fields(self) -> list[tuple[bytes, bytes]]:
        self.loads += 1
        return [(name.encode(), value.encode()) for name, value in self.names.items()]

    def get(self, name: str, default: object = None) -> Any:
        return self.names.get(name.lower(), default)


def test_subclass_hook_answers_its_own_lookups_without_loading() -> None:
    headers = NamesOnly({"host": "example.com", "accept": "*/*"})
    assert headers.get("Host") == "example.com"
    assert headers["accept"] == "*/*"  # the base __getitem__ calls the override
    assert headers.loads == 0


def test_subclass_hook_loads_once_for_the_inherited_methods() -> None:
    headers = NamesOnly({"host": "example.com", "accept": "*/*"})
    assert headers.getlist("ACCEPT") == ["*/*"]
    assert headers.items() == [("host", "example.com"), ("accept", "*/*")]
    assert headers.raw() == [(b"host", b"example.com"), (b"accept", b"*/*")]
    assert headers == Headers({"Host": "example.com", "Accept": "*/*"})
    assert headers.loads == 1


# Comparison and display


def test_equality_ignores_name_case_but_not_order() -> None:
    assert Headers([(b"Host", b"a")]) == Headers([("host", "a")])
    assert Headers([(b"a", b"1"), (b"b", b"2")]) != Headers([(b"b", b"2"), (b"a", b"1")])
    assert Headers([(b"a", b"1")]) == MutableHeaders([("a", "1")])
    assert Headers([(b"a", b"1")]) != [(b"a", b"1")]


def test_headers_are_not_hashable() -> None:
    with pytest.raises(TypeError):
        hash(Headers())


def test_repr() -> None:
    assert repr(Headers([(b"Host", b"a")])) == "Headers([('host', 'a')])"
    assert repr(MutableHeaders({"X": "1"})) == "MutableHeaders([('x', '1')])"


# MutableHeaders


def test_setitem_replaces_in_place() -> None:
    headers = MutableHeaders([("a", "1"), ("b", "2"), ("A", "3"), ("c", "4")])
    headers["A"] = "9"
    assert headers.raw() == [(b"a", b"9"), (b"b", b"2"), (b"c", b"4")]
    headers["d"] = "5"
    assert headers.raw()[-1] == (b"d", b"5")


def test_lookups_see_every_change() -> None:
    headers = MutableHeaders()
    for value in ("1", "2", "3"):
        headers["x"] = value
        assert headers.get("x") == value
        assert headers.get("X") == value
    headers.add("y", "a")
    assert headers["y"] == "a"
    del headers["y"]
    assert headers.get("y") is None
    headers.extend({"z": "1"})
    assert headers.get("z") == "1"
    headers.update({"z": "2"})
    assert headers.get("z") == "2"
    headers.clear()
    assert headers.get("z") is None


def test_add_setdefault() -> None:
    headers = MutableHeaders()
    headers.add("Vary", "Accept")
    headers.add("vary", "Cookie")
    assert headers.getlist("vary") == ["Accept", "Cookie"]
    assert headers.setdefault("vary", "Origin") == "Accept"
    assert headers.setdefault("Cache-Control", "no-cache") == "no-cache"
    assert headers.getlist("cache-control") == ["no-cache"]


def test_delete_remove_pop() -> None:
    headers = MutableHeaders([("a", "1"), ("b", "2"), ("a", "3")])
    del headers["A"]
    assert headers.raw() == [(b"b", b"2")]
    with pytest.raises(KeyError, match="a"):
        del headers["a"]
    headers.remove("missing")
    headers.remove("ĥ")
    headers.remove("B")
    assert len(headers) == 0
    headers.extend([("x", "1"), ("x", "2")])
    assert headers.pop("X") == "1"
    assert "x" not in headers
    assert headers.pop("x", None) is None
    with pytest.raises(KeyError, match="x"):
        headers.pop("x")


def test_extend_accepts_every_input_form() -> None:
    headers = MutableHeaders()
    headers.extend([("A", "1")])
    headers.extend([(b"B", b"2")])
    headers.extend({"c": "3"})
    headers.extend(Headers([(b"D", b"4")]))
    assert headers.raw() == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3"), (b"d", b"4")]


def test_update_replaces_in_place_and_keeps_repeats() -> None:
    headers = MutableHeaders([("a", "1"), ("b", "2"), ("a", "3"), ("c", "4")])
    headers.update([("A", "x"), ("d", "y"), ("a", "z")])
    assert headers.items() == [("a", "x"), ("a", "z"), ("b", "2"), ("c", "4"), ("d", "y")]
    headers.update({"b": "B"})
    assert headers.items() == [("a", "x"), ("a", "z"), ("b", "B"), ("c", "4"), ("d", "y")]
    headers.update(Headers([(b"c", b"C1"), (b"c", b"C2")]))
    assert headers.getlist("c") == ["C1", "C2"]


def test_mutable_headers_from_mutable_headers_is_independent() -> None:
    source = MutableHeaders({"a": "1"})
    copy = MutableHeaders(source)
    source.add("b", "2")
    assert copy.items() == [("a", "1")]


def test_copy_is_independent() -> None:
    headers = MutableHeaders({"a": "1"})
    assert headers.get("a") == "1"
    copy = headers.copy()
    copy["a"] = "2"
    copy.add("b", "3")
    assert type(copy) is MutableHeaders
    assert headers.items() == [("a", "1")]
    assert copy.items() == [("a", "2"), ("b", "3")]


def test_raw_returns_a_new_list() -> None:
    headers = MutableHeaders({"a": "1"})
    headers.raw().append((b"b", b"2"))
    assert headers.raw() == [(b"a", b"1")]


@pytest.mark.parametrize(
    "name",
    ["", "bad name", "colon:", "x\r\ny", "x\x00", "é", "(comment)", "a/b", 'q"', "tab\t"],
)
def test_non_token_names_are_refused(name: str) -> None:
    headers = MutableHeaders()
    with pytest.raises(HeaderValueError, match="token"):
        headers[name] = "v"
    with pytest.raises(HeaderValueError):
        headers.add(name, "v")
    assert headers.raw() == []


@pytest.mark.parametrize("value", ["a\rb", "a\nb", "a\r\nSet-Cookie: x=1", "nul\x00", "\n"])
def test_cr_lf_nul_values_are_refused(value: str) -> None:
    headers = MutableHeaders({"x": "keep"})
    with pytest.raises(HeaderValueError, match="CR, LF or NUL"):
        headers["x"] = value
    with pytest.raises(HeaderValueError, match="CR, LF or NUL"):
        headers.add("y", value)
    with pytest.raises(HeaderValueError, match="CR, LF or NUL"):
        headers.extend([(b"y", value.encode())])
    assert headers.raw() == [(b"x", b"keep")]


def test_non_latin1_values_are_refused() -> None:
    with pytest.raises(HeaderValueError, match="latin-1"):
        MutableHeaders({"x-price": "10 €"})


def test_non_text_is_a_type_error() -> None:
    headers = MutableHeaders()
    with pytest.raises(TypeError, match="int"):
        headers["content-length"] = 5  # type: ignore[assignment]


def test_failed_update_changes_nothing() -> None:
    headers = MutableHeaders({"a": "1"})
    with pytest.raises(HeaderValueError):
        headers.update([("a", "2"), ("b", "bad\n")])
    with pytest.raises(HeaderValueError):
        headers.extend([("c", "3"), ("bad name", "x")])
    assert headers.items() == [("a", "1")]


def test_allowed_values_are_kept_verbatim() -> None:
    headers = MutableHeaders()
    headers["x"] = " tab\tand obs-text \xff "
    assert headers.raw() == [(b"x", b" tab\tand obs-text \xff ")]


@st.composite
def operations(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    names = st.one_of(tokens, st.text(max_size=6))
    values = st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=6)
    kinds = st.sampled_from(["set", "add", "setdefault", "extend", "update", "init"])
    return draw(st.lists(st.tuples(kinds, names, values), max_size=10))


def _apply(headers: MutableHeaders, kind: str, name: str, value: str) -> MutableHeaders:
    if kind == "set":
        headers[name] = value
    elif kind == "add":
        headers.add(name, value)
    elif kind == "setdefault":
        headers.setdefault(name, value)
    elif kind == "extend":
        headers.extend([(name.encode("utf-8"), value.encode("utf-8"))])
    elif kind == "update":
        headers.update({name: value})
    else:
        return MutableHeaders([(name, value)])
    return headers


_TOKEN_RE = re.compile(rb"[!#$%&'*+\-.^_`|~0-9a-z]+")


@given(ops=operations())
def test_raw_never_holds_a_bad_name_or_value(ops: list[tuple[str, str, str]]) -> None:
    headers = MutableHeaders()
    for kind, name, value in ops:
        try:
            headers = _apply(headers, kind, name, value)
        except HeaderValueError:
            pass
    for raw_name, raw_value in headers.raw():
        assert _TOKEN_RE.fullmatch(raw_name)
        assert b"\r" not in raw_value
        assert b"\n" not in raw_value
        assert b"\x00" not in raw_value


# -- one name at a time is text --------------------------------------------------------------


@pytest.mark.parametrize("name", [b"x", 1, None, bytearray(b"x"), ["x"]])
def test_a_name_that_is_not_text_is_a_type_error(name: object) -> None:
    # Raw bytes pairs go through the constructor and extend(); one name is text, whether
    # it is looked up or added.
    headers = MutableHeaders([(b"x", b"1")])
    lookups = (headers.get, headers.getlist, headers.get_joined, headers.remove, headers.pop)
    for lookup in lookups:
        with pytest.raises(TypeError, match="must be str"):
            lookup(name)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be str"):
        headers[name]  # type: ignore[index]
    with pytest.raises(TypeError, match="must be str"):
        headers.add(name, "v")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be str"):
        headers[name] = "v"  # type: ignore[index]
    assert name not in headers
    assert headers.raw() == [(b"x", b"1")]


def test_a_value_that_is_not_text_is_a_type_error() -> None:
    headers = MutableHeaders()
    with pytest.raises(TypeError, match="value given by itself must be str, not bytes"):
        headers.add("x", b"v")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be str"):
        headers.setdefault("x", b"v")  # type: ignore[arg-type]
    headers.extend([(b"x", b"v")])
    assert headers.get("x") == "v"
    assert Headers([(b"accept", b"*/*")]).get("Accept") == "*/*"


def test_pairs_that_are_neither_text_nor_bytes_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="str or bytes, not int"):
        MutableHeaders().extend([("content-length", 5)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str or bytes, not int"):
        Headers([("content-length", 5)])  # type: ignore[arg-type]
