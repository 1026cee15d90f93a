"""Tests for static_response: the path rules, negotiation and caching, without I/O.

A fake file system stands in for the disk: a folder ``/srv/site/static``
with a few files, a secret beside it, and symlinks inside that lead in and
out. No test here touches a real file.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_http import (
    FileBody,
    FileInfo,
    FileSystem,
    MethodNotAllowed,
    NotFound,
    Request,
    Response,
    static_response,
)
from sansio_http.messages._static import StaticDirectory

ROOT = "/srv/site/static"
SECRET = "/srv/site/secret.txt"
MTIME = 1_700_000_000.0


class FakeFileSystem:
    """Files, folders and symlinks held in dicts; absolute POSIX paths only."""

    def __init__(
        self,
        files: Mapping[str, tuple[int, float]],
        folders: set[str],
        links: Mapping[str, str] | None = None,
    ) -> None:
        self.files = dict(files)
        self.folders = set(folders)
        self.links = dict(links or {})
        self.asked: list[str] = []
        self.resolved: list[str] = []

    def _resolve(self, path: str) -> str:
        resolved = ""
        for part in posixpath.normpath(path).split("/")[1:]:
            resolved = posixpath.normpath(f"{resolved}/{part}")
            for _ in range(8):  # a loop of links resolves to nothing found
                if resolved not in self.links:
                    break
                resolved = self.links[resolved]
        return resolved or "/"

    def file_info(self, path: str) -> FileInfo | None:
        self.asked.append(path)
        real = self._resolve(path)
        if real in self.files:
            size, mtime = self.files[real]
            return FileInfo(size, mtime, True)
        if real in self.folders:
            return FileInfo(4096, MTIME, False)
        return None

    def is_symlink(self, path: str) -> bool:
        self.asked.append(path)
        parent, _, name = path.rpartition("/")
        return f"{self._resolve(parent)}/{name}" in self.links

    def realpath(self, path: str) -> str:
        self.resolved.append(path)
        return self._resolve(path)


def make_fs(**extra_files: tuple[int, float]) -> FakeFileSystem:
    files = {
        f"{ROOT}/app.js": (1000, MTIME),
        f"{ROOT}/css/site.css": (200, MTIME),
        f"{ROOT}/logo.png": (5000, MTIME),
        f"{ROOT}/.env": (10, MTIME),
        f"{ROOT}/.well-known/security.txt": (30, MTIME),
        # A static site: index pages, a folder without one, and a 404 page.
        f"{ROOT}/index.html": (50, MTIME),
        f"{ROOT}/docs/index.html": (60, MTIME),
        f"{ROOT}/docs/guide.html": (70, MTIME),
        f"{ROOT}/404.html": (40, MTIME),
        "/srv/site/index.html": (8, MTIME),  # beside the folder: never served
        SECRET: (7, MTIME),
        "/etc/passwd": (900, MTIME),
    }
    files.update({f"{ROOT}/{name.replace('__', '/')}": info for name, info in extra_files.items()})
    links = {
        f"{ROOT}/out.txt": SECRET,  # leaves the folder
        f"{ROOT}/out-dir": "/srv/site",  # a folder outside
        f"{ROOT}/alias.js": f"{ROOT}/app.js",  # stays inside
    }
    folders = {ROOT, f"{ROOT}/css", f"{ROOT}/docs", "/srv/site", "/etc"}
    return FakeFileSystem(files, folders, links)


class RawRequest(Request):
    """A core Request that knows the raw path, as the adapters' requests do."""

    def __init__(self, *args: object, raw_path: bytes | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.raw_path = raw_path


def get(
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    method: str = "GET",
    raw: bytes | None = None,
) -> RawRequest:
    return RawRequest(
        method, "/static/" + path, b"", dict(headers or {}), "http", None, "", raw_path=raw
    )


def serve(
    path: str,
    headers: Mapping[str, str] | None = None,
    fs: FileSystem | None = None,
    **options: object,
) -> Response:
    return static_response(
        get(path, headers),
        ROOT,
        path,
        fs=fs or make_fs(),
        **options,  # type: ignore[arg-type]
    )


def served_path(response: Response) -> str:
    body = response.body
    assert isinstance(body, FileBody)
    return body.path


# -- what is served -----------------------------------------------------------


def test_a_file_is_served_with_type_length_and_validators() -> None:
    response = serve("css/site.css")
    assert response.status == 200
    assert served_path(response) == f"{ROOT}/css/site.css"
    assert response.headers["content-type"] == "text/css; charset=utf-8"
    assert response.headers["content-length"] == "200"
    assert response.headers["etag"].startswith('"')
    assert response.headers["last-modified"] == "Tue, 14 Nov 2023 22:13:20 GMT"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["vary"] == "Accept-Encoding"


def test_binary_types_get_no_charset() -> None:
    assert serve("logo.png").headers["content-type"] == "image/png"


def test_a_symlink_inside_the_folder_is_served() -> None:
    assert served_path(serve("alias.js")) == f"{ROOT}/alias.js"


# -- what is refused ------------------------------------------------------------

REFUSED = [
    "../secret.txt",
    "css/../../secret.txt",
    "css/../site.css",  # stays inside, but ".." is refused, not normalised
    "./app.js",
    "css//site.css",
    "css/site.css/",
    "css",  # a folder
    "css/",
    "",
    ".env",
    ".well-known/security.txt",
    "..\\secret.txt",
    "css\\..\\..\\secret.txt",
    "app.js\x00.png",
    "C:/Windows/win.ini",
    "c:secret.txt",
    "app.js::$DATA",
    "/etc/passwd",
    "//etc/passwd",
    "nul",
    "con.txt",
    "out.txt",  # a symlink that leaves the folder
    "out-dir/secret.txt",  # through a linked folder outside
    "missing.js",
    "%2e%2e/secret.txt",  # double-encoded: a literal name, which does not exist
]


@pytest.mark.parametrize("path", REFUSED)
def test_refused_paths_are_404(path: str) -> None:
    with pytest.raises(NotFound):
        serve(path)


@pytest.mark.parametrize(
    "raw", [b"/static/css%2Fsite.css", b"/static/css%2fsite.css", b"/static/css%5Csite.css"]
)
def test_an_encoded_separator_does_not_cross_a_segment(raw: bytes) -> None:
    # The server decoded %2F to "/", so the path alone looks like "css/site.css".
    request = RawRequest("GET", "/static/css/site.css", b"", {}, "http", None, "", raw_path=raw)
    with pytest.raises(NotFound):
        static_response(request, ROOT, "css/site.css", fs=make_fs())


def test_other_encodings_in_the_raw_path_are_fine() -> None:
    request = RawRequest(
        "GET", "/static/app.js", b"", {}, "http", None, "", raw_path=b"/static/%61pp.js"
    )
    assert static_response(request, ROOT, "app.js", fs=make_fs()).status == 200


def test_dotfiles_are_served_when_asked() -> None:
    assert served_path(serve(".well-known/security.txt", dotfiles=True)).endswith("security.txt")
    with pytest.raises(NotFound):
        serve("../secret.txt", dotfiles=True)


def test_symlinks_may_leave_the_folder_when_asked() -> None:
    assert served_path(serve("out.txt", follow_symlinks=True)) == f"{ROOT}/out.txt"


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_other_methods_are_405(method: str) -> None:
    request = get("app.js", method=method)
    with pytest.raises(MethodNotAllowed) as caught:
        static_response(request, ROOT, "app.js", fs=make_fs())
    assert caught.value.headers["Allow"] == "GET, HEAD"


def test_a_refused_path_asks_the_file_system_nothing() -> None:
    fs = make_fs()
    for path in ("../secret.txt", ".env", "a\\b", "C:/x", "css//site.css", "nul"):
        with pytest.raises(NotFound):
            serve(path, fs=fs)
    assert fs.asked == []


# -- conditional and range requests ---------------------------------------------


def test_if_none_match_gives_304_with_validators() -> None:
    etag = serve("app.js").headers["etag"]
    response = serve("app.js", {"if-none-match": etag})
    assert response.status == 304
    assert response.body == b""
    assert response.headers["etag"] == etag
    assert response.headers["vary"] == "Accept-Encoding"
    assert "content-length" not in response.headers


def test_if_modified_since_gives_304() -> None:
    response = serve("app.js", {"if-modified-since": "Tue, 14 Nov 2023 22:13:20 GMT"})
    assert response.status == 304


def test_range_gives_206_of_the_file_region() -> None:
    response = serve("app.js", {"range": "bytes=10-19"})
    assert response.status == 206
    assert response.headers["content-range"] == "bytes 10-19/1000"
    body = response.body
    assert isinstance(body, FileBody)
    assert body.content_length == 10


def test_if_range_with_an_old_tag_gives_the_whole_file() -> None:
    response = serve("app.js", {"range": "bytes=0-9", "if-range": '"old"'})
    assert response.status == 200


def test_an_unsatisfiable_range_is_416() -> None:
    assert serve("app.js", {"range": "bytes=5000-"}).status == 416


def test_head_is_answered_like_get() -> None:
    request = get("app.js", method="HEAD")
    response = static_response(request, ROOT, "app.js", fs=make_fs())
    assert response.status == 200
    assert response.headers["content-length"] == "1000"


# -- precompressed siblings -----------------------------------------------------


def fs_with_siblings(br_mtime: float = MTIME, gz_mtime: float = MTIME) -> FakeFileSystem:
    return make_fs(**{"app.js.br": (300, br_mtime), "app.js.gz": (400, gz_mtime)})


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("gzip, deflate, br", "br"),
        ("br, gzip", "br"),
        ("gzip, br", "br"),  # equal qualities: br
        ("gzip", "gzip"),
        ("br;q=0.5, gzip", "gzip"),
        ("br;q=0, gzip;q=0.1", "gzip"),
        ("*", "br"),
        ("*;q=0.2, identity", None),  # identity rated higher than any coding
        ("gzip;q=0.5, identity;q=0.5", "gzip"),
        ("br;q=0, gzip;q=0", None),
        ("deflate", None),
        ("", None),  # an empty header: identity only
        (None, None),  # no header: the file as it is
    ],
)
def test_the_coding_follows_accept_encoding(accept: str | None, coding: str | None) -> None:
    headers = {} if accept is None else {"accept-encoding": accept}
    response = serve("app.js", headers, fs=fs_with_siblings())
    assert response.headers.get("content-encoding") == coding
    suffix = {"br": ".br", "gzip": ".gz", None: ""}[coding]
    assert served_path(response) == f"{ROOT}/app.js{suffix}"
    # The original's type, whatever bytes are sent; Vary on every answer.
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["vary"] == "Accept-Encoding"


