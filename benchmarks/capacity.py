"""`fallenctl bench capacity`: CPU-seconds and store bytes per game and per command, per pool.

Runs the split topology as OS processes on a private redis-server, as deploy/ runs it:
dice, deck, projections (its Redis runner), and for each game kind its rules pool and its
bot pool. For one kind at a time it creates bot-only games (easy bots on every seat) on the
kind's rules pool, waits until all have ended, and reads each process's CPU time
(/proc/PID/stat, less what it spends idle, measured just before), the rules pool's
SubmitCommand count (its /metrics) and Redis's memory
(INFO: the store, with the views and dice and deck logs). From those, per pool: CPU-seconds
per game and per command, store bytes per game and per command; and the model: the cores
and replicas each pool needs for N concurrent games when a live game makes one command
every `pace` seconds (docs/capacity.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from benchmarks.app import bench_app
from services.platform.healthcheck import check
from services.platform.localservers import free_port, redis_server

TICK = os.sysconf("SC_CLK_TCK")
TARGET_UTIL = 0.7  # a replica (one asyncio process: at most one core) planned at 70 % busy
LEVELS = (1_000, 10_000, 100_000)
IDLE_S = 3.0


@dataclass(frozen=True)
class Kind:
    """A game kind as the capacity bench plays it."""

    game: str
    rules: str
    bots: str
    seats: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


KINDS = {
    "fallen": Kind("fallen", "rules-fallen", "bots-fallen", ("hero", "dungeon_lord")),
    "worlds": Kind("worlds", "rules-worlds", "bots-worlds", ("p1", "p2")),
    "land": Kind(
        "land", "rules-land", "bots-land", ("p1", "p2", "p3"), {"short_game": True, "max_turns": 3}
    ),
    "land-epic": Kind(
        "land",
        "rules-land-epic",
        "bots-land-epic",
        tuple(f"p{i}" for i in range(1, 7)),
        {"short_game": True, "max_turns": 2},
    ),
}
SHARED = ("dice", "deck", "projections")


@dataclass
class Proc:
    """One served process: its pool name, address, metrics port and process."""

    pool: str
    address: str
    metrics: int
    popen: subprocess.Popen[bytes]


def cpu_s(pid: int) -> float:
    """Return a process's user + system CPU seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def submits(metrics_port: int) -> float:
    """Return the SubmitCommand RPCs a rules process answered OK (its /metrics)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.decode().splitlines()
        if line.startswith("fallen_rpc_total{")
        and 'method="RulesServicer.SubmitCommand"' in line
        and 'code="OK"' in line
    )


@contextlib.contextmanager
def topology(url: str, kinds: Sequence[Kind], replicas: int, log_dir: Path) -> Iterator[list[Proc]]:
    """Serve dice, deck, projections and each kind's rules and bot pools (replicas each)."""
    env = {**os.environ, "FALLEN_DEV": "1", "FALLEN_STORE": url}
    for var in ("FALLEN_VIEWS", "FALLEN_PROJECTIONS", "FALLEN_BOT_WORKERS", "FALLEN_JWT_SECRET"):
        env.pop(var, None)
    procs: list[Proc] = []

    def start(pool: str, args: list[str]) -> Proc:
        port, metrics = free_port(), free_port()
        cmd = [sys.executable, "-m", "services.cli.main", "serve", pool, *args]
        cmd += ["--address", f"127.0.0.1:{port}", "--metrics-port", str(metrics)]
        log = (log_dir / f"{pool}-{len(procs)}.log").open("wb")
        popen = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
        procs.append(Proc(pool, f"127.0.0.1:{port}", metrics, popen))
        return procs[-1]

    def ready(batch: Sequence[Proc]) -> None:
        deadline = time.monotonic() + 120
        for p in batch:
            while check(p.address, timeout=0.5) != "SERVING":
                if p.popen.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{p.pool} did not start (logs in {log_dir})")
                time.sleep(0.2)

    try:
        dice = start("dice", [])
        ready([dice])
        shared = [start("deck", ["--dice", dice.address]), start("projections", [])]
        ready(shared)
        deps = ["--dice", dice.address, "--deck", shared[0].address]
        rules = [start(k.rules, deps) for k in kinds for _ in range(replicas)]
        ready(rules)
        views = ["--projections-addr", shared[1].address]
        for k in kinds:
            target = "ipv4:" + ",".join(p.address for p in rules if p.pool == k.rules)
            for _ in range(replicas):
                start(k.bots, ["--rules", target, *views])
        ready(procs)
        yield procs
    finally:
        for p in procs:
            p.popen.terminate()
        for p in procs:
            try:
                p.popen.wait(20)
            except subprocess.TimeoutExpired:
                p.popen.kill()
                p.popen.wait()


async def _play(target: str, kind: Kind, games: int, seed: str) -> float:
    """Create bot-only games of a kind; return the seconds until all have ended."""
    import grpc
    from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

    from services.platform.auth import issue_token
    from services.platform.grpcx.structs import to_struct

    md = (("authorization", f"Bearer {issue_token('capacity', service=True)}"),)
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        start = time.perf_counter()
        gids = []
        for n in range(games):
            options = {**kind.options, "bot_policy": "easy", "bot_seed": f"{seed}-{n}"}
            req = rules_pb2.CreateGameRequest(
                game=kind.game,
                seats={s: f"bot:{s}" for s in kind.seats},
                options=to_struct(options),
            )
            for _ in range(60):  # the bot pool may still be announcing itself
                try:
                    gids.append((await stub.CreateGame(req, metadata=md)).game_id)
                    break
                except grpc.aio.AioRpcError as err:
                    if err.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    await asyncio.sleep(0.5)
        while True:
            states = [
                await stub.GetGame(rules_pb2.GetGameRequest(game_id=g), metadata=md) for g in gids
            ]
            if all(s.ended for s in states):
                return time.perf_counter() - start
            await asyncio.sleep(0.25)


