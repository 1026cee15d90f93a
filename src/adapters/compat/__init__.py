"""Layers that serve another framework's API over the App.

- :mod:`sansio_http.compat.flask`: Flask's API (``Flask``, ``Blueprint``,
  ``request``, ``session``, ``g``, ``render_template``, ...), so that a Flask
  application runs on the App by changing its imports.

This floor sits above the adapters and the test client: nothing else in the
distribution imports it.
"""

from __future__ import annotations
