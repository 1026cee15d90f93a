"""The debug traceback page, shared by ``App(debug=True)`` and the dev server.

SECURITY: this page shows the traceback, with the source lines it names and
the exception's message, which may hold secrets; it shows no local values.
Only debug modes that are off by default use it. The App serves it only to
a request that is local twice over (:func:`is_local`), and the development
server refuses its ``--debug`` unless it listens on loopback.
"""

from __future__ import annotations

import html
import ipaddress
import traceback
from typing import TYPE_CHECKING

from sansio_http.messages._errors import HTTPError

if TYPE_CHECKING:
    from sansio_http.messages._request import Request

__all__ = ["is_local", "is_loopback_host", "traceback_page"]


def traceback_page(exc: BaseException) -> bytes:
    """Return an HTML page showing the traceback of ``exc``, escaped."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(type(exc).__name__)}</title></head><body>"
        "<h1>500 Internal Server Error</h1>"
        "<p>Debug mode: the application raised an exception.</p>"
        f"<pre>{html.escape(text)}</pre></body></html>\n"
    ).encode()


def is_local(request: Request) -> bool:
    """Return whether both the client and the Host of ``request`` are loopback.

    The client is local when its address and every address the proxy
    headers name (:attr:`~sansio_http.Request.access_route`) are loopback.

    SECURITY: the client address alone is not enough. A page on another
    site can make a browser on the developer's machine send requests to a
    loopback port, and read the answers once its own name resolves to
    127.0.0.1 (DNS rebinding); the Host header then still carries that name.
    A reverse proxy on the same machine makes every client look local: the
    Host it forwards is usually the public name, and the X-Forwarded-For or
    Forwarded it adds names the real client. Loopback names are
    ``localhost`` and its subdomains (RFC 6761 §6.3, which browsers resolve
    without DNS) and loopback IP addresses.
    """
    addresses = [request.remote_addr or "", *request.access_route]
    if not all(_is_loopback_address(address) for address in addresses):
        return False
    try:
        host = request.host
    except HTTPError:  # an untrusted or malformed Host is not local
        return False
    return is_loopback_host(host)


def is_loopback_host(host: str) -> bool:
    """Return whether a validated ``host[:port]`` names this machine.

    Args:
        host: A ``uri-host [":" port]`` (RFC 9110 §7.2) such as
            :attr:`~sansio_http.Request.host` gives: lower-case, an IPv6
            address in brackets.

    Returns:
        True for ``localhost``, a name under ``.localhost`` and loopback
        IP addresses.
    """
    # An IPv6 address comes in brackets, so elsewhere the first colon starts the port.
    name = host[1 : host.find("]")] if host.startswith("[") else host.partition(":")[0]
    return name == "localhost" or name.endswith(".localhost") or _is_loopback_address(name)


def _is_loopback_address(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        # A dual-stack socket reports IPv4 clients as ::ffff:127.0.0.1.
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