def test_each_coding_has_its_own_etag_and_length() -> None:
    fs = fs_with_siblings()
    tags = {
        accept: serve("app.js", {"accept-encoding": accept}, fs=fs).headers["etag"]
        for accept in ("br", "gzip", "identity")
    }
    assert len(set(tags.values())) == 3
    assert tags["br"].endswith('-br"')
    gzip = serve("app.js", {"accept-encoding": "gzip"}, fs=fs)
    assert gzip.headers["content-length"] == "400"


def test_a_coding_etag_gives_304_only_for_that_coding() -> None:
    fs = fs_with_siblings()
    br_tag = serve("app.js", {"accept-encoding": "br"}, fs=fs).headers["etag"]
    assert serve("app.js", {"accept-encoding": "br", "if-none-match": br_tag}, fs=fs).status == 304
    # A client that now takes only gzip gets the gzip bytes, not a 304.
    assert (
        serve("app.js", {"accept-encoding": "gzip", "if-none-match": br_tag}, fs=fs).status == 200
    )


def test_a_stale_sibling_is_skipped() -> None:
    fs = fs_with_siblings(br_mtime=MTIME - 60)
    response = serve("app.js", {"accept-encoding": "br, gzip"}, fs=fs)
    assert response.headers["content-encoding"] == "gzip"


