"""The Flask layer's tests, and Flask's tutorial app "flaskr" with its own tests.

``examples/flaskr`` is importable as ``flaskr``, as Flask's tests import it
(``monkeypatch.setattr("flaskr.db.init_db", ...)`` names it so). The
unchanged copy of Flask's tutorial in ``flaskr_original`` is not collected:
it is what the copies are compared with, and what real Flask serves in the
integration test.
"""

from __future__ import annotations

import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

collect_ignore = ["flaskr_original"]
