"""URL building: ``url_for`` from an endpoint's name and values."""

from __future__ import annotations

from typing import Any, Final

from sansio_http.app._config import AppConfig
from sansio_http.app._context import request_var
from sansio_http.app._endpoints import WEBSOCKET_SCHEMES
from sansio_http.app._hosts import routed_host
from sansio_http.app._mounts import Mounts, root_of
from sansio_http.messages._errors import HTTPException, UntrustedHost
from sansio_http.messages._request import Request
from sansio_http.routing import Router

__all__: list[str] = []

# PERF: CPython 3.11 compiles a method call on a name bound by an import as an
# attribute load that makes a bound method each time (no LOAD_METHOD); the bound
# methods are taken once here.
_current_request: Final = request_var.get


class _UrlBuilding:
    """:meth:`url_for`, for the App."""

    router: Router
    config: AppConfig
    _mounts: Mounts

    def url_for(
        self,
        endpoint: str,
        *,
        _external: bool = False,
        _anchor: str | None = None,
        _method: str | None = None,
        _request: Request | None = None,
        _scheme: str | None = None,
        **values: Any,
    ) -> str:
        """Return the URL of an endpoint; extra values become the query string.

        Inside a request, the URL honours the root path this App is served
        under, and ``_external=True`` adds the request's scheme and host. A
        mounted App's own ``url_for`` builds under its prefix; the outer
        App's builds under the server's root path alone, even while the
        mounted App dispatches the request (whose ``root_path`` then holds
        the prefix).

        A rule with a ``host=`` is built on the host its values make: a path
        where that is the request's host (port aside) and ``_external`` is
        not asked for, else an absolute URL with the request's scheme and
        port. Outside a request, its URL is absolute with ``_scheme``.

        Args:
            endpoint: ``"view"`` or ``"blueprint.view"``; a leading dot means
                the blueprint of the current request's endpoint. The name of
                a mounted App in front (``"admin.index"``) builds into it, its
                prefix put in front (see :meth:`~sansio_http.App.mount`).
            _external: Return an absolute URL.
            _anchor: A fragment to append.
            _method: Pick the rule that accepts this method.
            _request: The request to take the root path and host from;
                the current request by default.
            _scheme: The scheme of an absolute URL, instead of the
                request's; outside a request, what makes the URL of a rule
                with a host absolute.
            **values: Placeholder values and query arguments.

        Raises:
            RuntimeError: An external URL is asked for outside a request, of
                a rule without a host or without ``_scheme``.
            ValueError: A value does not fit its placeholder, or builds a
                host that its host placeholder would not match back.
        """
        request = _request if _request is not None else _current_request(None)
        root_path = root_of(request, self) if request is not None else ""
        base_url = None
        if _external:
            if request is not None:
                base_url = f"{_scheme or request.scheme}://{self._host_of(request)}"
            elif _scheme is None:
                raise RuntimeError(
                    "an external URL needs a request for its host (for a rule with a host, "
                    "pass _scheme='https')"
                )
        if endpoint.startswith("."):
            current = self._endpoint_of(request) if request is not None else ""
            blueprint = current.rpartition(".")[0]
            # Outside a blueprint, ".view" names the App's own view (as in Flask).
            endpoint = blueprint + endpoint if blueprint else endpoint[1:]
        built = (request, _scheme)
        url = self._build(endpoint, values, _method, root_path, _anchor, base_url, built)
        if _external and url[:1] == "/":
            # Outside a request, with _scheme: a rule without a host has none.
            raise RuntimeError(
                f"an external URL of {endpoint!r} needs a request for its host: its rule "
                "has no host= to build it on"
            )
        return url

    def _build(
        self,
        endpoint: str,
        values: dict[str, Any],
        method: str | None,
        root_path: str,
        anchor: str | None,
        base_url: str | None,
        built: tuple[Request | None, str | None],
    ) -> str:
        """Build a URL here, or in the mounted App the endpoint's first part names.

        ``built`` holds the request the URL is built in and the ``_scheme``
        asked for: where this App has rules with a host, the URL is built
        from the request's (trusted) origin, or from the scheme alone.
        """
        names = self._mounts.names
        if names and "." in endpoint:
            name, _, inner = endpoint.partition(".")
            mount = names.get(name)
            if mount is not None:
                application: _UrlBuilding = mount.application
                return application._build(
                    inner, values, method, root_path + mount.prefix, anchor, base_url, built
                )
        origin = None
        if self.router.has_hosts:
            # PERF: the host is read only where a rule may be on another one.
            request, scheme = built
            if request is not None:
                try:
                    host = self._host_of(request)
                except UntrustedHost:
                    # The request of an outer App, on a host this one does not
                    # serve: every URL of a rule with a host is absolute.
                    host = ""
                origin = base_url or f"{scheme or request.scheme}://{host}"
            elif scheme is not None:
                origin = f"{scheme}://"
        return self.router.build(
            endpoint,
            values,
            method=method,
            root_path=root_path,
            anchor=anchor,
            base_url=base_url,
            origin=origin,
        )

    def _host_of(self, request: Request) -> str:
        """Return the request's host: through the trusted hosts where hosts route."""
        if self.router.has_hosts:
            return routed_host(request, self.config.trusted_hosts)
        return request.host

    def _endpoint_of(self, request: Request) -> str:
        """Return the endpoint a request is routed to, or "" when none is.

        PERF: routing again here, for the rare relative ``url_for``, spares
        every request a context variable for its endpoint.
        """
        router = self.router
        try:
            host = routed_host(request, self.config.trusted_hosts) if router.has_hosts else None
            found = router.find(
                request.path,
                request.method,
                websocket=request.scheme in WEBSOCKET_SCHEMES,
                host=host,
            )
        except HTTPException:
            return ""
        return "" if found is None else found[0].endpoint