def test_a_sibling_that_links_out_is_skipped() -> None:
    fs = make_fs()
    fs.links[f"{ROOT}/app.js.gz"] = SECRET
    response = serve("app.js", {"accept-encoding": "gzip"}, fs=fs)
    assert "content-encoding" not in response.headers
    assert served_path(response) == f"{ROOT}/app.js"


def test_precompressed_off_looks_for_no_sibling() -> None:
    fs = fs_with_siblings()
    response = serve("app.js", {"accept-encoding": "br"}, fs=fs, precompressed=False)
    assert "content-encoding" not in response.headers
    assert "vary" not in response.headers
    assert [path for path in fs.asked if path.endswith((".br", ".gz"))] == []


def test_a_range_of_a_coding_is_a_range_of_its_bytes() -> None:
    response = serve(
        "app.js", {"accept-encoding": "br", "range": "bytes=0-99"}, fs=fs_with_siblings()
    )
    assert response.status == 206
    assert response.headers["content-range"] == "bytes 0-99/300"
    assert response.headers["content-encoding"] == "br"


# -- Cache-Control ----------------------------------------------------------------


def test_cache_control_value() -> None:
    response = serve("app.js", cache_control="public, max-age=60")
    assert response.headers["cache-control"] == "public, max-age=60"


def test_cache_control_function_of_the_path() -> None:
    def policy(path: str) -> str | None:
        return "public, max-age=31536000, immutable" if ".v1." in path else None

    fs = make_fs(**{"app.v1.js": (10, MTIME)})
    assert serve("app.v1.js", fs=fs, cache_control=policy).headers["cache-control"] == (
        "public, max-age=31536000, immutable"
    )
    assert serve("app.js", fs=fs, cache_control=policy).headers["cache-control"] == "no-cache"


