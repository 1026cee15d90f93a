"""The proxy trust policy: which forwarding headers to believe, and how far.

A reverse proxy tells the application about the original client in the
Forwarded header (RFC 7239) or the de facto X-Forwarded-For, -Proto, -Host,
-Port and -Prefix headers. Any client can send those headers too, so this
module believes only as many entries, counted from the right, as there are
proxies the deployment trusts. The rules live in the core so that every
adapter applies them the same way, through :class:`ProxyPolicy`.
"""

from __future__ import annotations

from collections.abc import Iterable
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import Any, TypeVar
from urllib.parse import unquote

from sansio_http.http import parse_forwarded
from sansio_http.http._headers import Headers
from sansio_http.http._hosts import NODE_PORT_RE, find_host, host_name, node_address, validate_host
from sansio_http.messages._request import Request

__all__ = ["ProxyPolicy"]

R = TypeVar("R", bound=Request)
ProxyAddress = str | IPv4Address | IPv6Address | IPv4Network | IPv6Network

_HTTP_SCHEMES = {"http": False, "https": True}
_WS_SCHEMES = {"ws": False, "wss": True}
# RFC 7239 §6: the "for" nodes that name no address on purpose.
_HIDDEN_NODE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _nth_from_right(value: str | None, count: int) -> str | None:
    """Return the ``count``-th comma-separated item from the right, or None."""
    if not value:
        return None
    items = value.split(",")
    # SECURITY: fewer items than trusted proxies means a proxy did not add its
    # own; whichever item would be picked was then written by the client.
    if len(items) < count:
        return None
    return items[-count].strip(" \t") or None


def _is_hidden_node(node: str) -> bool:
    """Tell whether a Forwarded ``for`` node is ``unknown`` or obfuscated."""
    name, colon, port = node.partition(":")
    if colon and not NODE_PORT_RE.fullmatch(colon + port):
        return False
    if name.lower() == "unknown":
        return True
    return len(name) > 1 and name[0] == "_" and set(name) <= _HIDDEN_NODE_CHARS


def _forwarded_scheme(value: str | None, scheme: str) -> str | None:
    """Return the scheme a proxy reports, kept in ``scheme``'s family."""
    if value is None:
        return None
    value = value.strip(" \t").lower()
    secure = _HTTP_SCHEMES.get(value, _WS_SCHEMES.get(value))
    if secure is None:
        return None
    # A WebSocket handshake forwarded over https is a wss connection.
    if scheme in _WS_SCHEMES:
        return "wss" if secure else "ws"
    return "https" if secure else "http"


def _forwarded_prefix(value: str | None) -> str | None:
    """Return a decoded X-Forwarded-Prefix path, or None when unusable."""
    if value is None or not value.startswith("/"):
        return None
    prefix = unquote(value, errors="replace")
    # SECURITY: "//host" would turn root-relative links into links to another
    # site, and control characters or "?#" have no place in a path prefix.
    if prefix.startswith("//") or any(char in prefix for char in "?#") or not prefix.isprintable():
        return None
    return prefix.rstrip("/")


def _port(value: str | None) -> str | None:
    """Return a valid TCP port number as text, or None."""
    if value is None or not (value.isascii() and value.isdigit()) or len(value) > 5:
        return None
    port = int(value)
    return str(port) if 0 < port <= 65535 else None


