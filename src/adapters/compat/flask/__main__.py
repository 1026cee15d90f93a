"""``python -m sansio_http.compat.flask --app flaskr init-db``: Flask's command line."""

from __future__ import annotations

from sansio_http.compat.flask._cli import main

if __name__ == "__main__":
    main()
