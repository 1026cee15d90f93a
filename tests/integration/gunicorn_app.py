"""The WSGI application that tests/integration/test_gunicorn.py runs under gunicorn.

It is ``wsgi_app(handler)`` wrapped in ``wsgiref.validate.validator``, with
warnings turned into errors, so any PEP 3333 slip surfaces as a failed
request. The routes report what the worker saw, so the tests can check the
adapter's behaviour from outside the process.
"""

from __future__ import annotations

import hashlib
import os
import resource
import tempfile
import time
import warnings
from collections.abc import Iterator
from wsgiref.validate import validator

from sansio_http import file_response
from sansio_http.bodies._formdata import FormLimits
from sansio_http.messages._errors import ClientDisconnected, HTTPError, NotFound
from sansio_http.messages._json_response import JSONResponse
from sansio_http.messages._response import Response
from sansio_http.wsgi import WSGIRequest, wsgi_app

warnings.simplefilter("error")

FILE_PATH = os.environ.get("SANSIO_TEST_FILE", "")
MiB = 1024 * 1024
# What the last request that failed reading its body raised, for /last-error.
_last_error: list[str] = []


def _peak_rss() -> int:
    # ru_maxrss is in KiB on Linux: the high-water mark of this worker.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _stream_to_file(request: WSGIRequest) -> Response:
    before = _peak_rss()
    digest = hashlib.sha256()
    size = 0
    with tempfile.TemporaryFile() as file:
        for chunk in request.iter_data():
            file.write(chunk)
            digest.update(chunk)
            size += len(chunk)
    return JSONResponse(
        {"size": size, "sha256": digest.hexdigest(), "rss_growth": _peak_rss() - before}
    )


def _upload_form(request: WSGIRequest) -> Response:
    before = _peak_rss()
    upload = request.get_files()["file"]
    digest = hashlib.sha256()
    while chunk := upload.read(64 * 1024):
        digest.update(chunk)
    return JSONResponse(
        {
            "field": request.get_form().get("field"),
            "size": upload.size,
            "sha256": digest.hexdigest(),
            "rss_growth": _peak_rss() - before,
        }
    )


def _stream_response(request: WSGIRequest) -> Response:
    count = request.args.get("count", 5, type=int)

    def chunks() -> Iterator[bytes]:
        for number in range(count):
            yield b"chunk %d\n" % number
            time.sleep(0.01)

    return Response(chunks(), content_type="text/plain")


def handler(request: WSGIRequest) -> Response:
    """Dispatch on the path, as a framework's router would."""
    path = request.path
    if path == "/hello":
        return JSONResponse(
            {
                "method": request.method,
                "remote_port": request.environ.get("REMOTE_PORT"),
                "pid": os.getpid(),
            }
        )
    if path == "/file":
        stat = os.stat(FILE_PATH)
        response = file_response(FILE_PATH, size=stat.st_size, mtime=stat.st_mtime)
        return response.make_conditional(request)
    if path == "/stream-upload":
        request.max_content_length = 64 * MiB
        try:
            return _stream_to_file(request)
        except HTTPError as exc:
            _last_error[:] = [type(exc).__name__]
            raise
    if path == "/form-upload":
        request.form_limits = FormLimits(max_content_length=64 * MiB)
        return _upload_form(request)
    if path == "/stream":
        return _stream_response(request)
    if path == "/last-error":
        return JSONResponse({"error": _last_error[0] if _last_error else None})
    if path == "/echo-length":
        try:
            data = request.get_data()
        except ClientDisconnected:
            _last_error[:] = ["ClientDisconnected"]
            raise
        return JSONResponse({"size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    raise NotFound()


raw_application = wsgi_app(handler)
application = validator(raw_application)
