"""Static files: which file of a folder answers a URL path, decided without I/O.

:func:`static_response` maps the rest of a URL path onto a folder and
answers with the file, through :func:`~sansio_http.file_response` and
:func:`~sansio_http.make_conditional`. The rules that refuse a path are
string work, done here; what only the file system knows (does the file
exist, is it a regular file, where does a symlink lead) is asked of a
:class:`FileSystem` that the adapter supplies, so the core itself never
stats or opens a file. The App's ``static()`` routes are built on
:class:`StaticDirectory`, the same rules kept per folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final, NamedTuple, TypeAlias

from sansio_http.http import parse_etags, unquote_etag
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.http._urls import path_location
from sansio_http.messages._conditional import NOT_MODIFIED_HEADERS
from sansio_http.messages._errors import MethodNotAllowed, NotFound
from sansio_http.messages._file_response import file_response
from sansio_http.messages._file_system import FileInfo, FileSystem
from sansio_http.messages._files import FileBody, guess_content_type, safe_join, text_path
from sansio_http.messages._request import Request
from sansio_http.messages._response import Response, make_conditional

__all__ = [
    "CacheControl",
    "FileInfo",
    "FileSystem",
    "StaticDirectory",
    "static_response",
]


#: ``Cache-Control`` of a static file: one value for all, or a function of
#: the file's path below the folder that returns the value (None: the default).
CacheControl: TypeAlias = "str | Callable[[str], str | None] | None"

# The precompressed siblings looked for, best first when the client rates
# them equally: Brotli is smaller than gzip for the same text (RFC 7932).
_CODINGS: Final = (("br", ".br"), ("gzip", ".gz"))

# The page that answers for a folder whose URL ends with "/", as in every
# web server (Apache's DirectoryIndex, nginx's index, Starlette's html=True).
_INDEX: Final = "index.html"

# PERF: the raw path is searched for an encoded "/" or "\" only when it holds a "%".
_ENCODED_SEPARATORS: Final = (b"%2f", b"%5c")

# The request fields that make_conditional reads: without any of them, the
# answer is the 200 as it is (PERF: the usual request skips the rules).
_CONDITIONAL_FIELDS: Final = (
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
    "range",
)

# PERF: the header fields of the last files served, by what they are made
# of; checking and formatting them costs more than the rest of the answer.
# A changed file has another size or mtime, so another key. When full, the
# cache starts again: a bound on memory whatever the number of files.
_MAX_CACHED_HEADERS: Final = 1024

#: What the header fields of an answer are made from: the path, its size,
#: mtime and coding, and the path asked for (which Cache-Control may follow).
_HeadersKey: TypeAlias = "tuple[str, int, float, str | None, str]"


class _Fields(NamedTuple):
    """The header fields kept for one file: its 200's, and what answers a revalidation."""

    #: The fields of the 200.
    ok: MutableHeaders
    #: The ETag field as sent (quoted), and its opaque tag, for If-None-Match.
    etag_field: str
    etag: str | None
    #: The fields of its 304: those of NOT_MODIFIED_HEADERS (RFC 9110 §15.4.5).
    not_modified: MutableHeaders


def _fields_of(ok: MutableHeaders) -> _Fields:
    etag_field = ok["etag"]
    not_modified = ok.copy()
    for name in set(not_modified) - NOT_MODIFIED_HEADERS:
        not_modified.remove(name)
    return _Fields(ok, etag_field, unquote_etag(etag_field)[0], not_modified)


