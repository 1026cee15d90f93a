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
from typing import Final, NamedTuple, Protocol, TypeAlias

from sansio_http.http import parse_etags, unquote_etag
from sansio_http.http._headers import Headers, MutableHeaders
from sansio_http.messages._conditional import NOT_MODIFIED_HEADERS
from sansio_http.messages._errors import MethodNotAllowed, NotFound
from sansio_http.messages._file_response import file_response
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


class FileInfo(NamedTuple):
    """What a :class:`FileSystem` reports of one path (``os.stat``'s facts).

    ``size`` is in bytes (``st_size``), ``mtime`` in seconds since the epoch
    (``st_mtime``), and ``is_file`` says whether it is a regular file: not
    a directory, a FIFO or a device, which a static route never serves.
    """

    size: int
    mtime: float
    is_file: bool


class FileSystem(Protocol):
    """The file-system access that static files need, supplied by an adapter.

    ``to_wsgi`` and ``to_asgi`` install an ``os``-based one on the App
    (``App.file_system``); pass your own to :func:`static_response`, or to
    ``App.static(file_system=...)``, to serve from elsewhere or in tests.
    """

    def file_info(self, path: str) -> FileInfo | None:
        """Return the facts of ``path``, following symlinks, or None if absent.

        Any ``OSError`` (no such file, permission denied, a name too long,
        a symlink loop) reads as "absent": the client gets a 404.
        """

    def is_symlink(self, path: str) -> bool:
        """Return whether ``path`` itself is a symlink (``os.path.islink``)."""

    def realpath(self, path: str) -> str:
        """Return ``path`` with every symlink resolved (``os.path.realpath``)."""

    # NOTE: a file system may also offer ``symlink_below(folder, names) ->
    # bool``: whether any of ``names``, each below the one before it from
    # ``folder`` down, is a symlink (True also when that cannot be told). The
    # core then asks it once instead of ``is_symlink`` once per folder on an
    # ever longer path, which costs O(k²) for a file k folders deep. It is
    # optional (see StaticDirectory._inside), so that file systems written
    # before it still type-check; the adapters' OSFileSystem has it.


#: ``Cache-Control`` of a static file: one value for all, or a function of
#: the file's path below the folder that returns the value (None: the default).
CacheControl: TypeAlias = "str | Callable[[str], str | None] | None"

# The precompressed siblings looked for, best first when the client rates
# them equally: Brotli is smaller than gzip for the same text (RFC 7932).
_CODINGS: Final = (("br", ".br"), ("gzip", ".gz"))

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
        directory: The folder, trusted.
        cache_control: See :func:`static_response`.
        dotfiles: See :func:`static_response`.
        follow_symlinks: See :func:`static_response`.
        precompressed: See :func:`static_response`.

    Raises:
        TypeError: ``directory`` is not text, or ``cache_control`` is neither
            a string, a callable nor None.
        ValueError: ``directory`` is empty.
    """

    __slots__ = (
        "_headers",
        "_resolved",
        "cache_control",
        "directory",
        "dotfiles",
        "follow_symlinks",
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
        self.directory = folder
        self.cache_control = cache_control
        self.dotfiles = dotfiles
        self.follow_symlinks = follow_symlinks
        self.precompressed = precompressed
        # The file system last asked and the folder's real path in it: the
        # folder is resolved once, not on every request.
        self._resolved: tuple[FileSystem, str] | None = None
        self._headers: dict[_HeadersKey, _Fields] = {}

    def respond(self, request: Request, path: str, fs: FileSystem) -> Response:
        """Answer ``request`` with the file at ``path`` below the folder.

        Args:
            request: The request; its method, headers and raw path are read.
            path: The rest of the URL path below the route's prefix, already
                percent-decoded, without a leading slash.
            fs: What stats the files and resolves their links.

        Returns:
            A 200 with a :class:`~sansio_http.FileBody`, or the 304, 206, 412
            or 416 of :func:`~sansio_http.make_conditional`.

        Raises:
            NotFound: No file may be served for ``path``.
            MethodNotAllowed: The method is neither GET nor HEAD.
        """
        method = request.method
        if method != "GET" and method != "HEAD":
            raise MethodNotAllowed(allowed=("GET", "HEAD"))
        full, depth = self._candidate(request, path)
        info = fs.file_info(full)
        if info is None or not info.is_file or not self._inside(full, depth, fs):
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
                    and self._inside(sibling, depth, fs)
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

    def _candidate(self, request: Request, path: str) -> tuple[str, int]:
        """Return the file ``path`` names below the folder and its depth, or raise NotFound."""
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
        full = safe_join(self.directory, path)
        if full is None:
            raise NotFound()
        return full, len(segments)

    def _inside(self, full: str, depth: int, fs: FileSystem) -> bool:
        """Return whether ``full``, ``depth`` segments below the folder, resolves inside it."""
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
                return self._resolves_inside(full, fs)
            return True
        below = full
        for _ in range(depth):
            if fs.is_symlink(below):
                return self._resolves_inside(full, fs)
            below = os.path.dirname(below)
        return True

    def _resolves_inside(self, full: str, fs: FileSystem) -> bool:
        """Return whether the real path of ``full`` is inside the folder's."""
        resolved = self._resolved
        if resolved is None or resolved[0] is not fs:
            # NOTE: one tuple, assigned at once, so threads never see half of it.
            resolved = self._resolved = (fs, fs.realpath(self.directory))
        root = resolved[1]
        prefix = root if root.endswith(os.sep) else root + os.sep
        return fs.realpath(full).startswith(prefix)


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

    Args:
        request: The request; only its method, headers and raw path are read.
        directory: The folder to serve, trusted.
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

    Returns:
        The response: 200, or 304, 206, 412 or 416.

    Raises:
        NotFound: No file may be served for ``path``.
        MethodNotAllowed: The method is neither GET nor HEAD.
    """
    rules = StaticDirectory(
        directory,
        cache_control=cache_control,
        dotfiles=dotfiles,
        follow_symlinks=follow_symlinks,
        precompressed=precompressed,
    )
    return rules.respond(request, path, fs)
