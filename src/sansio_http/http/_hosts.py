"""Hosts and client addresses: validating, trusting and reading them.

This module holds the rules shared by :class:`~sansio_http.Request` and
:class:`~sansio_http.ProxyPolicy`: what a well-formed Host value is (RFC
9110 §7.2, RFC 3986 §3.2.2), how a server address stands in for a missing
one, how ``trusted_hosts`` entries match, how an IP address is read out of
a Forwarded or X-Forwarded-For node, and how a non-ASCII host name is
mapped to the ASCII form a browser gives it (``idna_name``, also used by
``redirect``). It never raises on client input.
"""

from __future__ import annotations

import encodings.idna
import re
import unicodedata
from collections.abc import Collection
from ipaddress import IPv6Address, ip_address

from sansio_http.http._headers import Headers

# RFC 9110 §7.2: Host = uri-host [ ":" port ], with uri-host from RFC 3986
# §3.2.2: an IP-literal in brackets, or a reg-name (which also covers IPv4).
_HOST_RE = re.compile(
    r"""
    (?P<name>
        (?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*     # reg-name or IPv4address
      | \[(?P<ipv6>[0-9a-f:.]+)\]                     # IPv6address
      | \[v[0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+\]    # IPvFuture
    )
    (?::(?P<port>[0-9]{0,5}))?
    """,
    re.ASCII | re.IGNORECASE | re.VERBOSE,
)
_DEFAULT_PORTS = {"http": "80", "ws": "80", "https": "443", "wss": "443"}
# RFC 1035 §2.3.4: a label holds at most 63 octets and a name at most 255, which is 253
# characters written out without the trailing dot. An IDNA A-label is never shorter than
# the U-label it encodes, so a name over these limits can have no ASCII form.
_MAX_LABEL = 63
_MAX_NAME = 253
# The label separators of IDNA 2003 (RFC 3490 §3.1), which Python's codec splits on;
# UTS #46 maps the same four characters to ".".
_IDNA_DOTS = re.compile("[.\u3002\uff0e\uff61]")
# What an A-label, or an ASCII label, may hold once mapped: letters, digits, "-" and "_".
# Anything else ("/", "#", "@", or a "." that a character such as U+2024 maps to) would
# move the host or split a label where a browser sees none.
_ASCII_LABEL = re.compile(r"[A-Za-z0-9_-]+")
# SECURITY: browsers map a host by UTS #46 with non-transitional processing (the WHATWG
# URL standard, "domain to ASCII"); Python's codec implements IDNA 2003 (RFC 3490) on
# Unicode 3.2. Both map almost every label alike. Where they differ, the codec's answer
# names another host than the one a browser reaches, so it is never used:
# - the deviation characters (UTS #46 §2.3): IDNA 2003 maps "ß" to "ss" and the final
#   sigma U+03C2 to U+03C3, and drops ZWJ and ZWNJ; non-transitional processing keeps
#   all four;
_SHARP_S_AND_FINAL_SIGMA = re.compile("([\u00df\u03c2])")
_JOINERS = frozenset("\u200c\u200d")
# - characters UTS #46 ignores or keeps where IDNA 2003 does the opposite: the Hangul
#   fillers and the Khmer inherent vowels (ignored by UTS #46), and U+1806 MONGOLIAN
#   TODO SOFT HYPHEN (dropped by IDNA 2003);
_MAPPED_OTHERWISE = frozenset("\u115f\u1160\u17b4\u17b5\u1806\u3164\uffa0")
# - characters Unicode 3.2 did not have, in the label or in its mapping (the codec lets
#   them through unmapped, or lower-cases with today's tables: Cherokee); and the five
#   CJK compatibility ideographs whose decomposition Unicode corrected after 3.2.
_UCD_3_2 = unicodedata.ucd_3_2_0
# RFC 7239 §6: node-port = port / obfport.
NODE_PORT_RE = re.compile(r":(?:[0-9]{1,5}|_[a-zA-Z0-9._-]+)", re.ASCII)


def _in_unicode_3_2(text: str) -> bool:
    return all(_UCD_3_2.category(char) != "Cn" for char in text)