def _redis_memory(url: str) -> tuple[int, int]:
    """Return Redis's used_memory and its process id."""
    import redis

    info = redis.Redis.from_url(url).info()
    return int(info["used_memory"]), int(info["process_id"])


def measure_kind(
    url: str, procs: Sequence[Proc], kind_name: str, games: int, seed: str
) -> dict[str, Any]:
    """Play one kind's games; return CPU-s and store bytes per game and per command, by pool."""
    kind = KINDS[kind_name]
    rules = [p for p in procs if p.pool == kind.rules]
    pools = [*SHARED, kind.rules, kind.bots]
    mem0, redis_pid = _redis_memory(url)
    pids = {p.popen.pid: p.pool for p in procs} | {redis_pid: "store"}
    idle0 = {pid: cpu_s(pid) for pid in pids}
    time.sleep(IDLE_S)  # what each process spends doing nothing (timers, blocking reads)
    cpu0 = {pid: cpu_s(pid) for pid in pids}
    idle_rate = {pid: (cpu0[pid] - idle0[pid]) / IDLE_S for pid in pids}
    cmds0 = sum(submits(p.metrics) for p in rules)
    took = asyncio.run(_play(rules[0].address, kind, games, seed))
    cmds = sum(submits(p.metrics) for p in rules) - cmds0
    mem1, _ = _redis_memory(url)
    spent = {pool: 0.0 for pool in [*pools, "store"]}
    idle = {pool: 0.0 for pool in spent}
    for pid, pool in pids.items():
        if pool in spent:  # the work: CPU spent while playing, less what idling costs
            used = cpu_s(pid) - cpu0[pid]
            spent[pool] += max(0.0, used - idle_rate[pid] * took)
            idle[pool] += idle_rate[pid]
    stored = max(0, mem1 - mem0)
    return {
        "kind": kind_name,
        "games": games,
        "commands": int(cmds),
        "seconds": round(took, 2),
        "idle_cores": {k: round(v, 4) for k, v in idle.items()},
        "cpu_s": {k: round(v, 3) for k, v in spent.items()},
        "cpu_s_per_game": {k: round(v / games, 4) for k, v in spent.items()},
        "cpu_ms_per_command": {k: round(1000 * v / max(cmds, 1), 3) for k, v in spent.items()},
        "store_bytes_per_game": round(stored / games),
        "store_bytes_per_command": round(stored / max(cmds, 1)),
        "rules_games_per_cpu_s": round(games / max(spent[kind.rules], 1e-9), 3),
    }


def model(row: Mapping[str, Any], pace_s: float, levels: Sequence[int] = LEVELS) -> dict[str, Any]:
    """Return cores and replicas per pool, and store bytes, for N concurrent games of a kind
    when each live game makes one command every pace_s seconds."""
    out: dict[str, Any] = {}
    for n in levels:
        rate = n / pace_s  # commands/s
        cores = {k: rate * ms / 1000 for k, ms in row["cpu_ms_per_command"].items()}
        out[str(n)] = {
            "commands_per_s": round(rate, 1),
            "cores": {k: round(c, 2) for k, c in cores.items()},
            "replicas": {k: max(1, math.ceil(c / TARGET_UTIL)) for k, c in cores.items()},
            "store_gb": round(n * row["store_bytes_per_game"] / 1e9, 2),
        }
    return out


def run_capacity(
    kinds: Sequence[str], games: int, replicas: Sequence[int], seed: str, pace_s: float
) -> list[dict[str, Any]]:
    """Measure each kind at each replica count (a fresh redis-server and topology each)."""
    import tempfile

    out = []
    for n in replicas:
        with (
            tempfile.TemporaryDirectory() as logs,
            redis_server() as url,
            topology(url, [KINDS[k] for k in kinds], n, Path(logs)) as procs,
        ):
            for k in kinds:
                row = {"replicas": n, **measure_kind(url, procs, k, games, seed)}
                row["model"] = model(row, pace_s)
                out.append(row)
    return out


@bench_app.command("capacity")
def bench_capacity(
    kinds: Annotated[
        str, typer.Option(help=f"Game kinds to measure, of {sorted(KINDS)}")
    ] = "fallen,worlds,land,land-epic",
    games: Annotated[int, typer.Option(help="Bot games per kind")] = 4,
    replicas: Annotated[
        str, typer.Option(help="Replica counts of every rules and bot pool, e.g. 1,2")
    ] = "1",
    pace_s: Annotated[
        float, typer.Option(help="Model: seconds between two commands of one live game")
    ] = 10.0,
    seed: Annotated[str, typer.Option(help="Bot seed prefix")] = "capacity",
) -> None:
    """CPU-seconds and store bytes per game and per command, per pool, and the cores and
    replicas for 1,000 / 10,000 / 100,000 concurrent games (docs/capacity.md)."""
    os.environ.setdefault("FALLEN_DEV", "1")
    names = [k.strip() for k in kinds.split(",") if k.strip()]
    unknown = [k for k in names if k not in KINDS]
    if unknown:
        raise typer.BadParameter(f"unknown kinds {unknown}; choose from {sorted(KINDS)}")
    counts = [int(x) for x in replicas.split(",") if x.strip()]
    for row in run_capacity(names, games, counts, seed, pace_s):
        typer.echo(json.dumps(row))
