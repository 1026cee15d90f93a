"""redirect(): where a browser goes, hosts as browsers map them, brackets in paths."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sansio_http import Request, UntrustedHost, redirect
from sansio_http.http._hosts import idna_name

BASE_HOST = "app.example"
# WHATWG URL: the schemes a browser parses with an authority of its own.
SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
TWO_SLASHES = re.compile(r"[/\\]{2}")


def _authority_host(text: str) -> str | None:
    # "special authority ignore slashes state": every "/" and "\" is skipped, then the
    # authority runs to the next "/", "\", "?" or "#".
    authority = re.split(r"[/\\?#]", text.lstrip("/\\"), maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    if re.search(r":[0-9]*$", host):
        host = host.rpartition(":")[0]
    return unquote(host).lower() or None


def browser_host(location: str) -> str | None:
    """Return the host a browser goes to for ``location`` from ``http://app.example/``.

    The WHATWG URL rules, as far as a ``Location`` needs them: leading and
    trailing C0 controls and spaces are stripped, tabs and newlines removed
    anywhere, ``\\`` read as ``/``, and two leading slashes start an
    authority. None when the URL has no host (the browser shows an error);
    ``"scheme:"`` for a URL of a scheme without one.
    """
    text = re.sub("[\t\n\r]", "", location.strip("".join(map(chr, range(0x21)))))
    scheme = SCHEME.match(text)
    if scheme is None:
        return _authority_host(text) if TWO_SLASHES.match(text) else BASE_HOST
    name, rest = scheme.group(1).lower(), text[scheme.end() :]
    if name not in SPECIAL_SCHEMES or name == "file":
        return name + ":"
    if name == "http" and not TWO_SLASHES.match(rest):
        return BASE_HOST  # the base's own scheme: a relative reference
    return _authority_host(rest)


def names_a_host(location: str) -> bool:
    """Tell whether a redirect target names another host on purpose.

    A scheme, or exactly two leading slashes followed by a non-empty host.
    """
    if SCHEME.match(location):
        return True
    if not location.startswith("//") or location.startswith("///"):
        return False
    return bool(re.split(r"[/\\?#]", location[2:], maxsplit=1)[0])


def test_the_resolver_reads_what_browsers_read() -> None:
    # The tests below are only as good as this model of a browser.
    assert browser_host("///evil.example/x") == "evil.example"
    assert browser_host("/\\evil.example") == "evil.example"
    assert browser_host("\\\\evil.example") == "evil.example"
    assert browser_host("/\t/evil.example") == "evil.example"
    assert browser_host(" //evil.example") == "evil.example"
    assert browser_host("https:evil.example") == "evil.example"
    assert browser_host("http:/\\evil.example") == "evil.example"
    assert browser_host("http:x") == BASE_HOST
    assert browser_host("/x//y") == BASE_HOST
    assert browser_host("//user@evil.example:8080/") == "evil.example"
    assert browser_host("//") is None
    assert browser_host("javascript:alert(1)") == "javascript:"


# -- item 0: no host unless one is named ------------------------------------------------


@pytest.mark.parametrize(
    ("location", "sent"),
    [
        ("///evil.example", "/.///evil.example"),
        ("////evil.example/a?b#c", "/.////evil.example/a?b#c"),
        ("//\\evil.example", "/.//%5Cevil.example"),
        ("//\tevil.example", "/.//%09evil.example"),
        ("//\nevil.example", "/.//%0Aevil.example"),
        ("//", "/.//"),
        ("//?next=1", "/.//?next=1"),
        ("//#top", "/.//#top"),
        ("/\\evil.example", "/%5Cevil.example"),
        ("\\\\evil.example", "%5C%5Cevil.example"),
        ("/\t/evil.example", "/%09/evil.example"),
        ("/\n/evil.example", "/%0A/evil.example"),
    ],
)
def test_a_path_that_names_no_host_stays_on_the_site(location: str, sent: str) -> None:
    assert redirect(location).headers["location"] == sent
    assert browser_host(sent) == BASE_HOST


def test_a_dot_segment_keeps_the_same_path() -> None:
    # RFC 3986 §5.2.4: "/.//x" resolves to the path "//x" on the same host.
    sent = redirect("///x/y?q=1").headers["location"]
    assert urljoin("http://app.example/a/b", sent) == "http://app.example///x/y?q=1"


@pytest.mark.parametrize(
    ("location", "sent"),
    [
        ("//cdn.example/x", "//cdn.example/x"),
        ("//cdn.example", "//cdn.example"),
        ("//user@cdn.example:8443/x", "//user@cdn.example:8443/x"),
        ("https://cdn.example/x", "https://cdn.example/x"),
        ("file:///srv/x", "file:///srv/x"),
        ("mailto:someone@example.com", "mailto:someone@example.com"),
    ],
)
def test_a_host_named_on_purpose_is_kept(location: str, sent: str) -> None:
    assert redirect(location).headers["location"] == sent


@pytest.mark.parametrize(
    "location",
    ["http:///evil.example", "https:evil.example", "HTTPS:/evil.example", "ws:\\\\evil.example"],
)
def test_a_web_url_without_a_host_is_refused(location: str) -> None:
    # RFC 9110 §4.2.1: an http URI has an authority with a host; urlsplit finds none
    # in these, and browsers go to evil.example.
    assert urlsplit(location).netloc == ""
    with pytest.raises(ValueError, match="needs '//' and a host"):
        redirect(location)


PIECES = [
    "/",
    "//",
    "\\",
    "\t",
    "\n",
    "\r",
    " ",
    "\x00",
    "\x0b",
    "evil.example",
    BASE_HOST,
    "http:",
    "https:",
    "HtTp:",
    "javascript:",
    "@",
    ":",
    "?",
    "#",
    "%",
    "%2F",
    "%5C",
    "%09",
    ".",
    "..",
    "ß",
    "\uff45",  # fullwidth e
    "\uff0f",  # fullwidth solidus
    "\uff3c",  # fullwidth reverse solidus
    "[",
    "]",
    "x",
]
TARGETS = st.one_of(
    st.text(),
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.tuples(st.lists(st.sampled_from(PIECES), max_size=5), st.text(max_size=6)).map(
        lambda parts: "".join(parts[0]) + parts[1]
    ),
)


@given(location=TARGETS)
@example(location="///x")
@example(location="//\\x")
@example(location="/\t/x")
@example(location="\\\\x")
@example(location="http:///x")
def test_a_redirect_leaves_the_site_only_for_a_host_named_on_purpose(location: str) -> None:
    try:
        sent = redirect(location).headers["location"]
    except ValueError:
        return  # refused: nothing is sent
    host = browser_host(sent)
    if host is not None and host != BASE_HOST:
        assert names_a_host(location), (location, sent, host)
    assert not sent.startswith(("//", "/\\")) or names_a_host(location)


# -- item 7: brackets belong to an IP literal only ----------------------------------------


@pytest.mark.parametrize(
    ("location", "sent"),
    [
        ("/a[b]", "/a%5Bb%5D"),
        ("/search?tags[]=a&tags[]=b", "/search?tags%5B%5D=a&tags%5B%5D=b"),
        ("/page#[section]", "/page#%5Bsection%5D"),
        ("http://[::1]:8080/a[1]", "http://[::1]:8080/a%5B1%5D"),
        ("//[2001:db8::1]/x?y=[z]", "//[2001:db8::1]/x?y=%5Bz%5D"),
        ("http://[::1]", "http://[::1]"),
    ],
)
def test_brackets_are_encoded_outside_the_host(location: str, sent: str) -> None:
    # RFC 3986 §3.2.2: "[" and "]" enclose an IP literal; §3.3-§3.5 allow them
    # nowhere else.
    assert redirect(location).headers["location"] == sent


@given(location=st.text())
def test_no_bracket_is_raw_outside_the_authority(location: str) -> None:
    try:
        sent = redirect(location).headers["location"]
    except ValueError:
        return
    after_authority = re.sub(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//[^/?#]*", "", sent)
    assert "[" not in after_authority
    assert "]" not in after_authority


# -- hosts as browsers map them (UTS #46, non-transitional) -------------------------------


@pytest.mark.parametrize(
    ("location", "sent"),
    [
        # IDNA 2003 would send fass.de, another host than the browser's.
        ("http://faß.de/x", "http://xn--fa-hia.de/x"),
        ("http://FAß.de/", "http://xn--fa-hia.de/"),
        ("//straße.example/", "//xn--strae-oqa.example/"),
        # A final sigma stays a final sigma; a capital sigma is a sigma.
        ("https://\u03b1\u03c2.gr/", "https://xn--mxa8a.gr/"),
        ("https://\u0391\u03a3.gr/", "https://xn--mxa0b.gr/"),
        # ZWJ and ZWNJ: left to the browser, percent-encoded.
        ("http://a\u200db.example/", "http://a%E2%80%8Db.example/"),
        ("http://a\u200cb.example/", "http://a%E2%80%8Cb.example/"),
        # Capital sharp s is newer than IDNA 2003's Unicode 3.2: left to the browser.
        ("http://fa\u1e9e.de/", "http://fa%E1%BA%9E.de/"),
        # A character IDNA 2003 maps to "." would split a label no browser splits.
        ("http://evil\u2024good.example/", "http://evil%E2%80%A4good.example/"),
        ("http://exämple.com/", "http://xn--exmple-cua.com/"),
    ],
)
def test_a_host_is_the_one_a_browser_reaches(location: str, sent: str) -> None:
    assert redirect(location).headers["location"] == sent


@pytest.mark.parametrize(
    ("name", "ascii_name"),
    [
        ("faß.de", "xn--fa-hia.de"),
        ("\u03b1\u03c2.gr", "xn--mxa8a.gr"),
        ("ß", "xn--zca"),
        ("exämple.com", "xn--exmple-cua.com"),
        ("a\u200db", None),
        ("\u13a0\u13a1.example", None),  # Cherokee: today's lower-casing, not Unicode 3.2's
        ("x\U0002f868.example", None),  # a decomposition corrected after Unicode 3.2
        ("a\u3164b.example", None),  # a Hangul filler, which UTS #46 ignores
        ("a\u1806b.example", None),  # a soft hyphen IDNA 2003 drops and UTS #46 keeps
        ("evil\uff03.example", None),  # maps to "#"
        ("\u00ad.example", None),  # maps to an empty label
        ("xn--ä.example", None),  # an A-label prefix on a U-label
        ("straße\u1e9e.de", None),  # beside "ß", a character newer than Unicode 3.2
        ("ßA\u0301.de", "xn--zcae.de"),  # the text beside "ß" is mapped: "A" and U+0301 are "á"
    ],
)
def test_idna_name_agrees_with_browsers_or_declines(name: str, ascii_name: str | None) -> None:
    assert idna_name(name) == ascii_name


def test_trusted_hosts_and_server_names_are_mapped_as_browsers_do() -> None:
    def host_of(trusted: list[str], host: str) -> str:
        request = Request(
            "GET", "/", b"", [("host", host)], "http", None, "", trusted_hosts=trusted
        )
        return request.host

    assert host_of(["faß.de"], "xn--fa-hia.de") == "xn--fa-hia.de"
    # A capital sigma at the end of a word is a sigma to a browser, whatever
    # str.lower() makes of it.
    assert host_of(["\u0391\u03a3.gr"], "xn--mxa0b.gr") == "xn--mxa0b.gr"
    with pytest.raises(UntrustedHost):
        host_of(["faß.de"], "fass.de")
    server = Request("GET", "/", b"", [], "http", None, "", server=("faß.de", 8080))
    assert server.host == "xn--fa-hia.de:8080"


def _uts46(name: str) -> str | None:
    idna = pytest.importorskip("idna")
    try:
        mapped = idna.uts46_remap(name, std3_rules=False, transitional=False)
    except idna.IDNAError:
        return None
    labels = unicodedata.normalize("NFC", mapped).split(".")
    return ".".join(
        label if label.isascii() else "xn--" + label.encode("punycode").decode() for label in labels
    ).lower()


NAME_CHARS = st.one_of(
    st.sampled_from(list("aZ9-_.ßςΣσÄäöü\u0301\u0308\u0345ΐİ\u0131\u3002\uff0e\u200c\u200d\u1e9e")),
    st.characters(min_codepoint=0x80, max_codepoint=0x2FFFF, exclude_categories=["Cs"]),
)


@given(name=st.text(NAME_CHARS, min_size=1, max_size=12))
@example(name="faß")
@example(name="ας")
@example(name="ΑΣ")
def test_an_ascii_host_is_the_browsers_own(name: str) -> None:
    # The oracle: UTS #46 non-transitional mapping, as the idna package implements it.
    sent = redirect(f"http://{name}/").headers["location"]
    host = urlsplit(sent).netloc
    if "%" in host:
        return  # percent-encoded: the browser maps the text itself
    assert host.lower() == _uts46(name), (name, host)