def test_cache_control_is_kept_on_a_304() -> None:
    etag = serve("app.js").headers["etag"]
    response = serve("app.js", {"if-none-match": etag}, cache_control="max-age=5")
    assert response.status == 304
    assert response.headers["cache-control"] == "max-age=5"


def test_options_are_checked_when_made() -> None:
    with pytest.raises(TypeError, match="cache_control"):
        StaticDirectory(ROOT, cache_control=60)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        StaticDirectory("")


def test_the_folder_is_resolved_once_per_file_system() -> None:
    fs = make_fs()
    rules = StaticDirectory(ROOT)
    for _ in range(3):
        rules.respond(get("alias.js"), "alias.js", fs)
    assert fs.resolved.count(ROOT) == 1
    assert fs.resolved.count(f"{ROOT}/alias.js") == 3


def test_without_symlinks_nothing_is_resolved() -> None:
    # Each segment below the folder is checked for a link; none: no realpath.
    fs = make_fs()
    serve("css/site.css", fs=fs)
    assert fs.resolved == []
    assert [path for path in fs.asked if path != f"{ROOT}/css/site.css"] == [f"{ROOT}/css"]


def test_a_linked_folder_on_the_way_is_resolved() -> None:
    fs = make_fs(**{"real__inner.js": (5, MTIME)})
    fs.folders.add(f"{ROOT}/real")
    fs.links[f"{ROOT}/linked"] = f"{ROOT}/real"  # a folder link that stays inside
    assert served_path(serve("linked/inner.js", fs=fs)) == f"{ROOT}/linked/inner.js"
    fs.links[f"{ROOT}/linked"] = "/etc"  # now it leads out
    fs.files["/etc/inner.js"] = (5, MTIME)
    with pytest.raises(NotFound):
        serve("linked/inner.js", fs=fs)