class StaticDirectory:
    """The rules that answer requests for the files of one folder.

    Built once per folder (the App builds one per ``static()`` route);
    :meth:`respond` answers each request. See :func:`static_response` for
    what is served and what is refused.

    Args:
        directory: The folder, trusted; with ``package``, a relative path
            inside the package's folder, such as ``"static"``.
        cache_control: See :func:`static_response`.
        dotfiles: See :func:`static_response`.
        follow_symlinks: See :func:`static_response`.
        precompressed: See :func:`static_response`.
        html: See :func:`static_response`.
        not_found: See :func:`static_response`.
        package: See :func:`static_response`.

    Raises:
        TypeError: ``directory`` is not text, ``cache_control`` is neither
            a string, a callable nor None, or ``not_found`` or ``package``
            is neither text nor None.
        ValueError: ``directory`` is empty, or with ``package`` not a plain
            relative path; ``not_found`` is not a plain path below the
            folder; ``package`` is not a dotted name.
    """

    __slots__ = (
        "_folder",
        "_headers",
        "_resolved",
        "cache_control",
        "directory",
        "dotfiles",
        "follow_symlinks",
        "html",
        "not_found",
        "package",
        "precompressed",
    )

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        cache_control: CacheControl = None,
        dotfiles: bool = False,
        follow_symlinks: bool = False,
        precompressed: bool = True,
        html: bool = False,
        not_found: str | None = None,
        package: str | None = None,
    ) -> None:
        folder = text_path(directory)
        if not folder:
            raise ValueError("the static folder is empty: name a directory, such as 'static'")
        if cache_control is not None and not isinstance(cache_control, str):
            if not callable(cache_control):
                raise TypeError(
                    "cache_control is a header value or a function of the file's path, "
                    f"not {cache_control!r}"
                )
        if package is not None:
            _check_package(package, folder)
        if not_found is not None:
            _check_page(not_found, dotfiles)
        self.directory = folder
        self.cache_control = cache_control
        self.dotfiles = dotfiles
        self.follow_symlinks = follow_symlinks
        self.precompressed = precompressed
        self.html = html
        self.not_found = not_found
        self.package = package
        # The file system last asked and the folder's real path in it: the
        # folder is resolved once, not on every request.
        self._resolved: tuple[FileSystem, str] | None = None
        # With a package: the file system last asked and the folder in it.
        self._folder: tuple[FileSystem, str] | None = None
        self._headers: dict[_HeadersKey, _Fields] = {}

    def folder_in(self, fs: FileSystem) -> str:
        """Return the folder served: ``directory``, or its path in the package's folder.

        A package's folder is asked of ``fs`` (its ``package_folder``) once
        per file system; the App asks when it knows the file system, so
        that a package that cannot be served is refused before a request.

        Raises:
            TypeError: ``fs`` has no ``package_folder`` method.
            ValueError: ``fs`` cannot give the package's folder (the package
                is missing, not a package, or not in a folder on disk).
        """
        if self.package is None:
            return self.directory
        found = self._folder
        if found is not None and found[0] is fs:
            return found[1]
        package_folder = getattr(fs, "package_folder", None)
        if package_folder is None:
            raise TypeError(
                f"the file system {fs!r} cannot find the folder of the package "
                f"{self.package!r}: give it a package_folder(package) method, as the "
                "adapters' OSFileSystem has, or serve a directory instead of a package"
            )
        # Checked in __init__: a relative path of plain segments, joined below.
        joined = safe_join(text_path(package_folder(self.package)), self.directory)
        if joined is None:  # pragma: no cover - refused by _check_package
            raise ValueError(f"{self.directory!r} is not a path inside a package")
        # NOTE: one tuple, assigned at once, so threads never see half of it.
        self._folder = (fs, joined)
        return joined

    def respond(self, request: Request, path: str, fs: FileSystem) -> Response:
        """Answer ``request`` with the file at ``path`` below the folder.

        Args:
            request: The request; its method, path, root path, query string,
                headers and raw path are read.
            path: The rest of the URL path below the route's prefix, already
                percent-decoded, without a leading slash.
            fs: What stats the files and resolves their links.

        Returns:
            A 200 with a :class:`~sansio_http.FileBody`, or the 304, 206, 412
            or 416 of :func:`~sansio_http.make_conditional`; with ``html``,
            a 308 from a folder to its URL with a slash; with ``not_found``,
            a 404 whose body is that page.

        Raises:
            NotFound: No file may be served for ``path``.
            MethodNotAllowed: The method is neither GET nor HEAD.
            TypeError: See :meth:`folder_in`.
            ValueError: See :meth:`folder_in`.
        """
        method = request.method
        if method != "GET" and method != "HEAD":
            raise MethodNotAllowed(allowed=("GET", "HEAD"))
        folder = self.directory if self.package is None else self.folder_in(fs)
        if self.html or self.not_found is not None:
            return self._respond_site(request, path, fs, folder)
        return self._respond_file(request, path, fs, folder)

    def _respond_site(self, request: Request, path: str, fs: FileSystem, folder: str) -> Response:
        """Answer as :meth:`_respond_file`, with index pages, folder redirects and the 404 page."""
        try:
            if not self.html:
                return self._respond_file(request, path, fs, folder)
            if not path or path[-1] == "/":
                # A folder's URL ends with a slash: its index page answers,
                # through every rule a file goes through ("a//" included).
                return self._respond_file(request, path + _INDEX, fs, folder)
            try:
                return self._respond_file(request, path, fs, folder)
            except NotFound:
                redirect = self._folder_redirect(request, path, fs, folder)
                if redirect is None:
                    raise
                return redirect
        except NotFound:
            page = None if self.not_found is None else self._not_found_page(fs, folder)
            if page is None:
                raise
            return page

    def _folder_redirect(
        self, request: Request, path: str, fs: FileSystem, folder: str
    ) -> Response | None:
        """Return the 308 from a folder that has an index page to its URL with a slash.

        None when ``path`` is not such a folder: what would be served there
        must pass the rules, so a redirect never leads to a refused path.
        """
        target = request.path
        if target[-1:] == "/":
            return None
        try:
            full, depth = self._candidate(request, f"{path}/{_INDEX}", folder)
        except NotFound:
            return None
        info = fs.file_info(full)
        if info is None or not info.is_file or not self._inside(full, depth, fs, folder):
            return None
        # SECURITY: the Location is the request's own path, root path in
        # front, percent-encoded to RFC 3986 pchar and never starting with
        # "//" (path_location, as RequestRedirect builds it): same origin,
        # whatever the client wrote. 308 as the router's and the mounts'
        # trailing-slash redirects; only GET and HEAD get here, so 301 would
        # do the same. no-cache: a browser keeps a permanent redirect for
        # good unless told to ask again, and the folder may become a file.
        location = path_location(target + "/", request.root_path, request.query_string)
        return Response(b"", 308, {"Location": location, "Cache-Control": "no-cache"})

    def _not_found_page(self, fs: FileSystem, folder: str) -> Response | None:
        """Return the 404 whose body is the ``not_found`` page, or None if it is not there."""
        page = self.not_found
        if page is None:  # pragma: no cover - the caller checks
            return None
        full = safe_join(folder, page)
        if full is None:  # pragma: no cover - refused by _check_page
            return None
        info = fs.file_info(full)
        if (
            info is None
            or not info.is_file
            or not self._inside(full, page.count("/") + 1, fs, folder)
        ):
            return None
        # NOTE: an error page, not a representation of the URL asked for:
        # no validators and no ranges (RFC 9110 §14.2 and §13.1 apply to
        # 200s), and no-cache so that the file, once added, is found.
        fields = {
            "Content-Type": guess_content_type(page),
            "Content-Length": str(info.size),
            "Cache-Control": "no-cache",
        }
        return Response(FileBody(full, length=info.size), 404, fields)

    def _respond_file(self, request: Request, path: str, fs: FileSystem, folder: str) -> Response:
        """Answer with the file at ``path`` below ``folder``, or raise NotFound."""
        full, depth = self._candidate(request, path, folder)
        info = fs.file_info(full)
        if info is None or not info.is_file or not self._inside(full, depth, fs, folder):
            raise NotFound()
        chosen, chosen_info, coding = full, info, None
        if self.precompressed:
            for coding_name, suffix in _acceptable_codings(request):
                sibling = full + suffix
                found = fs.file_info(sibling)
                # NOTE: a sibling older than the file was not rebuilt after
                # the file changed; serving it would send stale content.
                if (
                    found is not None
                    and found.is_file
                    and found.mtime >= info.mtime
                    and self._inside(sibling, depth, fs, folder)
                ):
                    chosen, chosen_info, coding = sibling, found, coding_name
                    break
        key = (chosen, chosen_info.size, chosen_info.mtime, coding, path)
        cached = self._headers.get(key)
        request_fields = request.headers
        if cached is None:
            response = self._first_response(path, chosen, chosen_info, coding)
            if len(self._headers) >= _MAX_CACHED_HEADERS:
                self._headers.clear()
            self._headers[key] = _fields_of(MutableHeaders(response.headers))
        else:
            if (
                "if-none-match" in request_fields
                and "if-match" not in request_fields
                and "if-unmodified-since" not in request_fields
                and _none_match(request_fields, cached)
            ):
                # PERF: a revalidation of an unchanged file is the most frequent
                # conditional request; it is answered from the kept fields,
                # without the 200 and make_conditional. The same rules: with
                # neither If-Match nor If-Unmodified-Since (RFC 9110 §13.2.2
                # steps 1-2), a matching If-None-Match gives a 304 to GET and
                # HEAD (step 3) whatever If-Modified-Since or Range say.
                return Response(b"", 304, cached.not_modified)
            # The constructor copies checked headers as they are.
            response = Response(FileBody(chosen, length=chosen_info.size), 200, cached.ok)
        for name in _CONDITIONAL_FIELDS:
            if name in request_fields:
                return make_conditional(response, request)
        return response

    def _first_response(
        self, path: str, chosen: str, chosen_info: FileInfo, coding: str | None
    ) -> Response:
        """Build the 200 for ``chosen``, whose fields the next answers reuse."""
        fields: dict[str, str] = {}
        if coding is not None:
            fields["Content-Encoding"] = coding
        if self.precompressed:
            # RFC 9110 §12.5.5: the answer depends on Accept-Encoding, the
            # un-encoded one too, or a cache would hand it to every client.
            fields["Vary"] = "Accept-Encoding"
        cache_control = self.cache_control
        if cache_control is not None:
            value = cache_control if isinstance(cache_control, str) else cache_control(path)
            if value is not None:
                fields["Cache-Control"] = value
        response = file_response(
            chosen,
            size=chosen_info.size,
            mtime=chosen_info.mtime,
            # The type of what the bytes decode to: the original's (RFC 9110 §8.4).
            content_type=guess_content_type(path),
            # NOTE: each coding is its own representation, so its own strong
            # ETag (RFC 9110 §8.8.3.3); its size and mtime alone could match
            # another coding's.
            etag=True if coding is None else f"{_tag(chosen_info)}-{coding}",
            headers=fields,
        )
        return response

    def _candidate(self, request: Request, path: str, folder: str) -> tuple[str, int]:
        """Return the file ``path`` names below ``folder`` and its depth, or raise NotFound."""
        segments = path.split("/")
        for segment in segments:
            # SECURITY: "", "." and ".." segments are refused, not normalised:
            # one URL per file, and nothing that climbs ("a/../b" included).
            # A leading "." is a dotfile (".env", ".git"), hidden by default.
            if not segment or (
                segment[0] == "." and (not self.dotfiles or segment == "." or segment == "..")
            ):
                raise NotFound()
        raw = getattr(request, "raw_path", None)
        if type(raw) is bytes and b"%" in raw:
            lowered = raw.lower()
            # SECURITY: "a%2Fb" decodes to "a/b", a slash the client wrote
            # inside one segment; RFC 3986 §2.2 says it is data, not a
            # separator, so it must not cross into a folder. A server that
            # passes no raw path (plain WSGI) cannot tell; safe_join keeps
            # such a path inside the folder all the same.
            if any(encoded in lowered for encoded in _ENCODED_SEPARATORS):
                raise NotFound()
        # SECURITY: backslashes, NUL, colons (drive letters, NTFS streams),
        # absolute paths and Windows device names.
        full = safe_join(folder, path)
        if full is None:
            raise NotFound()
        return full, len(segments)

    def _inside(self, full: str, depth: int, fs: FileSystem, folder: str) -> bool:
        """Return whether ``full``, ``depth`` segments below ``folder``, resolves inside it."""
        if self.follow_symlinks:
            return True
        # SECURITY: a symlink inside the folder may lead anywhere; only the
        # file system can tell where. With no symlink among the segments
        # below the folder (none is "." or ".."), the real path is the
        # folder's own followed by them: inside. PERF: one lstat per segment
        # instead of os.path.realpath's one per component from "/".
        symlink_below = getattr(fs, "symlink_below", None)
        if symlink_below is not None:
            # PERF: linear in the depth (see FileSystem): the adapter walks
            # the names from an open folder, one lstat each.
            root, *names = full.rsplit(os.sep, depth)
            if symlink_below(root, names):
                return self._resolves_inside(full, fs, folder)
            return True
        below = full
        for _ in range(depth):
            if fs.is_symlink(below):
                return self._resolves_inside(full, fs, folder)
            below = os.path.dirname(below)
        return True

    def _resolves_inside(self, full: str, fs: FileSystem, folder: str) -> bool:
        """Return whether the real path of ``full`` is inside ``folder``'s."""
        resolved = self._resolved
        if resolved is None or resolved[0] is not fs:
            # NOTE: one tuple, assigned at once, so threads never see half of it.
            resolved = self._resolved = (fs, fs.realpath(folder))
        root = resolved[1]
        prefix = root if root.endswith(os.sep) else root + os.sep
        return fs.realpath(full).startswith(prefix)


