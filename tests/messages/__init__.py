"""Tests of the core's messages floor (src/sansio_http/messages/)."""
