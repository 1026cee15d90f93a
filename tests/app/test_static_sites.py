"""App.static for sites and packages under both adapters: index pages, redirects, 404 pages.

The App and the tree are :mod:`tests.app.test_static_files`'s (its ``/site``
route serves ``site/`` with ``html=True`` and ``not_found="404.html"``); a
package is a real folder on ``sys.path`` in a temporary directory, and a
zipped one is refused. :mod:`tests.integration.test_static_servers` serves
the same App under gunicorn and uvicorn.
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest

from sansio_http import App, Blueprint
from sansio_http.asgi import to_asgi
from sansio_http.testing import Client
from sansio_http.wsgi import OSFileSystem, to_wsgi
from tests.app.test_static_files import DOCS, HOME, MISSING, SECRET, build_tree, make_app

Interface = Literal["wsgi", "asgi"]
INTERFACES: list[Interface] = ["wsgi", "asgi"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("static-sites")
    build_tree(root)
    return root


@pytest.fixture(scope="module")
def app(tree: Path) -> App:
    return make_app(tree)


@pytest.fixture(params=INTERFACES)
def client(request: pytest.FixtureRequest, app: App) -> Iterator[Client]:
    with Client(app, interface=request.param) as client:
        yield client


# -- index pages and redirects -------------------------------------------------------


def test_a_folder_serves_its_index_page(client: Client) -> None:
    response = client.get("/site/docs/")
    assert response.status_code == 200
    assert response.content == DOCS
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert client.get("/site/").content == HOME


def test_a_folder_without_its_slash_redirects(client: Client) -> None:
    response = client.get("/site/docs?lang=en", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/site/docs/?lang=en"
    assert client.get("/site/docs", follow_redirects=True).content == DOCS


def test_the_prefix_without_its_slash_redirects(client: Client) -> None:
    response = client.get("/site?x=1", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/site/?x=1"


def test_an_index_page_answers_conditional_and_range_requests(client: Client) -> None:
    etag = client.get("/site/docs/").headers["etag"]
    assert client.get("/site/docs/", headers={"if-none-match": etag}).status_code == 304
    partial = client.get("/site/docs/", headers={"range": "bytes=0-9"})
    assert partial.status_code == 206
    assert partial.content == DOCS[:10]


def test_url_for_builds_the_folder_urls(app: App) -> None:
    assert app.url_for("site", path="") == "/site/"
    assert app.url_for("site", path="docs/") == "/site/docs/"
    assert app.url_for("site", path="docs/index.html") == "/site/docs/index.html"


# -- the 404 page ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/site/missing.html",
        "/site/empty/",  # a folder without an index page
        "/site/empty",
        "/site/out/",  # a folder outside with an index.html
        "/site/out",
        "/site/out/secret.txt",
        "/site/%2e%2e/secret.txt",
        "/site/%2e%2e/",
        "/site/..%2fsecret.txt",
        "/site/docs%2F",
        "/site/docs//",
    ],
)
def test_what_is_not_served_gets_the_404_page(client: Client, path: str) -> None:
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 404
    assert response.content == MISSING
    assert SECRET not in response.content
    assert response.headers["content-type"] == "text/html; charset=utf-8"


def test_the_404_page_ignores_ranges_and_validators(client: Client) -> None:
    headers = {"range": "bytes=0-3", "if-none-match": "*"}
    response = client.get("/site/missing.html", headers=headers)
    assert response.status_code == 404
    assert response.content == MISSING
    assert "etag" not in response.headers
    assert "content-range" not in response.headers


def test_head_of_a_missing_page(client: Client) -> None:
    response = client.head("/site/missing.html")
    assert response.status_code == 404
    assert response.content == b""
    assert response.headers["content-length"] == str(len(MISSING))


def test_other_routes_keep_the_plain_404(client: Client) -> None:
    assert client.get("/static/missing.js").content != MISSING
    assert client.post("/site/docs/").status_code == 405


# -- under a root path -----------------------------------------------------------------


@pytest.mark.parametrize("interface", INTERFACES)
def test_the_redirect_is_under_the_mount(tree: Path, interface: Interface) -> None:
    outer = App("outer")
    outer.mount("/app", make_app(tree))
    with Client(outer, interface=interface) as client:
        response = client.get("/app/site/docs", follow_redirects=False)
        assert response.headers["location"] == "/app/site/docs/"
        assert client.get("/app/site/docs", follow_redirects=True).content == DOCS


@pytest.mark.parametrize("interface", INTERFACES)
@pytest.mark.parametrize(
    ("target", "location"),
    [
        ("/site//evil.com", None),
        ("/site/%2F%2Fevil.com", None),
        ("/site/%5Cevil.com", None),
        ("/site/\\evil.com", None),
        ("/site/evil.com", "/site/evil.com/"),
    ],
)
def test_no_redirect_leads_off_site(
    tree: Path, interface: Interface, target: str, location: str | None
) -> None:
    # Each name is a folder with an index page: only the rules stop a redirect.
    for name in ("evil.com", "\\evil.com"):
        folder = tree / "site" / name
        folder.mkdir(exist_ok=True)
        (folder / "index.html").write_bytes(b"evil")
    with Client(make_app(tree), interface=interface) as client:
        response = client.get(target, follow_redirects=False)
    assert response.headers.get("location") == location
    assert response.status_code == (404 if location is None else 308)


# -- a package's files -----------------------------------------------------------------


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package on sys.path, with a static folder and its index page."""
    name = f"sansio_test_ext_{abs(hash(str(tmp_path)))}"
    static = tmp_path / "packages" / name / "static"
    (static / "admin").mkdir(parents=True)
    (static.parent / "__init__.py").write_text("")
    (static.parent / "secret.py").write_bytes(SECRET)
    (static / "admin.css").write_bytes(b"body{}")
    (static / "admin" / "index.html").write_bytes(HOME)
    monkeypatch.syspath_prepend(str(tmp_path / "packages"))
    yield name
    sys.modules.pop(name, None)


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_package_folder_is_served(package: str, interface: Interface) -> None:
    admin = Blueprint("admin", url_prefix="/admin")
    admin.static("/static", "static", package=package, html=True)
    app = App()
    app.register_blueprint(admin)
    with Client(app, interface=interface) as client:
        assert client.get("/admin/static/admin.css").content == b"body{}"
        assert client.get("/admin/static/admin/").content == HOME
        redirect = client.get("/admin/static/admin", follow_redirects=False)
        assert redirect.headers["location"] == "/admin/static/admin/"
        for path in ("/admin/static/%2e%2e/secret.py", "/admin/static/%2e%2e/__init__.py"):
            response = client.get(path)
            assert response.status_code == 404
            assert SECRET not in response.content
    assert app.url_for("admin.static", path="admin.css") == "/admin/static/admin.css"


