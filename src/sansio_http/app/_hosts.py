"""Host routing in the App: the host it routes by, and the trust its rules need.

A rule with a ``host=`` is matched against the request's Host, which the
client writes. The App reads it only through trusted hosts: the request's
own ``trusted_hosts`` where the adapter set them (``to_wsgi`` and ``to_asgi``
give every request the App's ``AppConfig.trusted_hosts`` unless told
otherwise), else the App's. A host either refuses is a 400
(:class:`~sansio_http.UntrustedHost`), before any rule is tried. Registering
a host rule on an App without trusted hosts is refused, naming the setting.
"""

from __future__ import annotations

from collections.abc import Collection

from sansio_http.http._hosts import host_is_trusted, trusted_host
from sansio_http.messages._errors import UntrustedHost
from sansio_http.messages._request import Request
from sansio_http.routing._hosts import host_labels
from sansio_http.routing._rules import Rule

__all__ = ["check_trusted", "routed_host"]

_FIX = "App(config=AppConfig(trusted_hosts=['example.com', '.example.com']))"


def check_trusted(rule: str, endpoint: str, host: str, trusted: Collection[str] | None) -> None:
    """Refuse a host rule that the App's trusted hosts do not let through.

    Raises:
        ValueError: The App has no trusted hosts, so that the rule would be
            matched against any Host a client sends; or the host has no
            placeholder and is not among them, so that every request to it
            would be refused before it reached the rule.
    """
    if trusted is None:
        raise ValueError(
            f"rule {rule!r} (endpoint {endpoint!r}) has the host {host!r}, and the App "
            "matches hosts only among its trusted hosts, since a client writes the Host "
            f"header: name the hosts the App answers, such as {_FIX}"
        )
    labels = host_labels(Rule(rule, endpoint, host=host))
    if any("<" in label for label in labels):
        return
    name = ".".join(labels)
    if not host_is_trusted(name, trusted):
        raise ValueError(
            f"rule {rule!r} (endpoint {endpoint!r}) has the host {host!r}, which is not "
            f"among the App's trusted hosts {sorted(trusted)!r}, so that no request would "
            f"reach it: add {name!r} to AppConfig.trusted_hosts"
        )


def routed_host(request: Request, trusted: Collection[str] | None) -> str:
    """Return the host a request is routed by: trusted, validated, lower-case.

    Args:
        request: The request.
        trusted: The App's trusted hosts, for a request that has none of
            its own.

    Raises:
        UntrustedHost: The host is malformed or not trusted (a 400).
        RuntimeError: Neither the request nor the App trusts any host (the
            App's setting was removed after its host rules were added).
    """
    if request.trusted_hosts is not None:
        return request.host
    if trusted is None:
        raise RuntimeError(
            "the App has rules with a host, and neither the request nor the App names "
            f"trusted hosts to match them among: set them, such as {_FIX}"
        )
    host = trusted_host(request.headers, request.server, request.scheme, trusted)
    if host is None:
        raise UntrustedHost()
    return host
