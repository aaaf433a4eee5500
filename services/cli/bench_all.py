"""`fallenctl bench all`: every served-path figure next to its baseline from the same run.

Figures (docs/performance.md explains each and keeps the latest numbers):
- SubmitCommand through gRPC on the embedded store vs a client loop of one raw echo RPC
  plus one durable single-event SQLite append (the least a served command must do);
- commands/s with 1, 8, 32 concurrent games, embedded and on Redis, each vs echo + append
  at the same concurrency on the same store;
- Redis append with expected version vs raw redis-py XADD on the same server;
- `replay --verify` vs decode-only of the same exported logs.
Every ratio is figure / baseline (for a p99 it is figure p99 / baseline p99).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import platform
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

import typer

from services.cli.bench import _append_rate, _pct, _raw_xadd_rate, bench_app

GAME = "fallen"


def figure(
    name: str,
    value: float,
    unit: str,
    baseline_name: str,
    baseline: float,
    goal: str,
    goal_ratio: float | None,
    lower_is_better: bool = False,
) -> dict[str, Any]:
    """Return a figure with its baseline, their ratio and whether the goal holds (None: none)."""
    ratio = value / baseline if baseline else 0.0
    met = None
    if goal_ratio is not None:
        met = ratio <= goal_ratio if lower_is_better else ratio >= goal_ratio
    return {
        "name": name,
        "value": round(value, 3),
        "unit": unit,
        "baseline_name": baseline_name,
        "baseline": round(baseline, 3),
        "ratio": round(ratio, 3),
        "goal": goal,
        "goal_met": met,
    }


def table(doc: dict[str, Any]) -> str:
    """Return the figures of a bench-all document as a readable text table."""
    rows = [("figure", "value", "baseline", "ratio", "goal", "met")]
    for f in doc["figures"]:
        rows.append(
            (
                f["name"],
                f"{f['value']:g} {f['unit']}",
                f"{f['baseline']:g} ({f['baseline_name']})",
                f"{f['ratio']:.3f}",
                f["goal"],
                {True: "yes", False: "NO", None: "-"}[f["goal_met"]],
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """Return what the figures were measured on."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


async def _timed_loop(
    count: int, concurrency: int, step: Callable[[int], Awaitable[None]]
) -> tuple[float, list[float]]:
    """Run count steps over concurrency workers; return (steps/s, latencies)."""
    latencies: list[float] = []
    per = max(1, count // concurrency)

    async def worker(w: int) -> None:
        for _ in range(per):
            t0 = time.perf_counter()
            await step(w)
            latencies.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    return len(latencies) / (time.perf_counter() - start), latencies


class Client:
    """A well-behaved benchmark client: one service-token channel, games of GAME."""

    def __init__(self, target: str) -> None:
        import grpc
        from fallen.echo.v1 import echo_pb2, echo_pb2_grpc
        from fallen.rules.v1 import rules_pb2_grpc

        from services.kernel.auth import issue_token
        from services.rules.registry import load

        self.channel = grpc.aio.insecure_channel(target)
        self.rules = rules_pb2_grpc.RulesServiceStub(self.channel)
        self.echo = echo_pb2_grpc.EchoServiceStub(self.channel)
        self.echo_req = echo_pb2.EchoRequest(payload=b"x" * 64)
        self.md = (("authorization", f"Bearer {issue_token('service:bench', service=True)}"),)
        self.seats = {s: f"p-{s}" for s in load(GAME).seats}
        self.games = 0

    async def new_game(self) -> tuple[str, Any]:
        """Create a game; return its id and the first turn (seat, version, commands)."""
        from fallen.rules.v1 import rules_pb2

        self.games += 1
        gid = f"b{time.time_ns()}x{self.games}"
        await self.rules.CreateGame(
            rules_pb2.CreateGameRequest(game=GAME, game_id=gid, seats=self.seats, client_seed=gid),
            metadata=self.md,
        )
        return gid, await self.turn(gid, None)

    async def turn(self, gid: str, answer: Any) -> Any:
        """Return (seat, version, commands, ended) of the game's next turn.

        Uses what SubmitCommand answered when it carries the next turn, else asks
        ListLegalCommands (after a GetGame for the waiting seat).
        """
        from fallen.rules.v1 import rules_pb2

        if answer is not None and answer.ended:
            return ("", answer.version, [], True)
        nxt = getattr(answer, "next_turn", None) if answer is not None else None
        if nxt is not None and answer.HasField("next_turn"):
            return (nxt.waiting_for, answer.version, list(nxt.commands), False)
        summary = await self.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=self.md)
        if summary.ended:
            return ("", summary.version, [], True)
        seat = summary.waiting_for
        legal = await self.rules.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat), metadata=self.md
        )
        return (seat, legal.version, list(legal.commands), False)

    async def submit(self, gid: str, turn: Any) -> Any:
        """Submit a reproducibly chosen legal command of the turn; return the answer."""
        from fallen.rules.v1 import rules_pb2

        seat, version, commands, _ = turn
        digest = hashlib.sha256(f"{gid}:{version}".encode()).digest()
        pick = commands[int.from_bytes(digest[:4], "big") % len(commands)]
        return await self.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=gid,
                seat=seat,
                kind=pick.kind,
                args=pick.args,
                command_id=f"c{version}",
                expected_version=version,
            ),
            metadata=self.md,
        )


