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
    from services.projections.bench_faust import faust_lag

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