class ProxyPolicy:
    """Which proxy headers to trust, as a number of hops for each.

    Each count is the number of proxies in front of the application that set
    that header: the policy takes the entry that many places from the right,
    which the nearest trusted proxy wrote, and ignores anything further left,
    which the client may have written. A count of 0 (the default) ignores the
    header. A header with fewer entries than its count, or an unusable
    entry, leaves the request as it was.

    Args:
        forwarded: Hops for the Forwarded header (RFC 7239): its ``for``,
            ``proto`` and ``host`` parameters, which win over the
            X-Forwarded-* headers.
        x_for: Hops for X-Forwarded-For, which sets ``remote_addr``.
        x_proto: Hops for X-Forwarded-Proto, which sets ``scheme``.
        x_host: Hops for X-Forwarded-Host, which sets the Host header.
        x_port: Hops for X-Forwarded-Port, which sets the host's port.
        x_prefix: Hops for X-Forwarded-Prefix, which sets ``root_path``.
        trusted_proxies: If given, the IP addresses and networks (such as
            ``"10.0.0.0/8"``) the proxies connect from; requests from any
            other peer are left as they are.

    Raises:
        ValueError: A count is negative, or a trusted proxy is not an IP
            address or network.
        TypeError: A count is not an int.
    """

    def __init__(
        self,
        *,
        forwarded: int = 0,
        x_for: int = 0,
        x_proto: int = 0,
        x_host: int = 0,
        x_port: int = 0,
        x_prefix: int = 0,
        trusted_proxies: ProxyAddress | Iterable[ProxyAddress] | None = None,
    ) -> None:
        counts = {
            "forwarded": forwarded,
            "x_for": x_for,
            "x_proto": x_proto,
            "x_host": x_host,
            "x_port": x_port,
            "x_prefix": x_prefix,
        }
        for name, count in counts.items():
            if not isinstance(count, int) or isinstance(count, bool):
                raise TypeError(f"{name} must be an int, not {type(count).__name__}")
            if count < 0:
                raise ValueError(f"{name} must not be negative, got {count}")
        self.forwarded = forwarded
        self.x_for = x_for
        self.x_proto = x_proto
        self.x_host = x_host
        self.x_port = x_port
        self.x_prefix = x_prefix
        if trusted_proxies is None:
            self.trusted_proxies: tuple[IPv4Network | IPv6Network, ...] | None = None
        else:
            if isinstance(
                trusted_proxies, (str, IPv4Address, IPv6Address, IPv4Network, IPv6Network)
            ):
                # A single address: iterating a string would trust each character.
                trusted_proxies = (trusted_proxies,)
            self.trusted_proxies = tuple(
                ip_network(proxy, strict=False) for proxy in trusted_proxies
            )

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{name}={getattr(self, name)}"
            for name in ("forwarded", "x_for", "x_proto", "x_host", "x_port", "x_prefix")
            if getattr(self, name)
        )
        proxies = "" if self.trusted_proxies is None else f"trusted_proxies={self.trusted_proxies}"
        return f"ProxyPolicy({', '.join(part for part in (counts, proxies) if part)})"

    def is_trusted_peer(self, remote_addr: str | None) -> bool:
        """Tell whether a request from ``remote_addr`` may carry proxy headers.

        Args:
            remote_addr: The address of the connection's peer.

        Returns:
            True when no ``trusted_proxies`` were given, or when
            ``remote_addr`` is an IP address inside one of them.
        """
        if self.trusted_proxies is None:
            return True
        if not remote_addr:
            return False
        try:
            address = ip_address(remote_addr)
        except ValueError:
            return False
        if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
            # A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
            address = address.ipv4_mapped
        return any(address in network for network in self.trusted_proxies)

    def apply(self, request: R) -> R:
        """Return ``request`` as the trusted proxies describe it.

        Args:
            request: A request as the adapter built it from the connection.

        Returns:
            A copy (made with :meth:`Request.replace`) with the trusted
            ``remote_addr``, ``scheme``, Host header and ``root_path``, or
            ``request`` itself when no trusted header changes anything.
        """
        if not self.is_trusted_peer(request.remote_addr):
            return request
        headers = request.headers
        changes: dict[str, Any] = {}
        host: str | None = None

        if self.x_for:
            node = _nth_from_right(headers.get_joined("x-forwarded-for"), self.x_for)
            address = node_address(node) if node else None
            if address is not None:
                changes["remote_addr"] = address
        if self.x_proto:
            value = _nth_from_right(headers.get_joined("x-forwarded-proto"), self.x_proto)
            scheme = _forwarded_scheme(value, request.scheme)
            if scheme is not None:
                changes["scheme"] = scheme
        if self.x_host:
            value = _nth_from_right(headers.get_joined("x-forwarded-host"), self.x_host)
            host = validate_host(value, "") if value else None
        if self.x_port:
            port = _port(_nth_from_right(headers.get_joined("x-forwarded-port"), self.x_port))
            base = host or find_host(headers, request.server, "")
            if port is not None and base:
                host = f"{host_name(base)}:{port}"
        if self.x_prefix:
            value = _nth_from_right(headers.get_joined("x-forwarded-prefix"), self.x_prefix)
            prefix = _forwarded_prefix(value)
            if prefix is not None:
                changes["root_path"] = prefix

        if self.forwarded:
            elements = parse_forwarded(headers.get_joined("forwarded") or "")
            if len(elements) >= self.forwarded:
                element = elements[-self.forwarded]
                node = element.get("for")
                if node is not None:
                    address = node_address(node)
                    if address is not None:
                        changes["remote_addr"] = address
                    elif _is_hidden_node(node):
                        # The proxy knows the client but will not say who it is.
                        changes["remote_addr"] = None
                scheme = _forwarded_scheme(element.get("proto"), request.scheme)
                if scheme is not None:
                    changes["scheme"] = scheme
                value = element.get("host")
                forwarded_host = validate_host(value, "") if value else None
                if forwarded_host is not None:
                    host = forwarded_host

        if host is not None:
            items = [(name, value) for name, value in headers.items() if name != "host"]
            items.append(("host", host))
            changes["headers"] = Headers(items)
        return request.replace(**changes) if changes else request
