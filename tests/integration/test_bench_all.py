"""`fallenctl bench all` with tiny counts: the document has every figure, each with a baseline
and a positive ratio. Speed itself is never asserted here (docs/performance.md has the figures)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from services.cli.main import app

EXPECTED = {
    "SubmitCommand embedded (1 game)",
    "SubmitCommand embedded p99",
    "Redis append, expected version",
    "replay --verify",
    "commands/s, 1 games, embedded",
    "commands/s, 2 games, embedded",
    "commands/s, 1 games, Redis (projections in their own process)",
    "commands/s, 2 games, Redis (projections in their own process)",
}


def test_given_tiny_counts_when_bench_all_runs_then_every_figure_has_a_positive_ratio(
    redis_url: str, tmp_path: Path
) -> None:
    # given: a Redis of the test session and tiny counts
    out = tmp_path / "bench.json"
    args = ["bench", "all", "--commands", "6", "--levels", "1,2", "--append-events", "20"]
    args += ["--replay-games", "1", "--driver-games", "0", "--redis-url", redis_url]
    args += ["--no-two-processes", "--faust-games", "0"]  # process start-up is slow
    args += ["--json", str(out)]

    # when
    result = CliRunner().invoke(app, args)

    # then: a table, one JSON line equal to the written file, every figure complete
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    doc = json.loads(lines[-1])
    assert doc == json.loads(out.read_text())
    assert lines[0].split()[0] == "figure"
    assert doc["bench"] == "all"
    assert doc["machine"]["cpus"] >= 1
    names = {f["name"] for f in doc["figures"]}
    assert EXPECTED <= names
    for f in doc["figures"]:
        assert f["value"] > 0 and f["baseline"] > 0, f
        assert isinstance(f["ratio"], float) and f["ratio"] > 0, f
        assert f["goal_met"] in (True, False, None), f
        assert f["unit"] and f["baseline_name"], f


async def test_given_one_game_when_the_faust_lag_is_measured_then_every_number_is_positive(
    redis_url: str,
) -> None:
    # given: the Redis of the test session (the bench starts its own broker and workers)
    from benchmarks.faust_runner import faust_lag

    # when: one game of backlog and one of load
    r = await faust_lag(redis_url, backlog_games=1, load_games=1)

    # then: a maximum, a load and lag quantiles were measured
    assert r["max_events_per_s"] > 0 and r["achieved_events_per_s"] > 0, r
    # and the maximum is the lower of the worker's backlog rate and its rate while the
    # relay and the appenders ran beside it
    assert r["max_events_per_s"] == min(r["backlog_max_events_per_s"], r["live_max_events_per_s"])
    assert r["events"] > 0 and r["lag_p99_ms"] >= r["lag_p50_ms"] > 0, r
    # and the CPU was sampled during the load (Linux /proc): the machine's busy share of
    # all its cores, and the worker's own CPU, which is part of it
    assert 0 < r["load_machine_cpu_busy"] <= 1, r
    cores = os.cpu_count() or 1
    assert 0 < r["load_worker_cpu_cores"] <= cores * r["load_machine_cpu_busy"] + 0.05, r
    # and the lighter load (40% of the maximum) was measured too
    assert r["light_fraction"] == 0.4
    assert r["light_lag_p99_ms"] >= r["light_lag_p50_ms"] > 0, r
    # and the lag was split into its stages, each timed for every applied event
    stages = r["load_stages"]
    assert set(stages) == {"relay", "broker", "worker"}, stages
    for stage in stages.values():
        assert stage["n"] > 0 and stage["p99_s"] >= stage["p50_s"] >= 0, stages
    # and no stage took longer than the whole lag at its p99
    assert max(s["p99_s"] for s in stages.values()) <= r["lag_p99_ms"] / 1000 + 0.001, r
    # and the broker hop was measured alone at the load's rate (the stage's baseline)
    assert r["broker_hop_p99_ms"] >= r["broker_hop_p50_ms"] > 0, r
    # and every process of the path had its CPU metered: the worker, this process
    # (appenders and relay), the local Redis and the broker
    assert set(r["load_cpu_cores"]) == {"worker", "bench", "redis", "broker"}, r
    assert all(v >= 0 for v in r["load_cpu_cores"].values()), r
    assert r["load_cpu_cores"]["worker"] > 0, r
    # and the worker shared every core (no isolation asked)
    assert r["worker_cores"] is None


async def test_given_isolation_when_the_faust_lag_is_measured_then_the_worker_has_its_own_core(
    redis_url: str,
) -> None:
    from benchmarks.faust_runner import faust_lag

    before = os.sched_getaffinity(0)
    # when: the worker is asked to run on a core of its own, one game, no lighter phase
    r_iso = await faust_lag(
        redis_url, backlog_games=1, load_games=1, light_fraction=0, isolate=True
    )
    # then: where the machine has two cores or more the worker had the last one, and this
    # process's cores are restored after
    if len(before) >= 2:
        assert r_iso["worker_cores"] == [max(before)], r_iso
    else:
        assert r_iso["worker_cores"] is None
    assert os.sched_getaffinity(0) == before
    assert r_iso["lag_p99_ms"] > 0 and r_iso["light_lag_p99_ms"] is None
