"""Tests of the core's http floor (src/sansio_http/http/)."""
