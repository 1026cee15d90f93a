"""The settings of an App."""

from __future__ import annotations

import dataclasses
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
        threads: Size of the thread pool that runs plain functions under
            ASGI (each App owns its pool).
        extra: Anything else the application wants to keep here.
    """

    debug: bool = False
    # 16 MiB: enough for forms with photos; set it per app for big uploads.
    max_content_length: int | None = 16 * 1024 * 1024
    form_limits: FormLimits = dataclasses.field(default_factory=FormLimits)
    # The default of concurrent.futures for 2-core machines, kept small
    # because blocking views should be rare under ASGI.
    threads: int = 16
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