def test_a_package_is_resolved_at_registration_when_the_file_system_is_known(
    package: str,
) -> None:
    app = App()
    app.static("/s", "static", package=package, file_system=OSFileSystem())
    with pytest.raises(ValueError, match="no package named 'sansio_no_such_package'"):
        app.static(
            "/t",
            "static",
            package="sansio_no_such_package",
            endpoint="t",
            file_system=OSFileSystem(),
        )


@pytest.mark.parametrize("serve", [to_wsgi, to_asgi])
def test_a_missing_package_is_refused_when_served(serve: object) -> None:
    app = App()
    app.static("/s", "static", package="sansio_no_such_package")
    with pytest.raises(ValueError, match="no package named"):
        serve(app)  # type: ignore[operator]


@pytest.mark.parametrize("serve", [to_wsgi, to_asgi])
def test_a_package_of_a_mounted_app_is_refused_when_served(serve: object) -> None:
    inner = App("inner")
    inner.static("/s", "static", package="sansio_no_such_package")
    outer = App("outer")
    outer.mount("/inner", inner)
    with pytest.raises(ValueError, match="no package named"):
        serve(outer)  # type: ignore[operator]


def test_a_zipped_package_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"sansio_zipped_{abs(hash(str(tmp_path)))}"
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(f"{name}/__init__.py", "")
        zipped.writestr(f"{name}/static/app.css", "body{}")
    monkeypatch.syspath_prepend(str(archive))
    try:
        app = App()
        with pytest.raises(ValueError, match=r"not in a folder on disk.*unzipped"):
            app.static("/s", "static", package=name, file_system=OSFileSystem())
    finally:
        sys.modules.pop(name, None)


def test_a_namespace_package_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"sansio_namespace_{abs(hash(str(tmp_path)))}"
    (tmp_path / name / "static").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ValueError, match=r"namespace package.*add an __init__\.py"):
            OSFileSystem().package_folder(name)
    finally:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("serve", [to_wsgi, to_asgi])
def test_a_package_is_resolved_at_registration_once_the_app_is_served(serve: object) -> None:
    app = App()
    serve(app)  # type: ignore[operator]
    with pytest.raises(ValueError, match="no package named"):
        app.static("/s", "static", package="sansio_no_such_package")


def test_a_module_is_not_a_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"sansio_module_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ValueError, match="a module, not a package"):
            OSFileSystem().package_folder(name)
    finally:
        sys.modules.pop(name, None)


def test_both_adapters_find_the_same_folder(package: str) -> None:
    from sansio_http.asgi import OSFileSystem as ASGIFileSystem

    folder = OSFileSystem().package_folder(package)
    assert folder == ASGIFileSystem().package_folder(package)
    assert os.path.isfile(os.path.join(folder, "static", "admin.css"))


def test_static_refuses_bad_site_options() -> None:
    app = App()
    with pytest.raises(ValueError, match="inside the package"):
        app.static("/s", "../static", package="myext")
    with pytest.raises(ValueError, match=r"404\.html"):
        app.static("/s", "public", not_found="../404.html")


def test_without_html_a_folder_is_404(tree: Path) -> None:
    app = App()
    app.static("/site", tree / "site")
    with Client(app, interface="wsgi") as client:
        assert client.get("/site/docs", follow_redirects=False).status_code == 404
        assert client.get("/site/docs/").status_code == 404
        assert client.get("/site/").status_code == 404
