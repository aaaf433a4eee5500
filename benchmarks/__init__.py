"""Benchmarks of every part of the backend, run by `fallenctl bench`; not served."""
