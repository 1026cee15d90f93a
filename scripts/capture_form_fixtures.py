"""Capture real form bodies from headless Chromium, curl and httpx.

Run as ``python scripts/capture_form_fixtures.py`` (Chromium needs root here,
hence ``--no-sandbox``). A small server on 127.0.0.1 serves a page whose form
submits itself with JavaScript, and saves the raw body and Content-Type of
every POST. The bodies, the uploaded files and a manifest of what each client
was asked to send land in ``tests/bodies/fixtures/forms/``, where
``tests/bodies/test_forms_fixtures.py`` decodes them byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "bodies" / "fixtures" / "forms"
UPLOADS = OUT / "uploads"
CHROMIUM = "/usr/bin/chromium"

# Text fields as the page, curl and httpx send them. The browser turns every
# newline of a textarea into CRLF (HTML "converting newlines"), so the
# expected value differs from what the script types for that one field.
TITLE = 'Héllo, wörld ✓ & = + %20 "quoted"'
COMMENT_TYPED = "line one\nline two\r\nline three"
COMMENT_SENT = "line one\r\nline two\r\nline three"


def binary_upload() -> bytes:
    """Return bytes that stress a multipart parser: every octet, fake delimiters."""
    data = bytes(range(256)) * 8
    # Lines that look like a delimiter but are not: a parser that matches on
    # a prefix of the boundary, or on a bare LF, cuts the file short here.
    data += b"\r\n--\r\n----WebKitFormBoundary\r\n--\r\n\r\n\r\n--x--\r\n"
    return data + bytes(range(255, -1, -1)) * 4 + b"\r\n"


def text_upload() -> bytes:
    """Return UTF-8 text with mixed line endings (browsers keep file bytes)."""
    return "première ligne\r\nzweite Zeile\nthird line ✓\n\n--\r\n".encode()


class Capture(BaseHTTPRequestHandler):
    """Serve the auto-submitting page and record every POST body."""

    pages: ClassVar[dict[str, bytes]] = {}
    captured: ClassVar[list[tuple[str, str, bytes]]] = []
    done: ClassVar[threading.Event] = threading.Event()

    def do_GET(self) -> None:
        """Serve one of the pages."""
        page = self.pages.get(self.path)
        if page is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def do_POST(self) -> None:
        """Record the raw body and its Content-Type."""
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.captured.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
        self.done.set()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the console quiet."""


def page(enctype: str, with_files: bool) -> bytes:
    """Return a page whose form fills itself in and submits on load."""
    files_js = ""
    if with_files:
        files_js = f"""
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array({list(text_upload())})],
            'notes "v2" ü.txt', {{type: 'text/plain'}}));
        dt.items.add(new File([new Uint8Array({list(binary_upload())})],
            'dir\\\\data.bin', {{type: 'application/octet-stream'}}));
        document.getElementById('uploads').files = dt.files;"""
    html = f"""<!doctype html><meta charset="utf-8"><title>capture</title>
<form id="f" method="post" action="/capture" enctype="{enctype}" accept-charset="utf-8">
<input name="title" id="title"><textarea name="comment" id="comment"></textarea>
<input name="tag" value="a"><input name="tag" value="b"><input name="empty" value="">
<input name='na"me' value="q"><input type="file" name="uploads" id="uploads" multiple>
</form>
<script>
document.getElementById('title').value = {json.dumps(TITLE)};
document.getElementById('comment').value = {json.dumps(COMMENT_TYPED)};
{files_js}
document.getElementById('f').submit();
</script>"""
    return html.encode()


def run_chromium(url: str) -> None:
    """Load ``url`` in headless Chromium until the page has posted its form."""
    Capture.done.clear()
    with tempfile.TemporaryDirectory() as profile:
        process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                url,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            if not Capture.done.wait(60):
                raise RuntimeError(f"Chromium did not submit {url}")
        finally:
            process.terminate()
            process.wait(10)


def main() -> None:
    """Capture every fixture and write the manifest."""
    UPLOADS.mkdir(parents=True, exist_ok=True)
    (UPLOADS / "notes.txt").write_bytes(text_upload())
    (UPLOADS / "data.bin").write_bytes(binary_upload())
    Capture.pages = {
        "/multipart": page("multipart/form-data", with_files=True),
        "/urlencoded": page("application/x-www-form-urlencoded", with_files=False),
    }
    server = ThreadingHTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    browser_fields = [
        ["title", TITLE],
        ["comment", COMMENT_SENT],
        ["tag", "a"],
        ["tag", "b"],
        ["empty", ""],
        ['na"me', "q"],
    ]
    manifest: dict[str, Any] = {}
    try:
        run_chromium(base + "/multipart")
        run_chromium(base + "/urlencoded")
        Capture.done.clear()
        subprocess.run(
            [
                "curl",
                "-sS",
                "-o",
                "/dev/null",
                "--form-string",
                f"title={TITLE}",
                "--form-string",
                f"comment={COMMENT_TYPED}",
                "--form-string",
                "tag=a",
                "--form-string",
                "tag=b",
                "--form-string",
                "empty=",
                "-F",
                f'uploads=@{UPLOADS / "notes.txt"};filename="notes v2 ü.txt";type=text/plain',
                "-F",
                f"uploads=@{UPLOADS / 'data.bin'};filename=data.bin",
                base + "/capture",
            ],
            check=True,
        )
        httpx.post(
            base + "/capture",
            data={"title": TITLE, "comment": COMMENT_TYPED, "tag": ["a", "b"], "empty": ""},
            files=[
                ("uploads", ('notes "v2" ü.txt', text_upload(), "text/plain")),
                ("uploads", ("data.bin", binary_upload(), "application/octet-stream")),
            ],
        )
    finally:
        server.shutdown()
    client_fields = [f for f in browser_fields if f[0] != 'na"me']
    client_fields[1] = ["comment", COMMENT_TYPED]
    expected: list[tuple[str, list[list[str]], list[list[str]]]] = [
        (
            "chromium-multipart",
            browser_fields,
            [
                ["uploads", 'notes "v2" ü.txt', "text/plain", "notes.txt"],
                ["uploads", "dir\\data.bin", "application/octet-stream", "data.bin"],
            ],
        ),
        # A file input in a urlencoded form sends its file names (none here).
        ("chromium-urlencoded", [*browser_fields, ["uploads", ""]], []),
        (
            "curl-multipart",
            client_fields,
            [
                ["uploads", "notes v2 ü.txt", "text/plain", "notes.txt"],
                ["uploads", "data.bin", "application/octet-stream", "data.bin"],
            ],
        ),
        (
            "httpx-multipart",
            client_fields,
            [
                ["uploads", 'notes "v2" ü.txt', "text/plain", "notes.txt"],
                ["uploads", "data.bin", "application/octet-stream", "data.bin"],
            ],
        ),
    ]
    for (name, fields, files), capture in zip(expected, Capture.captured, strict=True):
        _, content_type, body = capture
        (OUT / f"{name}.body").write_bytes(body)
        manifest[name] = {"content_type": content_type, "fields": fields, "files": files}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