def test_a_sibling_through_a_folder_that_links_out_is_skipped() -> None:
    # The file links back inside through a folder that leads out; the
    # sibling beside it is outside, and must not be sent.
    fs = make_fs()
    fs.folders.add("/outside")
    fs.links[f"{ROOT}/dir"] = "/outside"
    fs.links["/outside/x.js"] = f"{ROOT}/app.js"
    fs.files["/outside/x.js.gz"] = (99, MTIME)
    response = serve("dir/x.js", {"accept-encoding": "gzip"}, fs=fs)
    assert "content-encoding" not in response.headers


def test_an_unconditional_request_skips_the_conditional_rules() -> None:
    response = serve("app.js")
    assert response.status == 200
    assert response.headers["accept-ranges"] == "bytes"


# -- properties ---------------------------------------------------------------------

# Pieces that traversal attempts are made of, and harmless names.
PIECES = st.sampled_from(
    [
        "..", ".", "", "app.js", "css", "site.css", "secret.txt", "out.txt", "out-dir",
        "\\", "..\\", "%2e%2e", "\x00", "C:", "c:", ":", "nul", ".env", "/", "//", "etc",
        "passwd", "alias.js", "\u2025", "\uff0e\uff0e", "docs", "index.html", "404.html",
        "%2f", "%5c", "?", "#", "@evil.com", "evil.com",
    ]
)  # fmt: skip

#: Where an App may be mounted, hostile ones included: the Location stays ours.
ROOT_PATHS = st.sampled_from(["", "/app", "//evil.com", "/\\evil.com", "/a b"])


def check_answer(response: Response, request: Request, fs: FakeFileSystem) -> None:
    """Assert what any answer of the static rules may be: a file inside, or a same-origin 308."""
    if response.status == 308:
        location = response.headers["location"]
        assert response.body == b""
        # SECURITY: an absolute path of this origin, whatever the request held.
        assert location.startswith("/")
        assert not location.startswith(("//", "/\\"))
        assert "\\" not in location
        assert urlsplit(urljoin("http://testserver/static/x", location)).netloc == "testserver"
        assert unquote(urlsplit(location).path) == request.root_path + request.path + "/"
        assert urlsplit(location).query == request.query_string.decode()
        return
    served = served_path(response)
    assert served.startswith(ROOT + "/")
    assert fs.realpath(served).startswith(ROOT + "/")
    assert fs.realpath(served) != SECRET
    if response.status == 404:
        assert served == f"{ROOT}/404.html"
    else:
        assert response.status == 200


@given(
    parts=st.lists(PIECES, max_size=6),
    dotfiles=st.booleans(),
    html=st.booleans(),
    not_found=st.sampled_from([None, "404.html"]),
    root_path=ROOT_PATHS,
    query=st.sampled_from([b"", b"a=1", b"next=//evil.com"]),
    slash=st.booleans(),
)
def test_nothing_outside_the_folder_is_ever_served(
    parts: list[str],
    dotfiles: bool,
    html: bool,
    not_found: str | None,
    root_path: str,
    query: bytes,
    slash: bool,
) -> None:
    path = "/".join(parts) + ("/" if slash else "")
    fs = make_fs()
    request = RawRequest(
        "GET", "/static/" + path, query, {}, "http", None, root_path, raw_path=None
    )
    try:
        response = static_response(
            request, ROOT, path, fs=fs, dotfiles=dotfiles, html=html, not_found=not_found
        )
    except NotFound:
        return
    check_answer(response, request, fs)