async def _games_submits(client: Client, count: int, concurrency: int) -> tuple[float, list[float]]:
    """Play count commands over concurrency games at once; return (commands/s, submit latencies).

    The rate is commands over wall time, so it includes the client's turn reads when
    SubmitCommand does not answer the next turn itself.
    """
    latencies: list[float] = []
    per = max(1, count // concurrency)

    async def worker() -> None:
        gid, turn = await client.new_game()
        for _ in range(per):
            if turn[3]:
                gid, turn = await client.new_game()
            t0 = time.perf_counter()
            answer = await client.submit(gid, turn)
            latencies.append(time.perf_counter() - t0)
            turn = await client.turn(gid, answer)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(latencies) / (time.perf_counter() - start), latencies


async def _echo_append(
    client: Client, store: Any, count: int, concurrency: int
) -> tuple[float, list[float]]:
    """Return (ops/s, latencies) of the baseline: one raw echo RPC then one durable append."""
    from services.kernel.envelope import NewEvent

    versions = [0] * concurrency
    tag = time.time_ns()

    async def step(w: int) -> None:
        await client.echo.Echo(client.echo_req)
        res = await store.append(
            f"game-base{tag}w{w}", versions[w], [NewEvent("BenchEvent", {"w": w})]
        )
        versions[w] = res.version

    return await _timed_loop(count, concurrency, step)


@contextlib.asynccontextmanager
async def _served(store: Any) -> AsyncIterator[Client]:
    """Serve every service on store (plus the echo baseline); yield a client of it."""
    from services.app import serve

    backend = await serve(store, "127.0.0.1:0", echo=True)
    client = Client(f"127.0.0.1:{backend.port}")
    try:
        await _timed_loop(50, 1, lambda _w: client.echo.Echo(client.echo_req))  # warm up
        yield client
    finally:
        await client.channel.close()
        await backend.stop()


async def _submit_figures(tmp: str, commands: int) -> list[dict[str, Any]]:
    """Return the SubmitCommand (embedded) figures: rate and p99 vs echo + durable append."""
    from services.kernel.store.sqlite import SqliteEventStore

    base_store = SqliteEventStore(os.path.join(tmp, "baseline.db"))
    async with _served(SqliteEventStore(os.path.join(tmp, "served.db"))) as client:
        base_rate, base_lat = await _echo_append(client, base_store, commands, 1)
        _, lat = await _games_submits(client, commands, 1)
    await base_store.close()
    submit_rate = len(lat) / sum(lat)
    return [
        figure(
            "SubmitCommand embedded (1 game)",
            submit_rate,
            "cmd/s",
            "echo + durable append /s",
            base_rate,
            ">= 0.5x",
            0.5,
        ),
        figure(
            "SubmitCommand embedded p99",
            _pct(lat, 0.99),
            "ms",
            "echo + append p99 ms",
            _pct(base_lat, 0.99),
            "<= 3x",
            3.0,
            lower_is_better=True,
        ),
        figure(
            "SubmitCommand embedded p50",
            _pct(lat, 0.5),
            "ms",
            "echo + append p50 ms",
            _pct(base_lat, 0.5),
            "-",
            None,
            lower_is_better=True,
        ),
    ]


async def _concurrency_figures(
    store_name: str, open_store: Callable[[str], Any], levels: list[int], commands: int
) -> list[dict[str, Any]]:
    """Return commands/s at each concurrency level vs echo + append at the same level."""
    out = []
    for level in levels:
        served = open_store("served")
        base_store = open_store("baseline")
        async with _served(served) as client:
            base_rate, _ = await _echo_append(client, base_store, commands, level)
            rate, _ = await _games_submits(client, commands, level)
        await base_store.close()
        out.append(
            figure(
                f"commands/s, {level} games, {store_name}",
                rate,
                "cmd/s",
                f"echo + append /s at {level}",
                base_rate,
                "-",
                None,
            )
        )
    return out


async def _redis_append_figure(url: str, events: int) -> dict[str, Any]:
    """Return the Redis append (expected version) figure vs raw XADD on the same server."""
    from services.kernel.store.redis import RedisEventStore

    store = RedisEventStore(url, prefix=f"benchappend{time.time_ns()}")
    await _append_rate(store, max(10, events // 10), 1)  # warm up (script load, connection)
    rate = await _append_rate(store, events, 1)
    await store.close()
    raw = await _raw_xadd_rate(url, events)
    return figure(
        "Redis append, expected version", rate, "appends/s", "raw XADD /s", raw, ">= 0.7x", 0.7
    )


def _replay_figure(games: int) -> dict[str, Any]:
    """Return replay --verify events/s vs decode-only of the same logs."""
    from services.projections.bench import replay_figures

    r = replay_figures(GAME, games)
    return figure(
        "replay --verify",
        r["replay_verify_events_per_s"],
        "events/s",
        "decode-only events/s",
        r["decode_only_events_per_s"],
        ">= 0.5x",
        0.5,
    )


async def run_all(
    commands: int, levels: list[int], append_events: int, replay_games: int, redis_url: str
) -> dict[str, Any]:
    """Measure every figure; return the bench-all document."""
    from services.kernel.store.redis import RedisEventStore
    from services.kernel.store.sqlite import SqliteEventStore

    figures: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fallen-bench-all-") as tmp:
        figures += await _submit_figures(tmp, commands)
        n = iter(range(10_000))
        figures += await _concurrency_figures(
            "embedded",
            lambda what: SqliteEventStore(os.path.join(tmp, f"{what}{next(n)}.db")),
            levels,
            commands,
        )
    figures += await _concurrency_figures(
        "Redis",
        lambda what: RedisEventStore(redis_url, prefix=f"bench{what}{time.time_ns()}"),
        levels,
        commands,
    )
    figures.append(await _redis_append_figure(redis_url, append_events))
    figures.append(await asyncio.to_thread(_replay_figure, replay_games))
    return {
        "bench": "all",
        "machine": machine(),
        "params": {
            "commands": commands,
            "levels": levels,
            "append_events": append_events,
            "replay_games": replay_games,
            "game": GAME,
        },
        "not_measured": {
            "projection lag, faust runner": "see `fallenctl bench projections`; the faust "
            "runner needs a Kafka-protocol broker (docs/performance.md)",
        },
        "figures": figures,
    }


@bench_app.command("all")
def bench_all(
    commands: Annotated[int, typer.Option(help="Commands per submit measurement")] = 400,
    levels: Annotated[str, typer.Option(help="Concurrent games, comma-separated")] = "1,8,32",
    append_events: Annotated[int, typer.Option(help="Appends per Redis measurement")] = 3000,
    replay_games: Annotated[int, typer.Option(help="Finished games to replay")] = 5,
    redis_url: Annotated[str | None, typer.Option(help="Redis to use; default: start one")] = None,
    json_out: Annotated[str | None, typer.Option("--json", help="Also write the JSON here")] = None,
) -> None:
    """Every served-path figure with its same-run baseline: a table, then one JSON line."""
    from services.kernel.localservers import redis_server

    os.environ.setdefault("FALLEN_DEV", "1")
    level_list = [int(x) for x in levels.split(",") if x.strip()]
    with contextlib.ExitStack() as stack:
        url = redis_url or stack.enter_context(redis_server())
        doc = asyncio.run(run_all(commands, level_list, append_events, replay_games, url))
    typer.echo(table(doc))
    typer.echo(json.dumps(doc))
    if json_out:
        os.makedirs(os.path.dirname(os.path.abspath(json_out)), exist_ok=True)
        with open(json_out, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2)
