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

import os
import stat
from typing import Final

from sansio_http.messages._static import FileInfo

__all__ = ["FILE_SYSTEM", "OSFileSystem"]


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


#: The one instance the adapter installs: it holds no state.
FILE_SYSTEM: Final = OSFileSystem()