def _check_package(package: object, folder: str) -> None:
    """Refuse a package name that is not a dotted name, or a folder that leaves it."""
    if not isinstance(package, str):
        raise TypeError(f"package is the name of an importable package, not {package!r}")
    if not package or not all(part.isidentifier() for part in package.split(".")):
        raise ValueError(
            f"package is a dotted name, such as 'myext' or 'myext.admin', not {package!r}"
        )
    # SECURITY: the folder is joined below the package's own: a relative
    # path of plain names, never one that climbs out, names another drive,
    # or is the package's folder itself ("." would serve its source code).
    relative = folder.replace(os.sep, "/").rstrip("/")
    if (
        os.path.isabs(folder)
        or safe_join(".", relative) is None
        or not all(name and name != "." for name in relative.split("/"))
    ):
        raise ValueError(
            f"with package=, the folder is a path inside the package, such as 'static', "
            f"not {folder!r}"
        )


def _check_page(page: object, dotfiles: bool) -> None:
    """Refuse a ``not_found`` page that the route itself would not serve."""
    if not isinstance(page, str):
        raise TypeError(f"not_found is the path of a page below the folder, not {page!r}")
    segments = page.split("/")
    if (
        safe_join(".", page) is None
        or not all(segments)
        or any(
            segment[0] == "." and (not dotfiles or segment in (".", "..")) for segment in segments
        )
    ):
        raise ValueError(
            "not_found is the path of a page below the folder that the route would serve, "
            f"such as '404.html', not {page!r}"
        )


