"""App.static under both adapters: one App, the test client over WSGI and ASGI.

The folder is real (a temporary directory) with a secret file beside it,
symlinks inside that lead in and out, and precompressed siblings. Every
case checks that the secret never comes back and that no descriptor of a
file in the tree is left open in this process once the response is done.
:mod:`tests.integration.test_static_servers` serves the same App under
gunicorn and uvicorn.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from sansio_http import App, Blueprint, Request, Response
from sansio_http.testing import Client

SECRET = b"TOP-SECRET-7f3a9c-never-serve-me"
SCRIPT = b"console.log('hello from app.js');\n" * 100
CSS = b"body { color: #333; }\n"
BIG = bytes(range(256)) * 1024  # 256 KiB: several reads, several chunks
BROTLI = b"\x1b\x0fBROTLI-BYTES-STAND-IN"  # not decoded by anyone here
HOME = b"<!doctype html><title>home</title>"
DOCS = b"<!doctype html><title>docs</title>" + b"." * 1000
MISSING = b"<!doctype html><title>not here</title>"


def build_tree(root: Path) -> Path:
    """Make ``root/static`` and its neighbours; return the static folder."""
    static = root / "static"
    (static / "css").mkdir(parents=True)
    (root / "secret.txt").write_bytes(SECRET)
    (static / "app.js").write_bytes(SCRIPT)
    (static / "app.js.gz").write_bytes(gzip.compress(SCRIPT))
    (static / "app.js.br").write_bytes(BROTLI)
    (static / "css" / "site.css").write_bytes(CSS)
    (static / "big.bin").write_bytes(BIG)
    (static / "app.3f9a1c.js").write_bytes(SCRIPT)
    (static / ".env").write_bytes(SECRET)
    (static / "out.txt").symlink_to(root / "secret.txt")
    (static / "out-dir").symlink_to(root)
    (static / "inside.js").symlink_to(static / "app.js")
    # A static site beside it: index pages, a folder without one, a 404 page.
    site = root / "site"
    (site / "docs").mkdir(parents=True)
    (site / "empty").mkdir()
    (site / "index.html").write_bytes(HOME)
    (site / "docs" / "index.html").write_bytes(DOCS)
    (site / "404.html").write_bytes(MISSING)
    (site / "out").symlink_to(root)  # a folder outside, with its index.html
    (root / "index.html").write_bytes(SECRET)
    # The siblings are written after the file: never older than it.
    stat = (static / "app.js").stat()
    for name in ("app.js.gz", "app.js.br"):
        os.utime(static / name, (stat.st_atime, stat.st_mtime))
    return static


def cache_policy(path: str) -> str | None:
    """Fingerprinted names never change: cache them for a year."""
    stem = path.rsplit("/", 1)[-1].split(".")
    if len(stem) == 3 and len(stem[1]) == 6:
        return "public, max-age=31536000, immutable"
    return None


def make_app(root: str | os.PathLike[str]) -> App:
    """The App every transport serves: three static routes and a page."""
    static = Path(root) / "static"
    app = App("static-test")
    app.static("/static", static, cache_control=cache_policy)
    app.static("/site", Path(root) / "site", html=True, not_found="404.html", endpoint="site")
    assets = Blueprint("assets", url_prefix="/bp")
    assets.static("/files", static / "css", endpoint="css")
    app.register_blueprint(assets)

    @app.get("/")
    def index(request: Request) -> Response:
        return Response(app.url_for("static", path="css/site.css"))

    return app


# -- the fixtures -----------------------------------------------------------------


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("static-site")
    build_tree(root)
    return root


@pytest.fixture(scope="module")
def app(tree: Path) -> App:
    return make_app(tree)


@pytest.fixture(params=["wsgi", "asgi"])
def client(request: pytest.FixtureRequest, app: App, tree: Path) -> Iterator[Client]:
    interface: Literal["wsgi", "asgi"] = request.param
    with Client(app, interface=interface) as client:
        yield client
        # Every case: nothing of the tree left open once its response is done.
        assert open_files(tree) == []


def open_files(root: Path) -> list[str]:
    """The files under ``root`` that this process holds a descriptor of."""
    found = []
    real_root = os.path.realpath(root)
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the descriptor listdir used, closed already
        if target.startswith(real_root + os.sep):
            found.append(target)
    return found


pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="counting open files needs /proc"
)


# -- serving ------------------------------------------------------------------------


def test_a_file_with_type_length_and_validators(client: Client) -> None:
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert response.content == CSS
    assert response.headers["content-type"] == "text/css; charset=utf-8"
    assert response.headers["content-length"] == str(len(CSS))
    assert response.headers["etag"]
    assert response.headers["last-modified"]
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["accept-ranges"] == "bytes"


def test_a_large_file_whole(client: Client) -> None:
    assert client.get("/static/big.bin").content == BIG


def test_url_for_builds_the_static_url(client: Client) -> None:
    assert client.get("/").text == "/static/css/site.css"


def test_a_blueprint_static_route(client: Client) -> None:
    response = client.get("/bp/files/site.css")
    assert response.content == CSS


def test_fingerprinted_names_are_immutable(client: Client) -> None:
    response = client.get("/static/app.3f9a1c.js")
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_a_symlink_inside_the_folder(client: Client) -> None:
    assert client.get("/static/inside.js").content == SCRIPT


def test_head_sends_the_headers_only(client: Client) -> None:
    response = client.head("/static/big.bin")
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-length"] == str(len(BIG))


def test_post_is_405(client: Client) -> None:
    response = client.post("/static/app.js")
    assert response.status_code == 405
    assert "GET" in response.headers["allow"]


# -- conditional and range answers ---------------------------------------------------


def test_if_none_match_gives_304(client: Client) -> None:
    etag = client.get("/static/app.js").headers["etag"]
    response = client.get("/static/app.js", headers={"if-none-match": etag})
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == etag


def test_if_modified_since_gives_304(client: Client) -> None:
    modified = client.get("/static/app.js").headers["last-modified"]
    response = client.get("/static/app.js", headers={"if-modified-since": modified})
    assert response.status_code == 304


def test_a_range(client: Client) -> None:
    response = client.get("/static/big.bin", headers={"range": "bytes=1000-1999"})
    assert response.status_code == 206
    assert response.content == BIG[1000:2000]
    assert response.headers["content-range"] == f"bytes 1000-1999/{len(BIG)}"


def test_several_ranges(client: Client) -> None:
    response = client.get("/static/big.bin", headers={"range": "bytes=0-9, 100-109"})
    assert response.status_code == 206
    assert response.headers["content-type"].startswith("multipart/byteranges")
    assert BIG[0:10] in response.content
    assert BIG[100:110] in response.content


def test_if_range_with_the_etag_gives_the_range(client: Client) -> None:
    etag = client.get("/static/big.bin").headers["etag"]
    response = client.get("/static/big.bin", headers={"range": "bytes=0-9", "if-range": etag})
    assert response.status_code == 206
    stale = client.get("/static/big.bin", headers={"range": "bytes=0-9", "if-range": '"x"'})
    assert stale.status_code == 200
    assert stale.content == BIG


def test_an_unsatisfiable_range_is_416(client: Client) -> None:
    response = client.get("/static/app.js", headers={"range": "bytes=999999-"})
    assert response.status_code == 416


@pytest.mark.parametrize("header", ["bytes=1000-1999", "bytes=0-9, 100-109", "bytes=999999-"])
def test_head_ignores_range(client: Client, header: str) -> None:
    # RFC 9110 §14.2: only GET has range handling; a HEAD gets the 200's fields.
    response = client.head("/static/big.bin", headers={"range": header})
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-length"] == str(len(BIG))
    assert response.headers["accept-ranges"] == "bytes"
    assert "content-range" not in response.headers


# -- precompressed siblings ------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "coding", "content"),
    [
        ("gzip, deflate, br", "br", BROTLI),
        ("gzip", "gzip", gzip.compress(SCRIPT)),
        ("br;q=0.1, gzip", "gzip", gzip.compress(SCRIPT)),
        ("identity", None, SCRIPT),
    ],
)
def test_precompressed_siblings(
    client: Client, tree: Path, accept: str, coding: str | None, content: bytes
) -> None:
    response = client.get("/static/app.js", headers={"accept-encoding": accept})
    assert response.headers.get("content-encoding") == coding
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["vary"] == "Accept-Encoding"
    if coding == "gzip":
        assert gzip.decompress(response.raw_content) == SCRIPT
    else:
        assert response.content == content


def test_each_coding_revalidates_with_its_own_etag(client: Client) -> None:
    br = client.get("/static/app.js", headers={"accept-encoding": "br"})
    gz = client.get("/static/app.js", headers={"accept-encoding": "gzip"})
    assert br.headers["etag"] != gz.headers["etag"]
    again = client.get(
        "/static/app.js", headers={"accept-encoding": "br", "if-none-match": br.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["vary"] == "Accept-Encoding"


def test_gzip_middleware_does_not_compress_again(tree: Path) -> None:
    from sansio_http import GZipMiddleware

    app = make_app(tree)
    app.add_middleware(GZipMiddleware(minimum_size=10))
    for interface in ("wsgi", "asgi"):
        with Client(app, interface=interface) as client:
            response = client.get("/static/app.js", headers={"accept-encoding": "gzip"})
            assert response.headers["content-encoding"] == "gzip"
            assert gzip.decompress(response.raw_content) == SCRIPT  # one layer only
            plain = client.get("/static/big.bin", headers={"accept-encoding": "gzip"})
            assert "content-encoding" not in plain.headers
            assert plain.content == BIG


# -- traversal: the secret is never served ------------------------------------------------

TRAVERSALS = [
    "/static/%2e%2e/secret.txt",
    "/static/%2E%2E/secret.txt",
    "/static/css/%2e%2e/%2e%2e/secret.txt",
    "/static/..%2fsecret.txt",
    "/static/..%2Fsecret.txt",
    "/static/css%2F..%2F..%2Fsecret.txt",
    "/static/..%5csecret.txt",
    "/static/..%5Csecret.txt",
    "/static/%5c..%5csecret.txt",
    "/static/%00../secret.txt",
    "/static/app.js%00.png",
    "/static/C:%5csecret.txt",
    "/static/c:/secret.txt",
    "/static/%2fetc/passwd",
    "/static//etc/passwd",
    "/static/%252e%252e/secret.txt",
    "/static/.env",
    "/static/%2eenv",
    "/static/out.txt",
    "/static/out-dir/secret.txt",
    "/static/css",
    "/static/css/",
    "/static/",
    "/static/nul",
    "/static/app.js::$DATA",
    "/static/app.js/",
    "/bp/files/%2e%2e/%2e%2e/secret.txt",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_traversal_is_404(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert SECRET not in response.content


def test_an_encoded_dot_segment_reaches_the_view(app: App) -> None:
    # The test client cannot send "/../" (URL resolution removes it), but
    # %2e%2e reaches the App decoded as "..": the view itself refuses it.
    seen: list[str] = []
    app.before_request_funcs.insert(0, lambda request: seen.append(request.path))
    try:
        with Client(app, interface="wsgi") as client:
            assert client.get("/static/%2e%2e/secret.txt").status_code == 404
    finally:
        app.before_request_funcs.pop(0)
    assert seen == ["/static/../secret.txt"]


# -- descriptors on every path -------------------------------------------------------------


def test_a_response_left_after_one_chunk_closes_the_file(client: Client, tree: Path) -> None:
    # A range goes through the streaming path under both adapters.
    with client.stream(
        "GET", "/static/big.bin", headers={"range": f"bytes=0-{len(BIG) - 2}"}
    ) as response:
        first = next(response.iter_bytes())
        assert first == BIG[: len(first)]
        # Open while it streams: the count below sees the adapter's descriptor.
        assert open_files(tree) == [os.path.realpath(tree / "static" / "big.bin")]
    assert open_files(tree) == []


def test_a_whole_file_left_after_one_chunk_closes_the_file(client: Client, tree: Path) -> None:
    with client.stream("GET", "/static/big.bin") as response:
        next(response.iter_bytes())
    assert open_files(tree) == []


def test_without_a_file_system_the_error_names_the_fix(tree: Path) -> None:
    app = make_app(tree)
    with pytest.raises(RuntimeError, match=r"to_wsgi\(\) or to_asgi\(\)"):
        app.dispatch_sync(
            Request("GET", "/static/app.js", b"", {}, "http", None, ""), propagate=True
        )


def test_a_file_system_given_to_static_is_used(tree: Path) -> None:
    from sansio_http import FileInfo

    class Everything:
        """Says every path is a 3-byte file of the folder."""

        def file_info(self, path: str) -> FileInfo | None:
            return FileInfo(3, 0.0, True)

        def is_symlink(self, path: str) -> bool:
            return False

        def realpath(self, path: str) -> str:
            return path

    app = App()
    app.static("/s", tree / "static", file_system=Everything(), precompressed=False)
    response = app.dispatch_sync(Request("HEAD", "/s/app.js", b"", {}, "http", None, ""))
    assert response.headers["content-length"] == "3"


def test_static_refuses_a_prefix_without_a_slash() -> None:
    app = App()
    with pytest.raises(ValueError, match="'/static'"):
        app.static("static", "assets")
    with pytest.raises(TypeError, match="URL prefix first"):
        app.static(Path("assets"), "/static")  # type: ignore[arg-type]


# -- zero-copy where the server offers it -----------------------------------------------------


def test_wsgi_hands_the_file_to_the_servers_file_wrapper(tree: Path) -> None:
    from wsgiref.util import setup_testing_defaults

    from sansio_http.wsgi import to_wsgi

    wrapped: list[int] = []

    def file_wrapper(file: object, block_size: int = 8192) -> Iterator[bytes]:
        # A server that can sendfile() asks for the descriptor.
        wrapped.append(file.fileno())  # type: ignore[attr-defined]
        read = file.read  # type: ignore[attr-defined]
        try:
            while chunk := read(block_size):
                yield chunk
        finally:
            file.close()  # type: ignore[attr-defined]

    environ: dict[str, object] = {"PATH_INFO": "/static/big.bin", "wsgi.file_wrapper": file_wrapper}
    setup_testing_defaults(environ)
    statuses: list[str] = []

    def start_response(status: str, headers: object, exc_info: object = None) -> object:
        statuses.append(status)
        return None

    result = to_wsgi(make_app(tree))(environ, start_response)  # type: ignore[arg-type]
    try:
        assert b"".join(result) == BIG
    finally:
        result.close()  # type: ignore[attr-defined]
    assert statuses == ["200 OK"]
    assert len(wrapped) == 1
    assert wrapped[0] > 0
    assert open_files(tree) == []


def test_asgi_sends_the_path_when_the_server_offers_pathsend(tree: Path) -> None:
    import asyncio

    from sansio_http.asgi import to_asgi

    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/static/big.bin",
        "raw_path": b"/static/big.bin",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "server": ("testserver", 80),
        "extensions": {"http.response.pathsend": {}},
    }
    asyncio.run(to_asgi(make_app(tree))(scope, receive, send))  # type: ignore[arg-type]
    assert [message["type"] for message in sent] == [
        "http.response.start",
        "http.response.pathsend",
    ]
    assert sent[1]["path"] == os.path.abspath(tree / "static" / "big.bin")


# -- deep folders: work linear in the depth ---------------------------------------------------


class Measured:
    """The adapter's file system, counting the characters of the paths it is given."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.chars = 0

    def file_info(self, path: str) -> Any:
        self.chars += len(path)
        return self.inner.file_info(path)

    def is_symlink(self, path: str) -> bool:
        self.chars += len(path)
        return bool(self.inner.is_symlink(path))

    def realpath(self, path: str) -> str:
        self.chars += len(path)
        return str(self.inner.realpath(path))

    def symlink_below(self, folder: str, names: list[str]) -> bool:
        self.chars += len(folder) + sum(map(len, names))
        return bool(self.inner.symlink_below(folder, names))


