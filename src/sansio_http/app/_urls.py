"""URL building: ``url_for`` from an endpoint's name and values."""

from __future__ import annotations

from typing import Any, Final

from sansio_http.app._context import request_var
from sansio_http.app._endpoints import WEBSOCKET_SCHEMES
from sansio_http.app._mounts import Mounts, root_of
from sansio_http.messages._errors import HTTPException
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
    _mounts: Mounts

    def url_for(
        self,
        endpoint: str,
        *,
        _external: bool = False,
        _anchor: str | None = None,
        _method: str | None = None,
        _request: Request | None = None,
        **values: Any,
    ) -> str:
        """Return the URL of an endpoint; extra values become the query string.

        Inside a request, the URL honours the root path this App is served
        under, and ``_external=True`` adds the request's scheme and host. A
        mounted App's own ``url_for`` builds under its prefix; the outer
        App's builds under the server's root path alone, even while the
        mounted App dispatches the request (whose ``root_path`` then holds
        the prefix).

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
            **values: Placeholder values and query arguments.
        """
        request = _request if _request is not None else _current_request(None)
        root_path = root_of(request, self) if request is not None else ""
        base_url = None
        if _external:
            if request is None:
                raise RuntimeError("an external URL needs a request for its host")
            base_url = f"{request.scheme}://{request.host}"
        if endpoint.startswith("."):
            current = self._endpoint_of(request) if request is not None else ""
            blueprint = current.rpartition(".")[0]
            # Outside a blueprint, ".view" names the App's own view (as in Flask).
            endpoint = blueprint + endpoint if blueprint else endpoint[1:]
        return self._build(endpoint, values, _method, root_path, _anchor, base_url)

    def _build(
        self,
        endpoint: str,
        values: dict[str, Any],
        method: str | None,
        root_path: str,
        anchor: str | None,
        base_url: str | None,
    ) -> str:
        """Build a URL here, or in the mounted App the endpoint's first part names."""
        names = self._mounts.names
        if names and "." in endpoint:
            name, _, inner = endpoint.partition(".")
            mount = names.get(name)
            if mount is not None:
                application: _UrlBuilding = mount.application
                return application._build(
                    inner, values, method, root_path + mount.prefix, anchor, base_url
                )
        return self.router.build(
            endpoint,
            values,
            method=method,
            root_path=root_path,
            anchor=anchor,
            base_url=base_url,
        )

    def _endpoint_of(self, request: Request) -> str:
        """Return the endpoint a request is routed to, or "" when none is.

        PERF: routing again here, for the rare relative ``url_for``, spares
        every request a context variable for its endpoint.
        """
        try:
            found = self.router.find(
                request.path, request.method, websocket=request.scheme in WEBSOCKET_SCHEMES
            )
        except HTTPException:
            return ""
        return "" if found is None else found[0].endpoint
