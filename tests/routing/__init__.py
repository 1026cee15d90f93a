"""Tests of the core's routing floor (src/sansio_http/routing/)."""
