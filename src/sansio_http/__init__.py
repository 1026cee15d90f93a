"""sansio-http: a sans-IO HTTP request/response toolkit.

The package itself never performs I/O: it turns bytes and values into
``Request`` objects, parsed headers and decoded bodies, and turns
``Response`` objects back into values. The adapters in ``sansio_http.wsgi``,
``sansio_http.asgi`` and ``sansio_http.server`` move those values over a
real transport.
"""

from __future__ import annotations

# [imports: headers and multidicts]
# [imports: errors]
# [imports: request]
# [imports: response]
# [imports: files and conditional]
# [imports: forms]

__version__ = "0.3.0.dev0"

__all__ = [
    "__version__",
    # [names: headers and multidicts]
    # [names: errors]
    # [names: request]
    # [names: response]
    # [names: files and conditional]
    # [names: forms]
]
