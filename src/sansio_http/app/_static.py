"""The view of a static route: a folder's files under a URL prefix.

``App.static()`` and ``Blueprint.static()`` register a :class:`StaticView`
for ``<prefix>/<path:path>``. The rules are the core's
(:class:`~sansio_http.messages._static.StaticDirectory`); the file system
they read through is looked up at each request, because the adapters
install it on the App when they mount it (``to_wsgi``, ``to_asgi``), which
may come after the route was written, on a blueprint that does not know its
App yet. A package's folder is found when the file system is known (see
:func:`prepare_static`), so that a package that cannot be served is
refused before the first request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sansio_http.messages._request import Request
from sansio_http.messages._response import Response
from sansio_http.messages._static import FileSystem, StaticDirectory

__all__ = ["StaticView", "prepare_static"]


class StaticView:
    """Answer ``GET <prefix>/<path>`` with a file of one folder.

    A plain (``def``) callable: under ASGI the App runs it in its thread
    pool, so the stats it makes never hold up the event loop.

    Args:
        rules: The folder and its options.
        file_system: Finds the file system at request time: the one given to
            ``static()``, else the App's.
        name: The view's ``__name__``, for logs.
    """

    __slots__ = ("__name__", "_file_system", "rules")

    def __init__(
        self,
        rules: StaticDirectory,
        file_system: Callable[[], FileSystem | None],
        name: str = "static",
    ) -> None:
        self.rules = rules
        self._file_system = file_system
        self.__name__ = name

    def __call__(self, request: Request, path: str) -> Response:
        """Answer the request for the file at ``path`` below the folder.

        Raises:
            NotFound: No file may be served for ``path``.
            RuntimeError: No file system is installed: the App was not
                mounted with ``to_wsgi`` or ``to_asgi``, and ``static()`` was
                given none.
        """
        fs = self._file_system()
        if fs is None:
            raise RuntimeError(
                f"the static route of {self.rules.directory!r} has no file system: mount the "
                "App with to_wsgi() or to_asgi(), which install one, or pass "
                "static(..., file_system=...)"
            )
        return self.rules.respond(request, path, fs)

    def prepare(self) -> None:
        """Find the folder of the package served, if the file system is known yet.

        Raises:
            TypeError: The file system cannot find a package's folder.
            ValueError: The package cannot be served (see
                :meth:`~sansio_http.messages._static.StaticDirectory.folder_in`).
        """
        if self.rules.package is not None:
            fs = self._file_system()
            if fs is not None:
                self.rules.folder_in(fs)

    def __repr__(self) -> str:
        return f"<StaticView {self.rules.directory!r}>"


def prepare_static(views: Iterable[Any]) -> None:
    """Find the package folders of the static views among ``views``.

    The adapters call it with an App's views once they have installed its
    file system, so that ``to_wsgi`` and ``to_asgi`` refuse a package whose
    files cannot be served, naming the fix, before any request comes.
    """
    for view in views:
        if isinstance(view, StaticView):
            view.prepare()
