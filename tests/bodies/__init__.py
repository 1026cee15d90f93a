"""Tests of the core's bodies floor (src/sansio_http/bodies/)."""
