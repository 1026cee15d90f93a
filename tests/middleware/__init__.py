"""Tests of the core's middleware floor (src/sansio_http/middleware/)."""
