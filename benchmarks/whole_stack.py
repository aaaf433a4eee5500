"""`fallenctl bench all`: every served-path figure next to its baseline from the same run.

Figures (docs/performance.md explains each and keeps the latest numbers):
- SubmitCommand through gRPC on the embedded store vs a client loop of one raw echo RPC
  plus one durable single-event SQLite append (the least a served command must do);
- commands/s with 1, 8, 32 concurrent games, embedded and on Redis, each vs echo + append
  at the same concurrency on the same store;
- Redis append with expected version vs raw redis-py XADD on the same server;
- `replay --verify` vs decode-only of the same exported logs;
- projection lag of the faust runner (Kafka-protocol broker) at 80% of the maximum rate
  it applied in the same run, vs the goal of 50 ms, with its stages and the CPU of each
  process of its path (benchmarks/whole_stack_faust.py).
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

from benchmarks.app import _pct, bench_app
from benchmarks.figures import figure

GAME = "fallen"


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


ROUNDS = 4  # figure and baseline alternate in rounds, so both see the same machine load


class Timed:
    """Steps done, their latencies and the wall time they took, summed over rounds."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.wall = 0.0

    @property
    def rate(self) -> float:
        """Return steps per wall-clock second."""
        return len(self.latencies) / self.wall if self.wall else 0.0

    @property
    def latency_rate(self) -> float:
        """Return steps per second of summed step latency (one step at a time)."""
        return len(self.latencies) / sum(self.latencies) if self.latencies else 0.0

    async def run(
        self, count: int, concurrency: int, step: Callable[[int], Awaitable[None]]
    ) -> None:
        """Run count steps over concurrency workers (each step gets its worker index)."""
        per = max(1, count // concurrency)

        async def worker(w: int) -> None:
            for _ in range(per):
                t0 = time.perf_counter()
                await step(w)
                self.latencies.append(time.perf_counter() - t0)

        start = time.perf_counter()
        await asyncio.gather(*(worker(w) for w in range(concurrency)))
        self.wall += time.perf_counter() - start


async def interleaved(
    count: int,
    concurrency: int,
    figure_step: Callable[[int], Awaitable[None]],
    baseline_step: Callable[[int], Awaitable[None]],
) -> tuple[Timed, Timed]:
    """Return (figure, baseline) timings, measured in alternating rounds of count/ROUNDS."""
    fig, base = Timed(), Timed()
    per_round = max(concurrency, count // ROUNDS)
    for _ in range(max(1, count // per_round)):
        await base.run(per_round, concurrency, baseline_step)
        await fig.run(per_round, concurrency, figure_step)
    return fig, base


class Client:
    """A well-behaved benchmark client: one service-token channel, games of GAME."""

    def __init__(self, target: str) -> None:
        import grpc
        from fallen.echo.v1 import echo_pb2, echo_pb2_grpc
        from fallen.rules.v1 import rules_pb2_grpc

        from services.platform.auth import issue_token
        from services.rules.registry import load

        self.channel = grpc.aio.insecure_channel(target)
        self.rules = rules_pb2_grpc.RulesServiceStub(self.channel)
        self.echo = echo_pb2_grpc.EchoServiceStub(self.channel)
        self.echo_req = echo_pb2.EchoRequest(payload=b"x" * 64)
        self.md = (("authorization", f"Bearer {issue_token('service:bench', service=True)}"),)
        self.seats = {s: f"p-{s}" for s in load(GAME).seats}
        self.games = 0
        self.submit_latencies: list[float] = []

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
        request = rules_pb2.SubmitCommandRequest(
            game_id=gid,
            seat=seat,
            kind=pick.kind,
            args=pick.args,
            command_id=f"c{version}",
            expected_version=version,
        )
        t0 = time.perf_counter()
        answer = await self.rules.SubmitCommand(request, metadata=self.md)
        self.submit_latencies.append(time.perf_counter() - t0)
        return answer


class Games:
    """Concurrent games, one per worker, replaced when they end; worker w plays through
    client w mod len(clients) (several clients: one per rules process)."""

    def __init__(self, client: Client, *more: Client) -> None:
        self.client = client
        self.clients = (client, *more)
        self.turns: dict[int, tuple[str, Any]] = {}

    async def step(self, w: int) -> None:
        """Play one command of worker w's game (starting a game first when needed)."""
        client = self.clients[w % len(self.clients)]
        gid, turn = self.turns.get(w) or await client.new_game()
        if turn[3]:
            gid, turn = await client.new_game()
        answer = await client.submit(gid, turn)
        self.turns[w] = (gid, await client.turn(gid, answer))


class EchoAppend:
    """The baseline step: one raw echo RPC, then one durable single-event append."""

    def __init__(self, client: Client, store: Any) -> None:
        self.client, self.store = client, store
        self.versions: dict[int, int] = {}
        self.tag = time.time_ns()

    async def step(self, w: int) -> None:
        """Echo once, then append one event to worker w's own stream."""
        from services.platform.envelope import NewEvent

        await self.client.echo.Echo(self.client.echo_req)
        res = await self.store.append(
            f"game-base{self.tag}w{w}", self.versions.get(w, 0), [NewEvent("BenchEvent", {"w": w})]
        )
        self.versions[w] = res.version


@contextlib.asynccontextmanager
async def _served(store: Any, projections: bool = True) -> AsyncIterator[Client]:
    """Serve every service on store (plus the echo baseline); yield a client of it.

    projections=False serves without the in-process projection runner (a Redis deployment
    runs projections in their own process)."""
    from services.app import serve
    from services.platform.gcpolicy import freeze_startup

    before = os.environ.get("FALLEN_PROJECTIONS")
    if not projections:
        os.environ["FALLEN_PROJECTIONS"] = "external"
    try:
        backend = await serve(store, "127.0.0.1:0", echo=True)
    finally:
        if before is None:
            os.environ.pop("FALLEN_PROJECTIONS", None)
        else:
            os.environ["FALLEN_PROJECTIONS"] = before
    client = Client(f"127.0.0.1:{backend.port}")
    try:
        await Timed().run(50, 1, lambda _w: client.echo.Echo(client.echo_req))  # warm up
        freeze_startup()  # as `fallenctl serve` does once it serves
        yield client
    finally:
        await client.channel.close()
        await backend.stop()


async def _submit_figures(tmp: str, commands: int) -> list[dict[str, Any]]:
    """Return the SubmitCommand (embedded) figures: rate and p99 vs echo + durable append."""
    from services.platform.store.sqlite import SqliteEventStore

    base_store = SqliteEventStore(os.path.join(tmp, "baseline.db"))
    async with _served(SqliteEventStore(os.path.join(tmp, "served.db"))) as client:
        games = Games(client)
        await games.step(0)  # the first game's creation is not a command
        client.submit_latencies.clear()
        _, base = await interleaved(commands, 1, games.step, EchoAppend(client, base_store).step)
    await base_store.close()
    # a step is one command plus, for clients SubmitCommand does not answer fully, the
    # reads of the next turn; the figure is SubmitCommand alone: time its calls
    lat, base_lat = client.submit_latencies, base.latencies
    submit_rate, base_rate = len(lat) / sum(lat), base.latency_rate
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
    store_name: str,
    open_store: Callable[[str], Any],
    levels: list[int],
    commands: int,
    projections: bool = True,
) -> list[dict[str, Any]]:
    """Return commands/s at each concurrency level vs echo + append at the same level."""
    out = []
    for level in levels:
        served = open_store("served")
        base_store = open_store("baseline")
        async with _served(served, projections) as client:
            games = Games(client)
            await asyncio.gather(*(games.step(w) for w in range(level)))  # create the games
            fig, base = await interleaved(
                commands, level, games.step, EchoAppend(client, base_store).step
            )
            rate, base_rate = fig.rate, base.rate
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


class _Counting:
    """A stub wrapper counting the RPCs (unary calls and opened streams) made through it."""

    def __init__(self, stub: Any, counts: dict[str, int]) -> None:
        self._stub, self._counts = stub, counts

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._stub, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self._counts[name] = self._counts.get(name, 0) + 1
            return attr(*args, **kwargs)

        return call


async def _driver_figures(tmp: str, games: int) -> list[dict[str, Any]]:
    """Return the bot driver's commands/s and RPCs per command (player tokens, pushed
    views) vs the bench client's commands/s for as many commands, in the same backend."""
    from fallen.dice.v1 import dice_pb2_grpc
    from fallen.projections.v1 import projections_pb2_grpc

    from services.bots.driver import play_game
    from services.bots.policies import random_legal
    from services.platform.store.sqlite import SqliteEventStore

    counts: dict[str, int] = {}
    async with _served(SqliteEventStore(os.path.join(tmp, "driver.db"))) as client:
        stub = _Counting(client.rules, counts)
        views = _Counting(projections_pb2_grpc.ProjectionServiceStub(client.channel), counts)
        policies = {seat: random_legal for seat in client.seats}
        start = time.perf_counter()
        for i in range(games):
            dice = dice_pb2_grpc.DiceServiceStub(client.channel)
            await play_game(stub, views, GAME, client.seats, policies, f"d{i}", dice=dice)
        driver_rate = counts["SubmitCommand"] / (time.perf_counter() - start)
        games_load = Games(client)
        await games_load.step(0)
        base = Timed()
        await base.run(counts["SubmitCommand"], 1, games_load.step)
    rpcs = sum(counts.values()) / counts["SubmitCommand"]
    return [
        figure(
            "bot driver, embedded (player tokens, pushed views)",
            driver_rate,
            "cmd/s",
            "bench client cmd/s",
            base.rate,
            "-",
            None,
        ),
        figure(
            "bot driver RPCs per command (all RPCs incl. per game)",
            rpcs,
            "RPCs",
            "good client: 2 RPCs",
            2.0,
            "<= 1x",
            1.0,
            lower_is_better=True,
        ),
    ]


async def _two_process_figures(
    redis_url: str, levels: list[int], commands: int
) -> list[dict[str, Any]]:
    """Return commands/s of two rules processes (`fallenctl serve all`, projections in
    their own process) on one Redis, games split between them, vs echo + append at the
    same concurrency in this process."""
    from benchmarks.bots import _process
    from services.platform.localservers import free_port
    from services.platform.store.redis import RedisEventStore

    before = os.environ.get("FALLEN_PROJECTIONS")
    os.environ["FALLEN_PROJECTIONS"] = "external"
    out = []
    try:
        ports = [free_port(), free_port()]
        with (
            _process(["all", "--store", redis_url, "--workers", "0"], ports[0]),
            _process(["all", "--store", redis_url, "--workers", "0"], ports[1]),
        ):
            clients = [Client(f"127.0.0.1:{p}") for p in ports]
            base_store = RedisEventStore(redis_url, prefix=f"benchtwo{time.time_ns()}")
            async with _served(base_store, projections=False) as local:
                for level in levels:
                    games = Games(*clients)
                    await asyncio.gather(*(games.step(w) for w in range(level)))
                    fig, base = await interleaved(
                        commands, level, games.step, EchoAppend(local, base_store).step
                    )
                    out.append(
                        figure(
                            f"commands/s, {level} games, 2 rules processes on one Redis",
                            fig.rate,
                            "cmd/s",
                            f"echo + append /s at {level} (one process)",
                            base.rate,
                            "-",
                            None,
                        )
                    )
            for c in clients:
                await c.channel.close()
    finally:
        if before is None:
            os.environ.pop("FALLEN_PROJECTIONS", None)
        else:
            os.environ["FALLEN_PROJECTIONS"] = before
    return out


async def _redis_append_figure(url: str, events: int) -> dict[str, Any]:
    """Return the Redis append (expected version) figure vs raw XADD on the same server.

    The raw XADD writes a body as large as the envelope the store writes (one sealed
    event's canonical JSON), one round trip per event; rounds alternate."""
    import redis.asyncio as aioredis

    from services.platform.envelope import NewEvent
    from services.platform.store.base import seal
    from services.platform.store.redis import RedisEventStore, encode_envelope

    store = RedisEventStore(url, prefix=f"benchappend{time.time_ns()}")
    raw = aioredis.from_url(url)
    stream, key, version = f"game-a{time.time_ns()}", f"bench:raw:{time.time_ns()}", [0]
    sample = NewEvent("BenchEvent", {"i": 0})
    body = encode_envelope(seal(stream, 1, "0" * 64, [sample], "2026-01-01T00:00:00+00:00")[0])

    async def append(_w: int) -> None:
        res = await store.append(stream, version[0], [NewEvent("BenchEvent", {"i": version[0]})])
        version[0] = res.version

    async def xadd(_w: int) -> None:
        await raw.xadd(key, {"env": body})

    await Timed().run(max(10, events // 10), 1, append)  # warm up (script load, connection)
    fig, base = await interleaved(events, 1, append, xadd)
    await store.close()
    await raw.aclose()
    return figure(
        "Redis append, expected version",
        fig.rate,
        "appends/s",
        "raw XADD /s",
        base.rate,
        ">= 0.7x",
        0.7,
    )


def _replay_figure(games: int) -> dict[str, Any]:
    """Return replay --verify events/s vs decode-only of the same logs."""
    from benchmarks.projections import replay_figures

    r = replay_figures(GAME, games, ROUNDS)
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
    commands: int,
    levels: list[int],
    append_events: int,
    replay_games: int,
    redis_url: str,
    given_redis: bool = True,
    driver_games: int = 0,
    two_processes: bool = False,
    faust_games: int = 0,
    faust_isolate: bool = False,
) -> dict[str, Any]:
    """Measure every figure; return the bench-all document."""
    from services.platform.store.redis import RedisEventStore
    from services.platform.store.sqlite import SqliteEventStore

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
        if driver_games > 0:
            figures += await _driver_figures(tmp, driver_games)
    figures += await _concurrency_figures(
        "Redis (projections in their own process)",
        lambda what: RedisEventStore(redis_url, prefix=f"bench{what}{time.time_ns()}"),
        levels,
        commands,
        projections=False,
    )
    if two_processes:
        figures += await _two_process_figures(redis_url, levels, commands)
    figures.append(await _redis_append_figure(redis_url, append_events))
    figures.append(await asyncio.to_thread(_replay_figure, replay_games))
    if faust_games > 0:
        from benchmarks.whole_stack_faust import faust_figures

        figures += await faust_figures(redis_url, faust_games, faust_isolate)
    return {
        "bench": "all",
        "machine": machine(),
        "params": {
            "redis": "given by --redis-url" if given_redis else "private, appendfsync always",
            "commands": commands,
            "levels": levels,
            "append_events": append_events,
            "replay_games": replay_games,
            "driver_games": driver_games,
            "two_processes": two_processes,
            "faust_games": faust_games,
            "faust_isolate": faust_isolate,
            "game": GAME,
        },
        "figures": figures,
    }


@bench_app.command("all")
def bench_all(
    commands: Annotated[int, typer.Option(help="Commands per submit measurement")] = 400,
    levels: Annotated[str, typer.Option(help="Concurrent games, comma-separated")] = "1,8,32",
    append_events: Annotated[int, typer.Option(help="Appends per Redis measurement")] = 3000,
    replay_games: Annotated[int, typer.Option(help="Finished games to replay")] = 5,
    driver_games: Annotated[int, typer.Option(help="Whole games the bot driver plays")] = 1,
    two_processes: Annotated[
        bool, typer.Option(help="Also measure two rules processes on one Redis")
    ] = True,
    faust_games: Annotated[
        int, typer.Option(help="Fallen games of load for the faust lag (0: skip it)")
    ] = 8,
    faust_isolate: Annotated[
        bool,
        typer.Option(
            help="Run the faust worker on a core of its own, the rest of its path on the others"
        ),
    ] = False,
    redis_url: Annotated[
        str | None, typer.Option(help="Redis to use; default: start one (appendfsync always)")
    ] = None,
    json_out: Annotated[str | None, typer.Option("--json", help="Also write the JSON here")] = None,
) -> None:
    """Every served-path figure with its same-run baseline: a table, then one JSON line."""
    from services.platform.localservers import redis_server

    os.environ.setdefault("FALLEN_DEV", "1")
    level_list = [int(x) for x in levels.split(",") if x.strip()]
    with contextlib.ExitStack() as stack:
        url = redis_url or stack.enter_context(redis_server(appendfsync="always"))
        doc = asyncio.run(
            run_all(
                commands,
                level_list,
                append_events,
                replay_games,
                url,
                bool(redis_url),
                driver_games,
                two_processes,
                faust_games,
                faust_isolate,
            )
        )
    typer.echo(table(doc))
    typer.echo(json.dumps(doc))
    if json_out:
        os.makedirs(os.path.dirname(os.path.abspath(json_out)), exist_ok=True)
        with open(json_out, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2)
