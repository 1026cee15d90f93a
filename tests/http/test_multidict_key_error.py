"""What a multidict raises for an absent key: its class's ``key_error``."""

from __future__ import annotations

import pytest

from sansio_http import ImmutableMultiDict, MultiDict


class _Missing(KeyError):
    pass


class _Strict(ImmutableMultiDict[str, str]):
    __slots__ = ()
    key_error = _Missing


class _StrictMutable(MultiDict[str, str]):
    __slots__ = ()
    key_error = _Missing


def test_the_default_is_a_plain_key_error_carrying_the_key() -> None:
    for md in (ImmutableMultiDict({"a": "1"}), MultiDict({"a": "1"})):
        with pytest.raises(KeyError) as caught:
            md["b"]
        assert type(caught.value) is KeyError
        assert caught.value.args == ("b",)


def test_a_subclass_names_the_error_and_reads_stay_quiet() -> None:
    md = _Strict([("a", "1"), ("a", "2")])
    with pytest.raises(_Missing) as caught:
        md["b"]
    assert caught.value.args == ("b",)
    assert md["a"] == "1"
    assert md.get("b") is None
    assert md.get("b", "x") == "x"
    assert "b" not in md
    assert md.getlist("b") == []


def test_a_mutable_subclass_raises_it_from_pop_and_del_too() -> None:
    md = _StrictMutable({"a": "1"})
    for remove in (md.pop, md.__delitem__, md.__getitem__):
        with pytest.raises(_Missing):
            remove("b")
    assert md.pop("b", None) is None
    del md["a"]
    assert len(md) == 0


def test_a_copy_keeps_the_subclass_and_a_private_one_shows_the_public_name() -> None:
    md = _Strict({"a": "1"})
    assert type(md.copy()) is _Strict
    assert repr(md) == "ImmutableMultiDict([('a', '1')])"
    assert md == ImmutableMultiDict({"a": "1"})


def test_a_copy_into_a_mutable_multidict_never_shares_its_lists() -> None:
    frozen = _Strict([("a", "1")])
    thawed = MultiDict(frozen)
    thawed.add("a", "2")
    assert frozen.getlist("a") == ["1"]
    source = MultiDict([("a", "1")])
    kept = _Strict(source)
    source.add("a", "2")
    assert kept.getlist("a") == ["1"]
    # Two read-only ones may share, since neither can change.
    assert _Strict(ImmutableMultiDict([("a", "1")])).getlist("a") == ["1"]
