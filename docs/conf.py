"""Sphinx configuration for the sansio-http documentation."""

from __future__ import annotations

import sansio_http

project = "sansio-http"
author = "The sansio-http developers"
copyright = "2026, The sansio-http developers"
release = sansio_http.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
nitpicky = False
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}
exclude_patterns = ["_build"]

# furo: a maintained theme that many Python libraries' documentation uses, with a
# light and a dark scheme, and code blocks that scroll inside their own box.
html_theme = "furo"
html_title = "sansio-http"
html_static_path = ["_static/css"]
html_css_files = ["custom.css"]
pygments_style = "friendly"
pygments_dark_style = "monokai"
