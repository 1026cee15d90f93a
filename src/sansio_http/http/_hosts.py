"""Hosts and client addresses: validating, trusting and reading them.

This module holds the rules shared by :class:`~sansio_http.Request` and
:class:`~sansio_http.ProxyPolicy`: what a well-formed Host value is (RFC
9110 §7.2, RFC 3986 §3.2.2), how a server address stands in for a missing
one, how ``trusted_hosts`` entries match, and how an IP address is read out
of a Forwarded or X-Forwarded-For node. It never raises on client input.
"""

from __future__ import annotations

import re
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
# The label separators of IDNA 2003 (RFC 3490 §3.1), which Python's codec splits on.
_IDNA_DOTS = re.compile("[.\u3002\uff0e\uff61]")
# RFC 7239 §6: node-port = port / obfport.
NODE_PORT_RE = re.compile(r":(?:[0-9]{1,5}|_[a-zA-Z0-9._-]+)", re.ASCII)


def idna_name(name: str) -> str | None:
    """Return a host name in its ASCII form by IDNA, or None if it has none.

    SECURITY: punycode takes time quadratic in the length of a label (8,000
    CJK characters took 30 s), so a name longer than DNS allows is refused
    before it is encoded: every call costs at most a 253-character name.
    """
    bare = name[:-1] if name[-1:] in (".", "\u3002", "\uff0e", "\uff61") else name
    if len(bare) > _MAX_NAME or any(len(label) > _MAX_LABEL for label in _IDNA_DOTS.split(bare)):
        return None
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return None


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


def host_name(host: str) -> str:
    """Return ``host`` without its port and without a trailing dot."""
    if host.startswith("["):
        return host[: host.find("]") + 1]
    name = host.partition(":")[0]
    # An absolute domain name ends with a dot: "example.com." is example.com.
    return name[:-1] if name.endswith(".") else name


def _trusted_name(entry: str) -> str:
    """Return a ``trusted_hosts`` entry as a lower-case ASCII host name."""
    name = host_name(entry.strip().lower())
    if name.isascii():
        return name
    # An entry IDNA cannot encode can never equal a validated host.
    return idna_name(name) or name


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
