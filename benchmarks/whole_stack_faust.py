"""The faust rows of `fallenctl bench all`: the projection lag at 80% of the worker's
maximum, where that lag goes, and what the CPU does meanwhile.

The lag is split into its stages (services/projections/stages.py): the relay (append to
produce), the broker hop inside the worker (produce to receipt by the agent) and the
worker (receipt to views written). The broker hop's baseline is the same hop alone, the
same records at the same rate with a plain Kafka client (services/projections/
bench_broker.py): what the broker itself costs on this machine. The CPU rows say how many
cores each process of the path used during the load (Linux /proc).
"""

from __future__ import annotations

import os
from typing import Any

from benchmarks.figures import figure

GOAL_MS = 50.0
# the processes bench_faust meters, in the order printed
PROCESSES = {
    "worker": "the faust worker",
    "bench": "appenders and relay",
    "redis": "Redis (appendfsync always)",
    "broker": "the Kafka-protocol broker",
}


async def faust_figures(redis_url: str, games: int, isolate: bool = False) -> list[dict[str, Any]]:
    """Return the faust runner's rows (games of load; isolate: the worker on a core of its
    own, the rest of the path on the others)."""
    from benchmarks.faust_runner import faust_lag

    r = await faust_lag(
        redis_url, backlog_games=max(1, games // 2), load_games=games, isolate=isolate
    )
    where = " (worker on its own core)" if r.get("worker_cores") else ""
    return [
        lag(f"projection lag p99, faust runner, at 80% of its max{where}", r["lag_p99_ms"], 1.0),
        lag("projection lag p50, faust runner, at 80% of its max", r["lag_p50_ms"], None),
        figure(
            "faust runner load (events/s appended) vs its max",
            r["achieved_events_per_s"],
            "events/s",
            "max events/s applied (lower of backlog and live)",
            r["max_events_per_s"],
            "0.8x",
            None,
        ),
        figure(
            "faust runner live max (relay and appenders running) vs backlog max",
            r["live_max_events_per_s"],
            "events/s",
            "max events/s applied from a backlog",
            r["backlog_max_events_per_s"],
            "-",
            None,
        ),
        *stage_figures(r),
        *cpu_figures(r),
    ]


def lag(name: str, ms: float, goal_ratio: float | None) -> dict[str, Any]:
    """Return a lag row against the 50 ms goal (goal_ratio None: shown, not judged)."""
    goal = "< 50 ms" if goal_ratio is not None else "-"
    return figure(name, ms, "ms", "goal p99 ms", GOAL_MS, goal, goal_ratio, lower_is_better=True)


def stage_figures(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the p99 of each stage of the lag at 80%; the broker hop against the same
    hop measured alone at the same rate."""
    stages = r.get("load_stages") or {}
    out = []
    if "relay" in stages:
        out.append(lag("lag stage p99: relay (append to produce)", _ms(stages["relay"]), None))
    if "broker" in stages and r.get("broker_hop_p99_ms"):
        out.append(
            figure(
                "lag stage p99: broker hop inside the worker (produce to receipt)",
                _ms(stages["broker"]),
                "ms",
                "the same hop alone, same records and rate, plain client (p99 ms)",
                float(r["broker_hop_p99_ms"]),
                "-",
                None,
                lower_is_better=True,
            )
        )
    if "worker" in stages:
        worker = _ms(stages["worker"])
        out.append(lag("lag stage p99: worker (receipt to views written)", worker, None))
    if r.get("light_lag_p99_ms") is not None:
        out.append(
            lag(
                f"projection lag p99, faust runner, at {r['light_fraction']:.0%} of its max",
                float(r["light_lag_p99_ms"]),
                None,
            )
        )
    return out


def cpu_figures(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Return what the CPU did during the faust load (where /proc tells): the machine's
    busy share of all its cores, and each process's own CPU against one core."""
    out = []
    if r.get("load_machine_cpu_busy") is not None:
        cores = os.cpu_count() or 1
        out.append(
            figure(
                f"machine CPU busy during the faust load ({cores} cores)",
                float(r["load_machine_cpu_busy"]),
                "share",
                "all cores busy",
                1.0,
                "-",
                None,
            )
        )
    used = r.get("load_cpu_cores") or {}
    for name, what in PROCESSES.items():
        if name in used:
            out.append(
                figure(
                    f"CPU during the faust load: {what}",
                    float(used[name]),
                    "cores",
                    "one core",
                    1.0,
                    "-",
                    None,
                )
            )
    return out


def _ms(stage: dict[str, Any]) -> float:
    return 1000 * float(stage["p99_s"])
