"""The file system that static routes read through: ``os.stat``, ``os.lstat``, ``realpath``.

The core decides which file a static route serves without touching the disk
(see :func:`~sansio_http.static_response`); :class:`OSFileSystem` is the
access it asks for, and ``to_asgi`` installs one on the App.

NOTE: the calls block. The App's static view is a ``def`` view, which
``to_asgi`` runs in the App's request pool, so they never hold up the event
loop; an ``async def`` handler that calls :func:`~sansio_http.static_response`
itself should do so in a thread of its own pools on a slow (network) file
system.
"""

from __future__ import annotations

import importlib
import importlib.resources
import os
import pathlib
import stat
from collections.abc import Sequence
from typing import Final

from sansio_http.messages._static import FileInfo

__all__ = ["FILE_SYSTEM", "OSFileSystem"]


# Opening each folder of a path from the one above it needs dir_fd and
# O_NOFOLLOW (POSIX); elsewhere each ever longer path is lstat-ed.
_DIR_FD: Final = (
    os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
)
# O_PATH (Linux) opens a folder that may be searched but not listed.
_FOLDER_FLAGS: Final = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0)


class OSFileSystem:
    """Stat files and resolve links with :mod:`os`, for static files.

    Pass it to :func:`~sansio_http.static_response`, or let ``to_asgi``
    install it on the App as ``App.file_system``.
    """

    __slots__ = ()

    def file_info(self, path: str) -> FileInfo | None:
        """Return the size, mtime and kind of ``path``, or None if it cannot be stat'ed."""
        try:
            result = os.stat(path)
        except (OSError, ValueError):
            # SECURITY: absent, unreadable folder, name too long, symlink
            # loop, NUL (ValueError): each is a 404 for the client, never a 500.
            return None
        return FileInfo(result.st_size, result.st_mtime, stat.S_ISREG(result.st_mode))

    def is_symlink(self, path: str) -> bool:
        """Return whether ``path`` itself is a symlink; False if it cannot be read."""
        return os.path.islink(path)

    def realpath(self, path: str) -> str:
        """Return ``path`` with every symlink resolved."""
        return os.path.realpath(path)

    def symlink_below(self, folder: str, names: Sequence[str]) -> bool:
        """Return whether any of ``names``, each inside the one before, is a symlink.

        PERF: each folder is opened from the one above it (``dir_fd``),
        and the file is ``lstat``-ed in the last, so a file k folders deep
        costs O(k); ``os.lstat`` of each ever longer path costs O(k²),
        since the kernel walks the whole path every time.

        Args:
            folder: Where ``names`` start, trusted (it may be a symlink).
            names: The names below ``folder``, the file's last.

        Returns:
            True when one is a symlink, and also when that cannot be told
            (a name vanished, a folder cannot be opened): the caller then
            resolves the path to decide.
        """
        if not _DIR_FD:  # pragma: no cover - platforms without dir_fd (Windows)
            path = folder
            for name in names:
                path = os.path.join(path, name)
                if os.path.islink(path):
                    return True
            return False
        try:
            fd = os.open(folder, _FOLDER_FLAGS)
        except (OSError, ValueError):
            return True
        try:
            for name in names[:-1]:
                # SECURITY: O_NOFOLLOW with O_DIRECTORY fails on a symlink
                # (ELOOP, or ENOTDIR with O_PATH): the caller resolves the path.
                inner = os.open(name, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = inner
            file_mode = os.stat(names[-1], dir_fd=fd, follow_symlinks=False).st_mode
            return stat.S_ISLNK(file_mode)
        except (OSError, ValueError):
            return True
        finally:
            os.close(fd)

    def package_folder(self, package: str) -> str:
        """Return the folder of an importable package's files.

        The package is imported, and its folder found with
        :func:`importlib.resources.files`, for ``static(package=...)``.

        Raises:
            ValueError: No package of that name can be imported, it is a
                module and not a package, a namespace package (without an
                ``__init__.py``), or its files are not in a folder on disk
                (a zip): the message names the fix.
        """
        try:
            module = importlib.import_module(package)
        except ImportError as exc:
            raise ValueError(
                f"no package named {package!r} can be imported ({exc}): install it, or "
                "check the name given to static(package=...)"
            ) from exc
        if not hasattr(module, "__path__"):
            raise ValueError(
                f"{package!r} is a module, not a package: static(package=...) serves a folder "
                "inside a package (a folder with an __init__.py)"
            )
        if getattr(module, "__file__", None) is None:
            raise ValueError(
                f"{package!r} is a namespace package (a folder without __init__.py), whose "
                "files may lie in several folders: add an __init__.py to it, or serve its "
                "folder with static(prefix, folder)"
            )
        files = importlib.resources.files(module)
        if not isinstance(files, pathlib.Path):
            # SECURITY and PERF: a zip's members would have to be extracted
            # or read whole; each file of a folder is stat'ed and sent as is.
            raise ValueError(
                f"the files of the package {package!r} are not in a folder on disk "
                f"({type(files).__name__}): install it unzipped (pip installs wheels so), "
                "or copy its files to a folder and serve that with static(prefix, folder)"
            )
        return str(files)


#: The one instance the adapter installs: it holds no state.
FILE_SYSTEM: Final = OSFileSystem()
