from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import ImmutableMultiDict, MultiDict

PAIRS = [("tag", "a"), ("page", "2"), ("tag", "b"), ("q", "x")]


@pytest.fixture(params=[ImmutableMultiDict, MultiDict])
def kind(request: pytest.FixtureRequest) -> type[ImmutableMultiDict[str, str]]:
    cls: type[ImmutableMultiDict[str, str]] = request.param
    return cls


def test_construction_from_pairs_mapping_and_multidict(
    kind: type[ImmutableMultiDict[str, str]],
) -> None:
    from_pairs = kind(PAIRS)
    assert from_pairs.lists() == [("tag", ["a", "b"]), ("page", ["2"]), ("q", ["x"])]
    assert kind({"a": "1", "b": "2"}).items() == [("a", "1"), ("b", "2")]
    assert kind(MultiDict(PAIRS)) == from_pairs
    assert kind(ImmutableMultiDict(PAIRS)) == from_pairs
    assert kind(iter(PAIRS)) == from_pairs
    assert len(kind()) == 0


def test_reading(kind: type[ImmutableMultiDict[str, str]]) -> None:
    md = kind(PAIRS)
    assert md["tag"] == "a"
    with pytest.raises(KeyError):
        md["missing"]
    assert md.get("tag") == "a"
    assert md.get("missing") is None
    assert md.get("missing", "d") == "d"
    assert md.getlist("tag") == ["a", "b"]
    assert md.getlist("missing") == []
    assert "tag" in md
    assert "missing" not in md
    assert len(md) == 3
    assert list(md) == ["tag", "page", "q"]
    assert md.keys() == ["tag", "page", "q"]
    assert md.values() == ["a", "2", "x"]
    assert md.items() == [("tag", "a"), ("page", "2"), ("q", "x")]
    assert md.items(multi=True) == [("tag", "a"), ("tag", "b"), ("page", "2"), ("q", "x")]
    assert md.to_dict() == {"tag": "a", "page": "2", "q": "x"}
    assert md.to_dict(flat=False) == {"tag": ["a", "b"], "page": ["2"], "q": ["x"]}
    assert dict(md) == md.to_dict()


def test_get_with_type(kind: type[ImmutableMultiDict[str, str]]) -> None:
    md = kind([("page", "2"), ("size", "big"), ("n", "1"), ("n", "x"), ("n", "3")])
    assert md.get("page", type=int) == 2
    assert md.get("size", type=int) is None
    assert md.get("size", -1, int) == -1
    assert md.get("missing", 0, type=int) == 0
    assert md.getlist("n", type=int) == [1, 3]
    assert md.getlist("missing", type=int) == []


def test_type_error_from_the_converter_gives_the_default() -> None:
    def needs_digits(value: str) -> int:
        if not value.isdigit():
            raise TypeError(value)
        return int(value)

    md = ImmutableMultiDict([("a", "x"), ("a", "7")])
    assert md.get("a", "bad", needs_digits) == "bad"
    assert md.getlist("a", needs_digits) == [7]


def test_returned_lists_are_copies(kind: type[ImmutableMultiDict[str, str]]) -> None:
    md = kind(PAIRS)
    md.getlist("tag").append("c")
    md.lists()[0][1].append("c")
    md.to_dict(flat=False)["tag"].append("c")
    assert md.getlist("tag") == ["a", "b"]


def test_copy(kind: type[ImmutableMultiDict[str, str]]) -> None:
    md = kind(PAIRS)
    copy = md.copy()
    assert copy == md
    assert type(copy) is kind


def test_equality_and_hash() -> None:
    assert MultiDict(PAIRS) == ImmutableMultiDict(PAIRS)
    assert MultiDict([("a", "1"), ("a", "2")]) != MultiDict([("a", "2"), ("a", "1")])
    assert MultiDict({"a": "1"}) != {"a": "1"}
    with pytest.raises(TypeError):
        hash(ImmutableMultiDict())


def test_repr() -> None:
    assert repr(MultiDict([("a", "1"), ("a", "2")])) == "MultiDict([('a', '1'), ('a', '2')])"
    assert repr(ImmutableMultiDict({"a": 1})) == "ImmutableMultiDict([('a', 1)])"


def test_immutable_has_no_mutators() -> None:
    md: ImmutableMultiDict[str, str] = ImmutableMultiDict(PAIRS)
    with pytest.raises(TypeError):
        md["a"] = "b"  # type: ignore[index]
    assert not hasattr(md, "add")
    assert not hasattr(md, "__dict__")


def test_setitem_replaces_and_del() -> None:
    md = MultiDict(PAIRS)
    md["tag"] = "z"
    assert md.getlist("tag") == ["z"]
    del md["tag"]
    assert "tag" not in md
    with pytest.raises(KeyError):
        del md["tag"]


def test_add_setlist_setdefault() -> None:
    md: MultiDict[str, str] = MultiDict()
    md.add("a", "1")
    md.add("a", "2")
    assert md.getlist("a") == ["1", "2"]
    md.setlist("b", iter(["x", "y"]))
    assert md.getlist("b") == ["x", "y"]
    md.setlist("b", [])
    assert "b" not in md
    md.setlist("missing", [])
    assert md.setdefault("a", "9") == "1"
    assert md.setdefault("c", "9") == "9"
    assert md.getlist("c") == ["9"]


def test_pop_and_poplist() -> None:
    md = MultiDict(PAIRS)
    assert md.pop("tag") == "a"
    assert "tag" not in md
    assert md.pop("tag", None) is None
    with pytest.raises(KeyError):
        md.pop("tag")
    md.add("n", "1")
    md.add("n", "2")
    assert md.poplist("n") == ["1", "2"]
    assert md.poplist("n") == []


def test_update_adds_values() -> None:
    md = MultiDict([("a", "1")])
    md.update({"a": "2", "b": "3"})
    md.update([("a", "4")])
    md.update(ImmutableMultiDict([("b", "5"), ("b", "6")]))
    assert md.lists() == [("a", ["1", "2", "4"]), ("b", ["3", "5", "6"])]
    md.update(md)
    assert md.getlist("a") == ["1", "2", "4", "1", "2", "4"]
    md.clear()
    assert len(md) == 0


def test_generic_keys_and_values() -> None:
    md: MultiDict[int, bytes] = MultiDict([(1, b"a"), (1, b"b")])
    assert md[1] == b"a"
    assert md.getlist(1) == [b"a", b"b"]


@given(st.lists(st.tuples(st.text(max_size=3), st.integers()), max_size=12))
def test_items_multi_keeps_every_value_in_order(pairs: list[tuple[str, int]]) -> None:
    md = MultiDict(pairs)
    grouped = [(key, value) for key in md for name, value in pairs if name == key]
    assert md.items(multi=True) == grouped
    for key in md:
        assert md.getlist(key) == [v for k, v in pairs if k == key]
        assert md[key] == next(v for k, v in pairs if k == key)
    assert len(md) == len({k for k, _ in pairs})