@given(
    path=st.text(max_size=40),
    follow=st.booleans(),
    html=st.booleans(),
    not_found=st.sampled_from([None, "404.html"]),
    root_path=ROOT_PATHS,
)
def test_any_text_is_a_file_inside_or_a_404(
    path: str, follow: bool, html: bool, not_found: str | None, root_path: str
) -> None:
    fs = make_fs()
    request = RawRequest("GET", "/static/" + path, b"", {}, "http", None, root_path)
    try:
        response = static_response(
            request, ROOT, path, fs=fs, follow_symlinks=follow, html=html, not_found=not_found
        )
    except NotFound:
        return
    if response.status == 308:
        check_answer(response, request, fs)
        return
    served = served_path(response)
    assert served.startswith(ROOT + "/")
    assert ".." not in served.split("/")
    if not follow:
        assert fs.realpath(served).startswith(ROOT + "/")
    if response.status == 404:
        assert served == f"{ROOT}/404.html"


@given(path=st.text(max_size=30), root_path=ROOT_PATHS, query=st.binary(max_size=12))
def test_a_folder_redirect_never_leaves_the_origin(path: str, root_path: str, query: bytes) -> None:
    # Every name is a folder with an index page here: each path that passes
    # the rules is redirected, whatever text the client put in it.
    fs = EveryFolder()
    request = RawRequest("GET", "/static/" + path, query, {}, "http", None, root_path)
    try:
        response = static_response(request, ROOT, path, fs=fs, html=True)
    except NotFound:
        return
    if response.status == 200:  # a folder's URL, or an index page named
        assert path == "" or path.endswith(("/", "/index.html")) or path == "index.html"
        return
    assert response.status == 308
    location = response.headers["location"]
    assert location.startswith("/")
    assert not location.startswith(("//", "/\\"))
    assert not any(char in location for char in "\\\r\n\t #")
    assert urlsplit(urljoin("http://testserver/static/x", location)).netloc == "testserver"
    assert unquote(urlsplit(location).path) == root_path + request.path + "/"


class EveryFolder:
    """A file system in which every path is a folder holding an index.html."""

    def file_info(self, path: str) -> FileInfo | None:
        return FileInfo(10, MTIME, path.endswith("/index.html"))

    def is_symlink(self, path: str) -> bool:
        return False

    def realpath(self, path: str) -> str:
        return path


@given(
    qualities=st.dictionaries(
        st.sampled_from(["br", "gzip", "identity", "*", "deflate"]),
        st.sampled_from([0, 0.1, 0.5, 1]),
        max_size=5,
    )
)
def test_the_coding_sent_is_one_the_client_accepts(qualities: dict[str, float]) -> None:
    header = ", ".join(f"{coding};q={quality}" for coding, quality in qualities.items())
    request = get("app.js", {"accept-encoding": header})
    response = static_response(request, ROOT, "app.js", fs=fs_with_siblings())
    coding = response.headers.get("content-encoding")
    accept = request.accept_encodings
    if coding is not None:
        assert accept.quality(coding) > 0
        assert accept.quality(coding) >= accept.quality("identity")
        others = [c for c in ("br", "gzip") if c != coding]
        assert all(accept.quality(other) <= accept.quality(coding) for other in others)


# -- file_response(headers=...) ------------------------------------------------------


def test_file_response_takes_more_fields_and_replaces_its_own() -> None:
    from sansio_http import file_response

    response = file_response(
        "/srv/a.js",
        size=10,
        mtime=MTIME,
        headers={"cache-control": "max-age=60", "Vary": "Accept-Encoding"},
        request=get("a.js", {"if-modified-since": "Tue, 14 Nov 2023 22:13:20 GMT"}),
    )
    assert response.status == 304
    assert response.headers.getlist("cache-control") == ["max-age=60"]
    assert response.headers["vary"] == "Accept-Encoding"


# -- the fields kept per file ---------------------------------------------------------


