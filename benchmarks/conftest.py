"""Shared inputs for the benchmarks: realistic requests captured from browsers."""
