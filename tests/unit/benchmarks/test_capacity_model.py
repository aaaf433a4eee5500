"""The capacity model (benchmarks/capacity.py): cores and replicas from measured costs."""

from __future__ import annotations

import os

from benchmarks.capacity import TARGET_UTIL, cpu_s, model


def test_cores_scale_with_games_and_replicas_round_up_at_the_target_load() -> None:
    # given a pool that spends 5 ms of CPU per command and 1 MB of store per game
    row = {"cpu_ms_per_command": {"rules-worlds": 5.0}, "store_bytes_per_game": 1_000_000}
    # when 10,000 live games make one command every 10 s (1,000 commands/s)
    plan = model(row, pace_s=10.0, levels=(1_000, 10_000))["10000"]
    # then the pool needs 5 cores, at 70 % per replica 8 replicas, and 10 GB of store
    assert plan["commands_per_s"] == 1000.0
    assert plan["cores"] == {"rules-worlds": 5.0}
    assert plan["replicas"] == {"rules-worlds": 8} and 5.0 / TARGET_UTIL <= 8
    assert plan["store_gb"] == 10.0


def test_a_processes_cpu_time_is_read_from_proc() -> None:
    # the bench reads each served process's CPU seconds; this process has spent some
    spent = cpu_s(os.getpid())
    assert spent > 0