def test_a_changed_file_gets_new_validators() -> None:
    fs = make_fs()
    rules = StaticDirectory(ROOT)
    first = rules.respond(get("app.js"), "app.js", fs)
    assert rules.respond(get("app.js"), "app.js", fs).headers == first.headers
    fs.files[f"{ROOT}/app.js"] = (1001, MTIME + 1)
    changed = rules.respond(get("app.js"), "app.js", fs)
    assert changed.headers["etag"] != first.headers["etag"]
    assert changed.headers["content-length"] == "1001"
    assert changed.headers["last-modified"] == "Tue, 14 Nov 2023 22:13:21 GMT"


def test_a_response_changed_by_its_caller_leaves_the_next_alone() -> None:
    rules = StaticDirectory(ROOT)
    fs = make_fs()
    rules.respond(get("app.js"), "app.js", fs).headers["X-Mine"] = "1"
    first = rules.respond(get("app.js"), "app.js", fs)
    first.headers["Cache-Control"] = "private"
    again = rules.respond(get("app.js"), "app.js", fs)
    assert "x-mine" not in again.headers
    assert again.headers["cache-control"] == "no-cache"


def test_the_cache_control_function_runs_once_per_file_version() -> None:
    calls: list[str] = []

    def policy(path: str) -> str:
        calls.append(path)
        return "max-age=1"

    rules = StaticDirectory(ROOT, cache_control=policy)
    fs = make_fs()
    for _ in range(3):
        assert rules.respond(get("app.js"), "app.js", fs).headers["cache-control"] == "max-age=1"
    assert calls == ["app.js"]


def test_the_kept_fields_are_bounded() -> None:
    from sansio_http.messages import _static

    names = {f"f{number}.txt": (number, MTIME) for number in range(_static._MAX_CACHED_HEADERS + 5)}
    fs = make_fs(**names)
    rules = StaticDirectory(ROOT)
    for name in names:
        assert rules.respond(get(name), name, fs).headers["content-length"] == str(names[name][0])
    assert len(rules._headers) <= _static._MAX_CACHED_HEADERS


# -- a revalidation answered from the kept fields -----------------------------------

LAST_MODIFIED = "Tue, 14 Nov 2023 22:13:20 GMT"
LATER = "Wed, 15 Nov 2023 00:00:00 GMT"
EARLIER = "Mon, 13 Nov 2023 00:00:00 GMT"


def etag_of(path: str = "app.js") -> str:
    return serve(path).headers["etag"]


def warmed(path: str = "app.js") -> tuple[StaticDirectory, FakeFileSystem]:
    # The first answer for a file keeps its fields; the next ones reuse them.
    rules, fs = StaticDirectory(ROOT), make_fs()
    assert rules.respond(get(path), path, fs).status == 200
    return rules, fs


def as_sent(response: Response) -> tuple[int, list[tuple[bytes, bytes]], object]:
    body = response.body
    region = body.segments if isinstance(body, FileBody) else body
    return response.status, response.raw_headers(), region


REVALIDATIONS: list[tuple[dict[str, str], str, int]] = [
    ({"if-none-match": "{etag}"}, "GET", 304),
    ({"if-none-match": "W/{etag}"}, "GET", 304),  # weak comparison (RFC 9110 §8.8.3.2)
    ({"if-none-match": '"other", {etag}'}, "GET", 304),
    ({"if-none-match": "*"}, "GET", 304),
    ({"if-none-match": "{etag}"}, "HEAD", 304),
    # If-None-Match is decided before If-Modified-Since and Range (RFC 9110 §13.2.2).
    ({"if-none-match": '"other"', "if-modified-since": LATER}, "GET", 200),
    ({"if-none-match": "{etag}", "if-modified-since": EARLIER}, "GET", 304),
    ({"if-none-match": "{etag}", "range": "bytes=0-9"}, "GET", 304),
    ({"if-none-match": '"other"', "range": "bytes=0-9"}, "GET", 206),
    # If-Match and If-Unmodified-Since come first.
    ({"if-none-match": "{etag}", "if-match": '"other"'}, "GET", 412),
    ({"if-none-match": "{etag}", "if-unmodified-since": EARLIER}, "GET", 412),
    ({"if-none-match": "{etag}", "if-unmodified-since": LATER}, "GET", 304),
    # An empty list is no condition: If-Modified-Since decides.
    ({"if-none-match": " ", "if-modified-since": LAST_MODIFIED}, "GET", 304),
    ({"if-none-match": " ", "if-modified-since": EARLIER}, "GET", 200),
]