def _none_match(request_fields: Headers, cached: _Fields) -> bool:
    """Return whether If-None-Match names the file's ETag (weak comparison) or is ``*``.

    False also when the field is empty: make_conditional then decides.
    """
    # PERF: a client sends back the ETag it was given, as it was given.
    if request_fields.get("if-none-match") == cached.etag_field:
        return True
    # If-None-Match is a list that may span several fields (RFC 9110 §5.3, §13.1.2).
    value = request_fields.get_joined("if-none-match")
    if value is None or not value.strip():
        return False
    tags = parse_etags(value)
    etag = cached.etag
    return tags.is_star or (etag is not None and tags.contains_weak(etag))


def _tag(info: FileInfo) -> str:
    # The ETag file_response makes from size and mtime, for a coding's suffix.
    return f"{round(info.mtime * 1_000_000):x}-{info.size:x}"


def _acceptable_codings(request: Request) -> list[tuple[str, str]]:
    """Return the codings to look for, best first, that beat no coding at all."""
    if "accept-encoding" not in request.headers:
        # RFC 9110 §12.5.3: no Accept-Encoding allows any coding, but clients
        # that decode none send none; the file as it is suits everyone.
        return []
    accept = request.accept_encodings
    identity = accept.quality("identity")
    rated = [
        (quality, -rank, coding)
        for rank, coding in enumerate(_CODINGS)
        if (quality := accept.quality(coding[0])) > 0 and quality >= identity
    ]
    rated.sort(reverse=True)
    return [coding for _, _, coding in rated]


