"""``python -m sansio_http.server module:attr``: the command line."""

from __future__ import annotations

import sys

from sansio_http.server._cli import main

if __name__ == "__main__":
    sys.exit(main())