@pytest.mark.parametrize(("template", "method", "status"), REVALIDATIONS)
def test_a_kept_file_answers_as_make_conditional_does(
    template: dict[str, str], method: str, status: int
) -> None:
    etag = etag_of()
    headers = {name: value.format(etag=etag) for name, value in template.items()}
    # A fresh folder's first answer goes through make_conditional.
    expected = StaticDirectory(ROOT).respond(
        get("app.js", headers, method=method), "app.js", make_fs()
    )
    rules, fs = warmed()
    answer = rules.respond(get("app.js", headers, method=method), "app.js", fs)
    assert answer.status == status
    assert as_sent(answer) == as_sent(expected)


@pytest.mark.parametrize(
    "if_none_match", ["{etag}", "W/{etag}", "*", '"a", {etag}', '"a",W/{etag}']
)
def test_a_matching_revalidation_skips_make_conditional(
    if_none_match: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sansio_http.messages import _static

    rules, fs = warmed()

    def refuse(*args: object, **kwargs: object) -> Response:
        raise AssertionError("make_conditional was called")

    monkeypatch.setattr(_static, "make_conditional", refuse)
    request = get("app.js", {"if-none-match": if_none_match.format(etag=etag_of())})
    answer = rules.respond(request, "app.js", fs)
    assert answer.status == 304
    assert answer.body == b""
    assert dict(answer.headers) == {
        "etag": etag_of(),
        "last-modified": LAST_MODIFIED,
        "vary": "Accept-Encoding",
        "cache-control": "no-cache",
    }


def test_a_coding_revalidation_from_the_kept_fields() -> None:
    rules, fs = StaticDirectory(ROOT), fs_with_siblings()
    accept = {"accept-encoding": "br"}
    etag = rules.respond(get("app.js", accept), "app.js", fs).headers["etag"]
    plain = rules.respond(get("app.js"), "app.js", fs).headers["etag"]
    assert (
        rules.respond(get("app.js", {**accept, "if-none-match": etag}), "app.js", fs).status == 304
    )
    # Another coding's tag does not match this one.
    assert (
        rules.respond(get("app.js", {**accept, "if-none-match": plain}), "app.js", fs).status == 200
    )


def test_a_changed_file_is_not_answered_from_old_fields() -> None:
    rules, fs = warmed()
    etag = etag_of()
    fs.files[f"{ROOT}/app.js"] = (1001, MTIME + 1)
    answer = rules.respond(get("app.js", {"if-none-match": etag}), "app.js", fs)
    assert answer.status == 200
    assert answer.headers["etag"] != etag


def test_a_304_changed_by_its_caller_leaves_the_next_alone() -> None:
    rules, fs = warmed()
    request = get("app.js", {"if-none-match": etag_of()})
    rules.respond(request, "app.js", fs).headers["X-Mine"] = "1"
    assert "x-mine" not in rules.respond(request, "app.js", fs).headers


def test_a_revalidation_is_still_refused_outside_the_folder() -> None:
    rules, fs = warmed()
    etag = etag_of()
    with pytest.raises(NotFound):
        rules.respond(get("out.txt", {"if-none-match": "*"}), "out.txt", fs)
    fs.files.pop(f"{ROOT}/app.js")
    with pytest.raises(NotFound):
        rules.respond(get("app.js", {"if-none-match": etag}), "app.js", fs)