def file_system_of(interface: str) -> Any:
    if interface == "wsgi":
        from sansio_http.wsgi._static import FILE_SYSTEM as WSGI_FILE_SYSTEM

        return WSGI_FILE_SYSTEM
    from sansio_http.asgi._static import FILE_SYSTEM as ASGI_FILE_SYSTEM

    return ASGI_FILE_SYSTEM


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
def test_a_deep_file_costs_work_linear_in_its_depth(
    tmp_path: Path, interface: Literal["wsgi", "asgi"]
) -> None:
    # Each lstat of an ever longer path walks it all again: O(k²) for k folders.
    depth = 400
    folder = tmp_path / "deep"
    leaf = folder.joinpath(*["d"] * depth)
    leaf.mkdir(parents=True)
    (leaf / "f.txt").write_bytes(b"deep")
    measured = Measured(file_system_of(interface))
    app = App()
    app.static("/s", folder, file_system=measured, precompressed=False)
    with Client(app, interface=interface) as client:
        assert client.get("/s/" + "d/" * depth + "f.txt").content == b"deep"
    full = len(str(leaf / "f.txt"))
    assert measured.chars <= 3 * full


@pytest.mark.parametrize("interface", ["wsgi", "asgi"])
@pytest.mark.parametrize("where", [0, 1, 2])
def test_a_symlink_at_any_depth_is_found(
    tmp_path: Path, interface: Literal["wsgi", "asgi"], where: int
) -> None:
    outside = tmp_path / "outside"
    (outside / "b").mkdir(parents=True)
    (outside / "b" / "f.txt").write_bytes(SECRET)
    (outside / "f.txt").write_bytes(SECRET)
    folder = tmp_path / "served"
    names = ["a", "b", "f.txt"]
    inside = folder.joinpath(*names[:where])
    inside.mkdir(parents=True)
    # names[where] is a symlink that leads out of the folder.
    target = outside.joinpath(*names[1 : where + 1]) if where else outside
    inside.joinpath(names[where]).symlink_to(target)
    fs = file_system_of(interface)
    assert fs.symlink_below(str(folder), names) is True
    assert fs.symlink_below(str(outside), ["b", "f.txt"]) is False
    assert fs.symlink_below(str(folder), ["missing", "f.txt"]) is True  # cannot tell
    app = App()
    app.static("/s", folder)
    with Client(app, interface=interface) as client:
        response = client.get("/s/a/b/f.txt")
    assert response.status_code == 404
    assert SECRET not in response.content
