"""The file system as static files see it: :class:`FileSystem` and its :class:`FileInfo`.

The core decides which file answers a URL without I/O (see
:mod:`~sansio_http.messages._static`); the facts only the file system
knows come from an object the adapter supplies (their ``OSFileSystem``)
or that the application passes in.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

__all__ = ["FileInfo", "FileSystem"]


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
    #
    # NOTE: likewise optional, ``package_folder(package) -> str``: the folder
    # of an importable package's files, for ``StaticDirectory(package=...)``;
    # it raises ValueError when they are not in a folder (a zipped package).
    # The adapters' OSFileSystem finds it with importlib.resources, so that
    # importing the package stays out of the core.