def _nameprep(text: str) -> str | None:
    """Return ``text`` mapped by nameprep, or None where UTS #46 may map it otherwise."""
    if not _MAPPED_OTHERWISE.isdisjoint(text) or not _in_unicode_3_2(text):
        return None
    if _UCD_3_2.normalize("NFKC", text) != unicodedata.normalize("NFKC", text):
        return None  # a decomposition corrected after Unicode 3.2
    try:
        mapped: str = encodings.idna.nameprep(text)
    except UnicodeError:
        return None
    return mapped if _in_unicode_3_2(mapped) else None


def _a_label(label: str) -> str | None:
    """Return the ASCII form a browser gives one label, or None if unsure."""
    if label.isascii():
        return label if _ASCII_LABEL.fullmatch(label) else None
    if not _JOINERS.isdisjoint(label):
        # RFC 5892 Appendix A.1/A.2 (CONTEXTJ) allows ZWJ and ZWNJ only next to a virama
        # or between joining letters; the standard library has no joining types to check.
        return None
    if _SHARP_S_AND_FINAL_SIGMA.search(label) is None:
        if _nameprep(label) is None:
            return None
        try:
            ascii_label = label.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    else:
        # UTS #46 non-transitional processing: map the text around each "ß" and "ς" as
        # IDNA 2003 does, keep those two, and Punycode the result (RFC 3492). Neither
        # composes with a neighbour under NFC, so mapping the pieces apart is exact.
        pieces = _SHARP_S_AND_FINAL_SIGMA.split(label)
        for index in range(0, len(pieces), 2):
            mapped = _nameprep(pieces[index]) if pieces[index] else ""
            if mapped is None:
                return None
            pieces[index] = mapped
        ascii_label = "xn--" + "".join(pieces).encode("punycode").decode("ascii")
    if len(ascii_label) > _MAX_LABEL or not _ASCII_LABEL.fullmatch(ascii_label):
        return None
    return ascii_label


def idna_name(name: str) -> str | None:
    """Return a host name in the ASCII form a browser gives it, or None.

    Labels are mapped as browsers map them (UTS #46, non-transitional, as
    the WHATWG URL standard asks): ``faß.de`` is ``xn--fa-hia.de``, not the
    ``fass.de`` of Python's IDNA 2003 codec. None means the name has no
    ASCII form, or one this function cannot be sure a browser agrees with
    (ZWJ or ZWNJ, characters newer than Unicode 3.2, a label mapped to
    anything but letters, digits, ``-`` and ``_``); a caller then keeps the
    name as text, percent-encoded in a URL, where a browser maps it itself.

    SECURITY: punycode takes time quadratic in the length of a label (8,000
    CJK characters took 30 s), so a name longer than DNS allows is refused
    before it is encoded: every call costs at most a 253-character name.
    """
    trailing_dot = name[-1:] in (".", "\u3002", "\uff0e", "\uff61")
    bare = name[:-1] if trailing_dot else name
    labels = _IDNA_DOTS.split(bare)
    if len(bare) > _MAX_NAME or any(len(label) > _MAX_LABEL for label in labels):
        return None
    ascii_labels = []
    for label in labels:
        ascii_label = _a_label(label)
        if ascii_label is None:
            return None
        ascii_labels.append(ascii_label)
    return ".".join(ascii_labels) + ("." if trailing_dot else "")


def split_host(value: str) -> tuple[str, str | None] | None:
    """Split a Host value into its host and port after checking its grammar.

    ``Host = uri-host [ ":" port ]`` (RFC 9110 §7.2, RFC 3986 §3.2.2). The
    host may be empty (a reg-name may be), and an IPv6 literal must be an
    address (no zone, which RFC 3986 has no place for).

    Args:
        value: The field value, without surrounding white space.

    Returns:
        The host as written and the port digits (None without ``:``), or
        None for a value that breaks the grammar.
    """
    match = _HOST_RE.fullmatch(value)
    if match is None:
        return None
    ipv6 = match.group("ipv6")
    if ipv6 is not None:
        try:
            IPv6Address(ipv6)
        except ValueError:
            return None
    return match.group("name"), match.group("port")


def validate_host(value: str, scheme: str) -> str | None:
    """Return ``value`` as a lower-cased ``host[:port]``, or None if malformed."""
    parts = split_host(value)
    if parts is None or not parts[0]:
        return None
    name, port = parts
    name = name.lower()
    if not port:
        # RFC 3986 §3.2.3: an empty port is the same as no port.
        return name
    port = port.lstrip("0") or "0"
    if port == _DEFAULT_PORTS.get(scheme):
        return name
    return f"{name}:{port}" if int(port) <= 65535 else None