def static_response(
    request: Request,
    directory: str | os.PathLike[str],
    path: str,
    *,
    fs: FileSystem,
    cache_control: CacheControl = None,
    dotfiles: bool = False,
    follow_symlinks: bool = False,
    precompressed: bool = True,
    html: bool = False,
    not_found: str | None = None,
    package: str | None = None,
) -> Response:
    r"""Answer a request for a file of ``directory``, named by a URL path.

    ``path`` is the rest of the URL path below the route's prefix. What is
    refused raises :class:`~sansio_http.NotFound` (never a 500, and never
    a file outside the folder):

    - an empty, ``.`` or ``..`` segment (so also a trailing slash), and a
      segment that starts with a dot unless ``dotfiles`` is true;
    - an encoded ``/`` or ``\`` (``%2F``, ``%5C``) in the request's raw
      path, when the request knows it (the adapters' requests do);
    - whatever :func:`~sansio_http.safe_join` refuses: backslashes, NUL,
      drive letters and other colons, Windows device names;
    - a path that is not a regular file (a directory, say), and, unless
      ``follow_symlinks`` is true, one whose real path leaves the folder.

    The file is answered with :func:`~sansio_http.file_response` (type
    guessed from its name, with ``charset=utf-8`` for text, an ETag and
    Last-Modified) passed through :func:`~sansio_http.make_conditional`, so
    a request may get a 304, 206, 412 or 416. With ``precompressed``, a
    sibling ``name.br`` or ``name.gz`` at least as new as the file is sent
    instead when Accept-Encoding rates that coding above zero and no lower
    than the file as it is (``br`` first on a tie), with Content-Encoding,
    the file's own Content-Type and an ETag of its own; every answer then
    carries ``Vary: Accept-Encoding``.

    A static site (``html=True``) serves a folder's ``index.html`` for
    the folder's URL with a trailing slash (``path`` empty or ending with
    ``/``), by the same rules as any file, conditional and range requests
    included; and a folder that has an ``index.html`` asked for without
    the slash gets a 308 to the request's own URL with a slash (root path in
    front, query string kept; the Location always of this origin). With
    ``not_found``, whatever would raise :class:`~sansio_http.NotFound`
    is answered with a 404 whose body is that page of the folder, when it
    passes the same rules (else NotFound is raised as without it).

    Args:
        request: The request; its method, path, root path, query string,
            headers and raw path are read.
        directory: The folder to serve, trusted; with ``package``, a
            relative path inside the package's folder, such as ``"static"``.
        path: The URL path below the prefix, percent-decoded, such as
            ``"css/site.css"``.
        fs: What stats files and resolves links: the adapter's
            ``OSFileSystem``, or your own.
        cache_control: The Cache-Control value, or a function of ``path``
            returning one (or None for the default), such as
            ``"public, max-age=31536000, immutable"`` for fingerprinted
            names. By default ``no-cache``: clients revalidate, which the
            ETag makes a cheap 304. A function is called when a file is
            first served; its answer is kept while the file is unchanged.
        dotfiles: Whether to serve names that start with a dot.
        follow_symlinks: Whether a symlink may lead outside the folder.
        precompressed: Whether to look for ``.br`` and ``.gz`` siblings.
        html: Whether a folder's URL serves its ``index.html``.
        not_found: The path below the folder of the page a 404 carries,
            such as ``"404.html"``; sent with ``Cache-Control: no-cache``
            and without validators, so never a 304 or 206.
        package: The dotted name of an importable package whose files are
            served: ``directory`` is then a folder inside it. Its folder is
            asked of ``fs`` (``package_folder``); a package that is not a
            folder on disk (a zip) raises ValueError.

    Returns:
        The response: 200, or 304, 206, 412 or 416; with ``html`` a 308;
        with ``not_found`` a 404.

    Raises:
        NotFound: No file may be served for ``path``.
        MethodNotAllowed: The method is neither GET nor HEAD.
        TypeError: An option is of the wrong type, or ``fs`` has no
            ``package_folder`` for ``package``.
        ValueError: An option is refused (see :class:`StaticDirectory`), or
            ``fs`` cannot find the package's folder.
    """
    rules = StaticDirectory(
        directory,
        cache_control=cache_control,
        dotfiles=dotfiles,
        follow_symlinks=follow_symlinks,
        precompressed=precompressed,
        html=html,
        not_found=not_found,
        package=package,
    )
    return rules.respond(request, path, fs)
