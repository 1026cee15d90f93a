"""Host names: IDNA encoding bounded by the DNS limits (RFC 1035 §2.3.4)."""

from __future__ import annotations

import encodings.idna

import pytest

from sansio_http.http._hosts import host_is_trusted, idna_name, server_host

LONG_CJK = "".join(map(chr, range(0x4E00, 0x4E00 + 4000)))


@pytest.mark.parametrize(
    ("name", "ascii_name"),
    [
        ("exämple.com", "xn--exmple-cua.com"),
        ("exämple.com.", "xn--exmple-cua.com."),
        ("例え。テスト", "xn--r8jz45g.xn--zckzah"),
        (".".join(["a" * 63] * 3) + "." + "b" * 61, ".".join(["a" * 63] * 3) + "." + "b" * 61),
    ],
)
def test_names_within_the_limits_are_encoded(name: str, ascii_name: str) -> None:
    assert idna_name(name) == ascii_name


@pytest.mark.parametrize(
    "name",
    [
        "ä" * 64 + ".com",  # a label over 63 characters can have no A-label within 63 octets
        ".".join(["bü"] * 90),  # labels fit, the name is over 253 characters
        "a" * 64,
        "a..b",  # an empty label
        LONG_CJK,
    ],
)
def test_names_over_the_limits_have_no_ascii_form(name: str) -> None:
    assert idna_name(name) is None


def test_a_long_name_never_reaches_the_idna_codec(monkeypatch: pytest.MonkeyPatch) -> None:
    # SECURITY: punycode is quadratic in the length of a label.
    labels: list[str] = []
    real = encodings.idna.ToASCII

    def spy(label: str) -> bytes:
        labels.append(label)
        return real(label)

    monkeypatch.setattr(encodings.idna, "ToASCII", spy)
    assert server_host((LONG_CJK, 8080), "http") == ""
    assert not host_is_trusted("example.com", [LONG_CJK + ".com"])
    assert labels == []
    assert server_host(("exämple.com", 8080), "http") == "xn--exmple-cua.com:8080"
    assert host_is_trusted("xn--exmple-cua.com", ["exämple.com"])
    assert labels
