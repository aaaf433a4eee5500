"""The `fallenctl bench` command group, with every benchmark registered on it."""

from __future__ import annotations

from benchmarks import (  # noqa: F401  (each module registers its `bench ...` commands)
    bots,
    capacity,
    matchmaking,
    memory,
    projections,
    rules,
    watchers,
    whole_stack,
)
from benchmarks.app import bench_app

__all__ = ["bench_app"]
