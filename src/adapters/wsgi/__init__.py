"""The WSGI adapter: environ and ``wsgi.input`` in, ``start_response`` out.

:class:`WSGIRequest` reads a core :class:`~sansio_http.Request` and its body
from a PEP 3333 environ; :func:`to_wsgi` mounts an :class:`~sansio_http.App`,
and :func:`wsgi_app` turns a plain
``def handler(request) -> Response`` (or an ``async def`` one) into a WSGI
application. :class:`CoroutineRunner` runs coroutines from worker threads on
an event loop kept per thread: what runs an App's ``async def`` views.
"""

from __future__ import annotations

from sansio_http.wsgi._app import to_wsgi as to_wsgi
from sansio_http.wsgi._app import wsgi_app as wsgi_app
from sansio_http.wsgi._input import InputStream as InputStream
from sansio_http.wsgi._request import WSGIRequest as WSGIRequest
from sansio_http.wsgi._runner import CoroutineRunner as CoroutineRunner
from sansio_http.wsgi._static import OSFileSystem as OSFileSystem

__all__ = ["CoroutineRunner", "InputStream", "OSFileSystem", "WSGIRequest", "to_wsgi", "wsgi_app"]
