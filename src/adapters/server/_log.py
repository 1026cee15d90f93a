"""Logging of the development server: one access line per request, in colour on a terminal."""

from __future__ import annotations

import logging
import sys

_COLOURS = {2: "\x1b[32m", 3: "\x1b[36m", 4: "\x1b[33m", 5: "\x1b[31m"}


class AccessFormatter(logging.Formatter):
    """Colour the status of access lines when the stream is a terminal."""

    def __init__(self, colour: bool) -> None:
        super().__init__("%(asctime)s %(message)s", datefmt="%H:%M:%S")
        self.colour = colour

    def format(self, record: logging.LogRecord) -> str:
        """Return the formatted line."""
        line = super().format(record)
        if self.colour and isinstance(record.args, tuple) and len(record.args) >= 5:
            status = record.args[4]
            if isinstance(status, int) and status // 100 in _COLOURS:
                return f"{_COLOURS[status // 100]}{line}\x1b[0m"
        return line


def setup_logging() -> None:
    """Send the server's logs to standard error."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(AccessFormatter(colour=sys.stderr.isatty()))
    logger = logging.getLogger("sansio_http.server")
    if not logger.handlers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
