"""The settings of an App."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Any

from sansio_http.bodies._formdata import FormLimits

__all__ = ["AppConfig"]


@dataclasses.dataclass
class AppConfig:
    """Settings of an :class:`App`.

    Attributes:
        debug: Answer unhandled exceptions with a traceback page instead of
            a bare 500. Never enable it where strangers can reach the app.
        max_content_length: The largest request body the adapters read, in
            bytes (413 past it); ``None`` for no limit.
        form_limits: The limits of form decoding (see
            :class:`~sansio_http.FormLimits` for each and its default).
        threads: The most threads that run the ``def`` views, hooks,
            error handlers and work after the response under ASGI. A
            request takes one at its first ``def`` step and keeps it for
            all of them, so that they see one thread.
        io_threads: The most threads that read files (file bodies, static
            files) and write uploads to their spool under ASGI.
        stream_threads: The most ``def`` producers (sync iterable bodies)
            pulled at once under ASGI: each waiting producer holds one.
        mount_threads: The most requests that mounted WSGI applications
            answer at once under ASGI: each holds one for its exchange.
        trusted_hosts: The host names the App answers, as
            :attr:`Request.trusted_hosts <sansio_http.Request.trusted_hosts>`
            takes them (``".example.com"`` for the domain and every
            subdomain); ``to_wsgi`` and ``to_asgi`` give them to every
            request unless their own ``trusted_hosts=`` says otherwise, so
            that reading the host (or a URL) of a request to another host
            raises :class:`~sansio_http.UntrustedHost`, a 400. Rules with a
            ``host=`` need them, and make every such request a 400. None
            trusts any host (see :doc:`/app`).
        extra: Anything else the application wants to keep here.

    Each bound is of a pool of its own, so that no kind of blocking work can
    take the threads another needs; past a bound, calls wait their turn in
    order of arrival. No thread starts before a pool's first call. Under
    WSGI the server's worker threads run everything, and these four are
    unused.

    Raises:
        ValueError: A thread bound is not a whole number of at least 1.
        TypeError: ``trusted_hosts`` is a string, not a list of names.
    """

    debug: bool = False
    # 16 MiB: enough for forms with photos; set it per app for big uploads.
    max_content_length: int | None = 16 * 1024 * 1024
    form_limits: FormLimits = dataclasses.field(default_factory=FormLimits)
    # Starlette's one pool of 40 holds views, file reads and streams alike;
    # here streams and mounted WSGI apps have pools of their own, so this one
    # serves short blocking views only: 32 of them at once, while each
    # costs a thread's stack and a share of the GIL.
    threads: int = 32
    # File reads and spool writes are short: a few at a time keep disks busy.
    io_threads: int = 16
    # A blocked producer only waits: a thread per concurrent stream, up to
    # a chat server's worth; write producers with async def for more.
    stream_threads: int = 128
    # As many concurrent requests to a mounted Flask or Django app as the
    # request pool serves of the App's own.
    mount_threads: int = 32
    trusted_hosts: Collection[str] | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("threads", "io_threads", "stream_threads", "mount_threads"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(
                    f"AppConfig.{name} is the most threads of a pool: a whole number "
                    f"of at least 1, not {value!r}"
                )
        if isinstance(self.trusted_hosts, str):
            # A string is a collection of one-letter names.
            raise TypeError(
                "AppConfig.trusted_hosts is a list of host names, not a string: "
                f"write trusted_hosts=[{self.trusted_hosts!r}]"
            )
