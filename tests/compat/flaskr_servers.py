"""Flask's tutorial app "flaskr" for the servers of :mod:`tests.compat.test_flaskr_servers`.

``FLASKR_FLAVOUR`` picks the app: ``layer`` (``examples/flaskr``, the port on
the Flask layer), ``async`` (the same with its views written ``async def``,
:mod:`tests.compat.async_flaskr`) or ``flask`` (Flask's own copy, on Flask).
``FLASKR_DATABASE`` names the database, created empty here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FLAVOUR = os.environ.get("FLASKR_FLAVOUR", "layer")
sys.path.insert(
    0, str(HERE / "flaskr_original" if FLAVOUR == "flask" else HERE.parents[1] / "examples")
)

if FLAVOUR == "async":
    from tests.compat.async_flaskr import create_app
else:
    from flaskr import create_app  # type: ignore[import-not-found,no-redef,unused-ignore]
from flaskr.db import init_db  # type: ignore[import-not-found,unused-ignore]  # noqa: E402

app: Any = create_app({"DATABASE": os.environ["FLASKR_DATABASE"]})
with app.app_context():
    init_db()

wsgi_application = app


async def asgi_application(scope: Any, receive: Any, send: Any) -> None:
    # The app itself, called as uvicorn --interface asgi3 calls it.
    await app(scope, receive, send)
