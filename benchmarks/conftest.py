"""Shared inputs for the benchmarks: realistic requests captured from browsers.

Importing this module has no side effects; benchmarks import the constants directly, for
example ``from benchmarks.conftest import BROWSER_GET_RAW``.
"""

from __future__ import annotations

from typing import Final

#: A top-level navigation by Firefox 128 on Linux, as an ASGI server hands it over: twelve
#: fields with lower-case names, in the order the browser sent them, with a session cookie
#: and a few analytics and preference cookies.
BROWSER_GET_RAW: Final[list[tuple[bytes, bytes]]] = [
    (b"host", b"shop.example.com"),
    (
        b"user-agent",
        b"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    ),
    (
        b"accept",
        b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
        b"image/png,image/svg+xml,*/*;q=0.8",
    ),
    (b"accept-language", b"en-GB,en;q=0.5"),
    (b"accept-encoding", b"gzip, deflate, br, zstd"),
    (b"referer", b"https://shop.example.com/catalogue/books/?page=2&sort=price"),
    (b"connection", b"keep-alive"),
    (
        b"cookie",
        b"sessionid=7f3c9a1e5b2d4c6e8f0a1b2c3d4e5f60; csrftoken=Qm9vS2VlcGVyVG9rZW4xMjM0; "
        b"theme=dark; cart=3; _ga=GA1.2.1234567890.1717171717; consent=analytics%3Dno",
    ),
    (b"upgrade-insecure-requests", b"1"),
    (b"sec-fetch-dest", b"document"),
    (b"sec-fetch-mode", b"navigate"),
    (b"sec-fetch-site", b"same-origin"),
]