def server_host(server: tuple[str, int | None] | None, scheme: str) -> str:
    """Return the ``host[:port]`` of the server address, or ``""``."""
    # A Unix socket server is ``(path, None)``: its path names no host.
    if server is None or server[1] is None:
        return ""
    name, port = server
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    elif not name.isascii():
        ascii_name = idna_name(name)
        if ascii_name is None:
            return ""
        name = ascii_name
    return validate_host(f"{name}:{port}", scheme) or ""


def find_host(headers: Headers, server: tuple[str, int | None] | None, scheme: str) -> str:
    """Return the validated host of a request, or ``""`` when it has none.

    The ``Host`` header wins; the server address stands in when it is
    absent, empty or malformed. RFC 9112 §3.2 makes a request with two Host
    fields invalid, so a repeated Host counts as malformed.
    """
    values = headers.getlist("host")
    if len(values) == 1 and values[0]:
        host = validate_host(values[0], scheme)
        if host is not None:
            return host
    return server_host(server, scheme)


def trusted_host(
    headers: Headers,
    server: tuple[str, int | None] | None,
    scheme: str,
    trusted_hosts: Collection[str],
) -> str | None:
    """Return the validated host of a request if ``trusted_hosts`` holds it, else None.

    SECURITY: a Host header that is present is the only candidate; falling
    back to the server name would hide a malformed one. A repeated Host
    counts as malformed (RFC 9112 §3.2).
    """
    values = headers.getlist("host")
    if len(values) > 1 or (values and values[0]):
        host = validate_host(values[0], scheme) if len(values) == 1 else None
    else:
        host = server_host(server, scheme)
    if host is None or not host_is_trusted(host, trusted_hosts):
        return None
    return host


def host_name(host: str) -> str:
    """Return ``host`` without its port and without a trailing dot."""
    if host.startswith("["):
        return host[: host.find("]") + 1]
    name = host.partition(":")[0]
    # An absolute domain name ends with a dot: "example.com." is example.com.
    return name[:-1] if name.endswith(".") else name


def _trusted_name(entry: str) -> str:
    """Return a ``trusted_hosts`` entry as a lower-case ASCII host name."""
    name = host_name(entry.strip())
    if name.isascii():
        return name.lower()
    # NOTE: lower-case after IDNA, never before: str.lower() turns a capital sigma at
    # the end of a word into the final sigma U+03C2, where UTS #46 maps it to U+03C3,
    # another host. An entry without an ASCII form can never equal a validated host.
    ascii_name = idna_name(name)
    return name if ascii_name is None else ascii_name.lower()


def host_is_trusted(host: str, trusted_hosts: Collection[str]) -> bool:
    """Tell whether ``host`` matches one of ``trusted_hosts``.

    An entry starting with a dot, such as ``.example.com``, matches that
    domain and all its subdomains. Ports are not compared.
    """
    if not host:
        return False
    name = host_name(host)
    if isinstance(trusted_hosts, str):
        trusted_hosts = (trusted_hosts,)
    for entry in trusted_hosts:
        if entry.startswith("."):
            suffix = _trusted_name(entry[1:])
            if suffix and (name == suffix or name.endswith("." + suffix)):
                return True
        elif name == _trusted_name(entry):
            return True
    return False


def node_address(node: str) -> str | None:
    """Return the IP address in a forwarding node, or None if it has none.

    Accepts the RFC 7239 §6 forms ``192.0.2.1``, ``192.0.2.1:80``,
    ``[2001:db8::1]`` and ``[2001:db8::1]:80``, and the bare IPv6 form that
    X-Forwarded-For carries; the address comes back in its canonical form.
    """
    node = node.strip(" \t")
    if node.startswith("["):
        host, bracket, port = node[1:].partition("]")
        if not bracket or (port and not NODE_PORT_RE.fullmatch(port)):
            return None
        try:
            return str(IPv6Address(host))
        except ValueError:
            return None
    try:
        return str(ip_address(node))
    except ValueError:
        pass
    host, colon, port = node.partition(":")
    if not colon or not NODE_PORT_RE.fullmatch(colon + port):
        return None
    try:
        return str(ip_address(host))
    except ValueError:
        return None
