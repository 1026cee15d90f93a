"""Tests for static sites and packages in static_response: index pages, folder redirects, 404 pages.

The fake file system of :mod:`tests.messages.test_static` stands in for
the disk (``index.html``, ``docs/index.html``, a ``css`` folder without an
index page, ``404.html``); no test here touches a real file. The
traversal property tests over all of it are in that module.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from sansio_http import MethodNotAllowed, NotFound, Request, Response, static_response
from sansio_http.messages._static import StaticDirectory
from tests.messages.test_static import (
    MTIME,
    ROOT,
    SECRET,
    FakeFileSystem,
    RawRequest,
    make_fs,
    served_path,
)


def site(
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    method: str = "GET",
    query: bytes = b"",
    root_path: str = "",
    fs: FakeFileSystem | None = None,
    **options: object,
) -> Response:
    """Answer ``/static/<path>`` from the site folder, in html mode unless told."""
    options.setdefault("html", True)
    request = RawRequest(
        method, "/static/" + path, query, dict(headers or {}), "http", None, root_path
    )
    return static_response(request, ROOT, path, fs=fs or make_fs(), **options)  # type: ignore[arg-type]


# -- index pages --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "served"),
    [("", f"{ROOT}/index.html"), ("docs/", f"{ROOT}/docs/index.html")],
)
def test_a_folder_url_serves_its_index_page(path: str, served: str) -> None:
    response = site(path)
    assert response.status == 200
    assert served_path(response) == served
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["etag"]


def test_an_index_page_answers_conditional_and_range_requests() -> None:
    etag = site("docs/").headers["etag"]
    assert site("docs/", {"if-none-match": etag}).status == 304
    partial = site("docs/", {"range": "bytes=0-9"})
    assert partial.status == 206
    assert partial.headers["content-range"] == "bytes 0-9/60"


def test_without_html_a_folder_url_is_404() -> None:
    for path in ("", "docs/", "docs"):
        with pytest.raises(NotFound):
            site(path, html=False)


@pytest.mark.parametrize(
    "path",
    [
        "css/",  # a folder without an index page
        "missing/",
        "docs//",
        "./",
        "../",
        "out-dir/",  # a folder outside, through a symlink
        ".hidden/",
        "docs/guide.html/",
    ],
)
def test_a_folder_url_without_an_index_page_inside_is_404(path: str) -> None:
    with pytest.raises(NotFound):
        site(path)


def test_an_index_page_that_links_out_is_404() -> None:
    fs = make_fs()
    fs.links[f"{ROOT}/docs/index.html"] = SECRET
    with pytest.raises(NotFound):
        site("docs/", fs=fs)


# -- the redirect of a folder to its URL with a slash ---------------------------------------


def test_a_folder_without_its_slash_is_redirected() -> None:
    response = site("docs")
    assert response.status == 308
    assert response.headers["location"] == "/static/docs/"
    assert response.headers["cache-control"] == "no-cache"
    assert response.body == b""


def test_the_redirect_keeps_the_query_and_the_root_path() -> None:
    response = site("docs", query=b"page=2&q=a%20b", root_path="/app")
    assert response.headers["location"] == "/app/static/docs/?page=2&q=a%20b"


def test_head_is_redirected_too() -> None:
    assert site("docs", method="HEAD").status == 308


@pytest.mark.parametrize(
    "path",
    [
        "css",  # a folder without an index page: nothing to lead to
        "missing",
        "out-dir",  # a folder outside
        "docs/guide.html",  # a file is served, not redirected
    ],
)
def test_only_a_folder_with_an_index_page_is_redirected(path: str) -> None:
    try:
        response = site(path)
    except NotFound:
        return
    assert response.status == 200


def test_a_folder_is_not_redirected_without_html() -> None:
    with pytest.raises(NotFound):
        site("docs", html=False)


def test_the_location_is_encoded_from_the_path() -> None:
    fs = make_fs()
    fs.folders.add(f"{ROOT}/a b?#")
    fs.files[f"{ROOT}/a b?#/index.html"] = (1, MTIME)
    response = site("a b?#", fs=fs, root_path="//evil.com")
    assert response.headers["location"] == "/%2Fevil.com/static/a%20b%3F%23/"


def test_a_url_with_its_slash_is_never_redirected_to_another_slash() -> None:
    # A framework that maps URLs itself may pass "docs" for "/static/docs/".
    request = RawRequest("GET", "/static/docs/", b"", {}, "http", None, "")
    with pytest.raises(NotFound):
        static_response(request, ROOT, "docs", fs=make_fs(), html=True)


def test_other_methods_are_still_405() -> None:
    with pytest.raises(MethodNotAllowed):
        site("docs", method="POST")


# -- the custom 404 page --------------------------------------------------------------


@pytest.mark.parametrize("html", [True, False])
@pytest.mark.parametrize("path", ["missing.html", "../secret.txt", ".env", "out.txt", "css"])
def test_what_is_not_found_gets_the_404_page(path: str, html: bool) -> None:
    response = site(path, html=html, not_found="404.html")
    assert response.status == 404
    assert served_path(response) == f"{ROOT}/404.html"
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-length"] == "40"
    assert response.headers["cache-control"] == "no-cache"


def test_the_404_page_has_no_validators_ranges_or_304() -> None:
    headers = {"range": "bytes=0-9", "if-none-match": "*", "if-modified-since": "x"}
    response = site("missing.html", headers, not_found="404.html")
    assert response.status == 404
    assert served_path(response) == f"{ROOT}/404.html"
    for field in ("etag", "last-modified", "accept-ranges", "content-range"):
        assert field not in response.headers
    assert response.headers["content-length"] == "40"


def test_head_gets_the_404_page_fields() -> None:
    response = site("missing.html", method="HEAD", not_found="404.html")
    assert response.status == 404
    assert response.headers["content-length"] == "40"


def test_a_file_is_still_served_with_a_404_page() -> None:
    assert site("docs/guide.html", not_found="404.html").status == 200


def test_a_missing_404_page_leaves_the_plain_404() -> None:
    fs = make_fs()
    fs.files.pop(f"{ROOT}/404.html")
    with pytest.raises(NotFound):
        site("missing.html", fs=fs, not_found="404.html")


def test_a_404_page_that_links_out_is_not_served() -> None:
    fs = make_fs()
    fs.links[f"{ROOT}/404.html"] = SECRET
    with pytest.raises(NotFound):
        site("missing.html", fs=fs, not_found="404.html")


def test_a_404_page_in_a_folder() -> None:
    fs = make_fs()
    fs.files[f"{ROOT}/errors/404.html"] = (9, MTIME)
    response = site("missing.html", fs=fs, not_found="errors/404.html")
    assert served_path(response) == f"{ROOT}/errors/404.html"


@pytest.mark.parametrize(
    "page",
    [
        "",
        "../404.html",
        "/etc/passwd",
        "a//b.html",
        "./404.html",
        ".404.html",
        "a\\b",
        "c:x",
        "nul",
    ],
)
def test_a_404_page_the_route_would_not_serve_is_refused(page: str) -> None:
    with pytest.raises(ValueError, match=r"404\.html"):
        StaticDirectory(ROOT, not_found=page)


def test_a_dotted_404_page_with_dotfiles() -> None:
    assert StaticDirectory(ROOT, not_found=".errors/404.html", dotfiles=True).not_found


def test_a_404_page_that_is_not_text_is_refused() -> None:
    with pytest.raises(TypeError, match="not_found"):
        StaticDirectory(ROOT, not_found=404)  # type: ignore[arg-type]


# -- a package's files --------------------------------------------------------------------


class PackageFileSystem(FakeFileSystem):
    """The fake file system, with the package ``myext`` in ``/srv/site``."""

    def __init__(self) -> None:
        fs = make_fs()
        super().__init__(fs.files, fs.folders, fs.links)
        self.packages: list[str] = []

    def package_folder(self, package: str) -> str:
        self.packages.append(package)
        if package != "myext":
            raise ValueError(f"no package named {package!r}")
        return "/srv/site"


def test_a_package_folder_is_asked_of_the_file_system_once() -> None:
    fs = PackageFileSystem()
    rules = StaticDirectory("static", package="myext", html=True)
    request = Request("GET", "/x/app.js", b"", {}, "http", None, "")
    assert served_path(rules.respond(request, "app.js", fs)) == f"{ROOT}/app.js"
    assert served_path(rules.respond(request, "docs/", fs)) == f"{ROOT}/docs/index.html"
    with pytest.raises(NotFound):
        rules.respond(request, "../secret.txt", fs)
    assert fs.packages == ["myext"]
    assert rules.folder_in(fs) == ROOT


def test_static_response_takes_a_package() -> None:
    request = Request("GET", "/x/app.js", b"", {}, "http", None, "")
    response = static_response(request, "static", "app.js", fs=PackageFileSystem(), package="myext")
    assert served_path(response) == f"{ROOT}/app.js"


def test_a_package_the_file_system_cannot_find_raises() -> None:
    rules = StaticDirectory("static", package="other")
    with pytest.raises(ValueError, match="other"):
        rules.folder_in(PackageFileSystem())


def test_a_file_system_without_package_folder_names_the_fix() -> None:
    rules = StaticDirectory("static", package="myext")
    with pytest.raises(TypeError, match="package_folder"):
        rules.folder_in(make_fs())


def test_without_a_package_the_folder_is_the_directory() -> None:
    assert StaticDirectory(ROOT).folder_in(make_fs()) == ROOT


@pytest.mark.parametrize(
    "folder", ["/abs/static", "../static", "a/../../b", "c:/x", "a\\b", ".", "./", "a//b", "./a"]
)
def test_a_package_folder_must_stay_inside_the_package(folder: str) -> None:
    with pytest.raises(ValueError, match="inside the package"):
        StaticDirectory(folder, package="myext")


@pytest.mark.parametrize("folder", ["static", "static/", "assets/static"])
def test_a_package_folder_may_be_nested(folder: str) -> None:
    fs = PackageFileSystem()
    assert StaticDirectory(folder, package="myext").folder_in(fs).startswith("/srv/site/")


@pytest.mark.parametrize("package", ["", "my-ext", "myext.", ".myext", "1st", "a/b"])
def test_a_package_name_is_dotted(package: str) -> None:
    with pytest.raises(ValueError, match="dotted name"):
        StaticDirectory("static", package=package)


def test_a_package_name_is_text() -> None:
    with pytest.raises(TypeError, match="package"):
        StaticDirectory("static", package=b"myext")  # type: ignore[arg-type]
