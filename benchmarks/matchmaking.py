"""fallenctl bench matchmaking: queued players across modes, matches/s and time to match."""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import statistics
import time
from collections.abc import Mapping
from typing import Annotated, Any

import typer

from benchmarks.app import bench_app
from services.matchmaking.engine import Matchmaker
from services.matchmaking.model import Ticket
from services.matchmaking.modes import Mode, load_modes
from services.matchmaking.state import Completion, MatchState

# share of queued players per queue (modes of Worlds and Land route to their pools by name)
MIX = {
    "fallen/ranked": 0.35,
    "fallen/vs_bot": 0.05,
    "worlds/pvp": 0.2,
    "worlds/vs_bot": 0.05,
    "land/solo1": 0.025,
    "land/solo2": 0.025,
    "land/standard": 0.2,
    "land/epic": 0.1,
}


class MintingCreator:
    """Creates no game: mints the commitment a pool would return (measures the matcher)."""

    def endpoint(self, pool: str) -> str:
        """Return a placeholder endpoint named after the pool."""
        return f"{pool}:50051"

    async def create_game(
        self,
        endpoint: str,
        game: str,
        game_id: str,
        seats: Mapping[str, str],
        options: Mapping[str, Any],
    ) -> str:
        """Return a commitment-shaped hash of the game id."""
        return hashlib.sha256(game_id.encode()).hexdigest()


class Recording(Matchmaker):
    """A matchmaker that remembers when each game was made, from which tickets."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.made: list[tuple[float, list[float], list[float]]] = []

    async def _make(
        self, mode: Mode, group: list[Ticket], seats: dict[str, str], claim_id: str
    ) -> Completion | None:
        done = await super()._make(mode, group, seats, claim_id)
        if done is not None:
            self.made.append((time.time(), [t.queued_at for t in group], [t.rating for t in group]))
        return done


def _rating(n: int) -> float:
    """Return a deterministic bell-shaped rating around 25 for player n."""
    h = hashlib.sha256(f"bench-player-{n}".encode()).digest()
    return 25.0 + sum(b - 127.5 for b in h[:12]) / 120.0


def _level(mode: Mode, n: int) -> int:
    """Return player n's challenge level: the mode's levels in turn (0 without a choice)."""
    return mode.challenge_levels[n % len(mode.challenge_levels)] if mode.challenge else 0


async def _fill(state: MatchState, players: int) -> int:
    """Queue players across MIX, each with a bench rating; return how many were queued."""
    modes, n, now = load_modes(), 0, time.time()
    for key, share in MIX.items():
        mode = modes[key]
        for _ in range(int(players * share)):
            await state.enqueue(
                Ticket(
                    ticket_id=f"t{n}",
                    game=mode.game,
                    mode=mode.name,
                    players=(f"u{n}",),
                    queued_at=now,
                    expires_at=now + mode.ticket_ttl_s,
                    rating=_rating(n),
                    challenge_level=_level(mode, n),
                )
            )
            n += 1
    return n


async def _work(
    state_url: str, seconds: float, given: MatchState | None = None
) -> list[tuple[float, list[float], list[float]]]:
    """Tick a matchmaker until three ticks in a row match nothing; return what it made."""
    from services.matchmaking.wiring import open_state

    state = given or open_state(state_url)
    mm = Recording(state, load_modes(), MintingCreator())
    deadline, idle = time.monotonic() + seconds, 0
    while time.monotonic() < deadline and idle < 3:
        made = await mm.tick()
        idle = 0 if made else idle + 1
        if not made:
            await asyncio.sleep(0.5)
    if given is None:
        await state.close()
    return mm.made


def _worker(state_url: str, seconds: float, out: Any, ready: Any, go: Any) -> None:
    """Run one replica in its own process once the queue is full (imports are done)."""
    ready.put(1)
    go.wait()
    out.put(asyncio.run(_work(state_url, seconds)))


def _report(made: list[tuple[float, list[float], list[float]]], start: float, players: int) -> dict:
    waits = sorted(at - q for at, qs, _ in made for q in qs)
    spread = [max(rs) - min(rs) for _, _, rs in made]
    last = max((at for at, _, _ in made), default=start)
    pct = lambda q: round(waits[min(len(waits) - 1, int(q * len(waits)))], 3) if waits else 0.0  # noqa: E731
    return {
        "players": players,
        "games": len(made),
        "tickets_matched": len(waits),
        "matches_per_s": round(len(made) / max(last - start, 1e-9), 1),
        "time_to_match_p50_s": pct(0.5),
        "time_to_match_p99_s": pct(0.99),
        "rating_spread_mean": round(statistics.fmean(spread), 3) if spread else 0.0,
        "rating_spread_p99": round(sorted(spread)[int(0.99 * len(spread))], 3) if spread else 0.0,
    }


async def _run(state_url: str, players: int, replicas: int, seconds: float) -> dict:
    from services.matchmaking.redis_state import RedisState
    from services.matchmaking.wiring import open_state

    state = open_state(state_url)
    if isinstance(state, RedisState):
        await state.redis.delete(*(await state.redis.keys(f"{state.p}:*")) or ["-"])
    if state_url == "memory":
        queued = await _fill(state, players)
        start = time.time()
        made = await _work("memory", seconds, state)
    else:
        ctx = multiprocessing.get_context("spawn")
        out, ready, go = ctx.Queue(), ctx.Queue(), ctx.Event()
        procs = [
            ctx.Process(target=_worker, args=(state_url, seconds, out, ready, go))
            for _ in range(replicas)
        ]
        for p in procs:
            p.start()
        for _ in procs:
            ready.get()
        queued = await _fill(state, players)
        start = time.time()
        go.set()
        made = [m for _ in procs for m in out.get()]
        for p in procs:
            p.join()
    await state.close()
    return {"state": state_url.split(":")[0], "replicas": replicas, "queued": queued,
            **_report(made, start, players)}  # fmt: skip


@bench_app.command("matchmaking")
def bench_matchmaking(
    players: Annotated[int, typer.Option(help="Players queued at once, across modes")] = 10_000,
    seconds: Annotated[float, typer.Option(help="Longest run per configuration")] = 90.0,
    redis_url: Annotated[str | None, typer.Option(help="Redis to use; default: start one")] = None,
) -> None:
    """Matches/s, time to match and rating spread: memory (1 replica), Redis (1 and 2)."""
    from services.platform.localservers import redis_server

    typer.echo(json.dumps(asyncio.run(_run("memory", players, 1, seconds))))
    with redis_server() if redis_url is None else _given(redis_url) as url:
        for replicas in (1, 2):
            typer.echo(json.dumps(asyncio.run(_run(url, players, replicas, seconds))))


class _given:
    """A context manager yielding a given URL."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> str:
        return self.url

    def __exit__(self, *exc: object) -> None:
        return None
