"""A WSGI application whose files shrank after their length was taken, for gunicorn.

``/file?left=N`` answers with a :class:`~sansio_http.FileBody` that promises
1000 bytes of a file that holds ``N``: what a file that shrank between its
stat and its send looks like to the adapter.
"""

from __future__ import annotations

import os

from sansio_http import FileBody, Response
from sansio_http.wsgi import WSGIRequest, wsgi_app

FOLDER = os.environ.get("SANSIO_TEST_FOLDER", "")
PROMISED = 1000


def _handler(request: WSGIRequest) -> Response:
    left = request.args.get("left", 0, type=int)
    path = os.path.join(FOLDER, f"left-{left}.bin")
    with open(path, "wb") as file:
        file.write(b"x" * left)
    return Response(FileBody(path, length=PROMISED), content_type="application/octet-stream")


application = wsgi_app(_handler)
