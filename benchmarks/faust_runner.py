"""Projection lag of the faust runner on a Kafka-protocol broker, at 80% of its maximum.

The path measured is the distributed one: Redis event store -> relay (services/platform/
stream/kafka_relay.py) -> Kafka topics -> faust worker (route, then project) -> views.
Three phases, each with its own store prefix, topics and consumer group:

1. backlog maximum: a backlog of finished Fallen games is appended and relayed first, then
   a worker starts; its rate is the events applied per second from its first applied event
   to the last (the most the worker alone can apply, batches full);
2. live maximum: a fresh worker, the relay running, and other games appended as fast as
   that backlog rate by concurrent appenders; its rate is the events the worker applied
   per second while the appenders, the relay, Redis and the broker ran beside it on the
   same machine (measured from the first applied event to the last). On a machine with
   few cores the backlog rate overstates what the live path sustains: 80% of it was more
   than the worker could apply while the rest of the path ran, so the lag was queueing
   growing through the run (docs/performance.md, fourth pass). The maximum is the lower
   of the two;
3. load: a fresh worker, then the events of other games are appended at a fraction
   (default 0.8) of that maximum by several concurrent appenders, one command's events
   per append (as the rules service appends them); the lag is append-to-view as the
   worker measures it (its status record: p50/p99 of the last 10,000 events);
4. light load: the same at a lighter fraction (default 0.4) with half the games, so the
   path's own lag (cores to spare) can be told from queueing at the heavier load.

During phases 2 and 3 the machine's CPU is sampled (Linux /proc: every core's busy share,
and the worker process's own CPU in cores), so a lag that is queueing for a core can be
told from one the path itself causes.

The events come from pure playouts (services/rules/playout.py), so the appenders cost
little CPU and the load is the worker's.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from benchmarks.broker import broker_hop, relayed
from benchmarks.cpus import CpuMeter, children_named, split_cpus
from services.platform.envelope import NewEvent
from services.platform.games import GAME_CREATED

GAME = "fallen"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120.0


def playouts(games: int, seed: str) -> list[tuple[str, list[list[NewEvent]]]]:
    """Return (game id, appends) of finished games: GameCreated with the setup events, then
    one append per command (its events, chance's answers included)."""
    from services.rules.engine.api import Setup
    from services.rules.playout import play
    from services.rules.registry import load
    from services.rules.runner import to_new_event

    rules = load(GAME)
    seats = {s: f"p-{s}" for s in rules.seats}
    out = []
    for i in range(games):
        gid = f"{seed}g{i}"
        game = play(rules, Setup(seats, {}), f"{seed}{i}", gid)
        events = [to_new_event(e) for e in game.events]
        appends, at = [], 0
        for n in game.batches:
            appends.append(events[at : at + n])
            at += n
        created = NewEvent(GAME_CREATED, {"game": GAME, "seats": seats, "options": {}})
        appends[0] = [created, *appends[0]]
        out.append((gid, appends))
    return out


@contextmanager
def worker(
    bootstrap: str,
    store_url: str,
    views_url: str,
    app_id: str,
    prefix: str,
    cpus: frozenset[int] | None = None,
) -> Iterator[Any]:
    """Run one faust worker of the projection app in its own process (on cpus only, when
    given: every thread it starts inherits them)."""
    cmd = [
        sys.executable, "-m", "services.cli.main", "projections", "faust",
        "--kafka", bootstrap, "--store", store_url, "--views", views_url,
        "--app-id", app_id, "--topic-prefix", prefix,
    ]  # fmt: skip
    pin = None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
        preexec_fn=pin,
    )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


async def applied(views: Any, game_ids: list[str]) -> int:
    """Return how many events the views hold for the games."""
    total = 0
    for gid in game_ids:
        total += int((await views.load_game(gid) or {}).get("events", 0))
    return total


async def wait_until(check: Any, what: str, poll_s: float = 0.02) -> float:
    """Wait until the async check is true; return the time it became so."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if await check():
            return time.perf_counter()
        await asyncio.sleep(poll_s)
    raise TimeoutError(f"timed out waiting for {what}")


class Phase:
    """One store prefix, topic prefix, consumer group and view store, with its relay."""

    def __init__(
        self,
        redis_url: str,
        bootstrap: str,
        tmp: str,
        name: str,
        cpus: frozenset[int] | None = None,
        others: dict[str, int] | None = None,
    ) -> None:
        from services.platform.store.redis import RedisEventStore
        from services.platform.stream.kafka_relay import KafkaRelay
        from services.projections.open_views import open_view_store

        tag = f"{name}{time.time_ns()}"
        self.store = RedisEventStore(redis_url, prefix=f"benchfaust{tag}")
        self.store_url = f"{redis_url}?prefix=benchfaust{tag}"
        self.views_url = f"sqlite:///{os.path.join(tmp, f'{tag}.db')}"
        self.views = open_view_store(self.views_url)
        self.topics = f"bench{tag}.events."
        self.app_id = f"benchfaust-{tag}"
        self.bootstrap = bootstrap
        self.cpus = cpus  # the worker's own cores (None: it shares every core)
        # the other processes of the path on this machine, whose CPU the load phases meter
        self.others: dict[str, int] = {"bench": os.getpid(), **(others or {})}
        self.relay = KafkaRelay(self.store, bootstrap, topic_prefix=self.topics)
        self.stop = asyncio.Event()
        self.relaying: asyncio.Task[None] | None = None

    def worker(self) -> Any:
        """Return the context of this phase's faust worker."""
        return worker(
            self.bootstrap, self.store_url, self.views_url, self.app_id, self.topics, self.cpus
        )

    def start_relay(self) -> None:
        """Relay the store to Kafka from now on (woken by each append)."""
        self.relaying = asyncio.create_task(self.relay.run_forever(self.stop))

    async def status(self) -> dict[str, Any]:
        """Return the status record of the worker that applied the most events."""
        items = await self.views.meta_items("status:faust:")
        records = [json.loads(raw) for raw in items.values()]
        return max(records, key=lambda r: r.get("applied", 0)) if records else {}

    async def close(self) -> None:
        """Stop the relay and close the stores."""
        self.stop.set()
        if self.relaying is not None:
            await self.relaying
        await self.relay.close()
        await self.views.close()
        await self.store.close()


async def append_game(store: Any, gid: str, appends: list[list[NewEvent]]) -> int:
    """Append a game's events as fast as the store takes them; return how many."""
    version = 0
    for events in appends:
        version = (await store.append(f"game-{gid}", version, events)).version
    return version


async def max_rate(phase: Phase, games: list[tuple[str, list[list[NewEvent]]]]) -> float:
    """Return events/s the worker applies from a relayed backlog."""
    totals = await asyncio.gather(*(append_game(phase.store, g, a) for g, a in games))
    while await phase.relay.run_once():
        pass  # the backlog is on the topics before the worker starts
    ids, total = [g for g, _ in games], sum(totals)
    with phase.worker():
        first = await wait_until(lambda: _some(phase.views, ids), "the first applied event")
        start_count = await applied(phase.views, ids)
        last = await wait_until(
            lambda: _all(phase.views, ids, total), "the backlog applied", poll_s=0.01
        )
    return (total - start_count) / max(last - first, 1e-6)


async def _some(views: Any, ids: list[str]) -> bool:
    return await applied(views, ids) > 0


async def _all(views: Any, ids: list[str], total: int) -> bool:
    return await applied(views, ids) >= total


async def paced(
    phase: Phase, games: list[tuple[str, list[list[NewEvent]]]], rate: float, appenders: int
) -> tuple[float, dict[str, Any]]:
    """Append the games' events at rate events/s over concurrent appenders (each plays
    its own games in turn); return the achieved rate and the worker's status after, with
    ``applied_per_s``: events the worker applied per second, first to last."""
    ids = [g for g, _ in games]
    per = rate / appenders
    with phase.worker() as proc:
        phase.start_relay()
        warm = NewEvent(GAME_CREATED, {"game": "none", "seats": {}, "options": {}})
        await phase.store.append("game-warmup", 0, [warm])  # the worker is live once it
        await wait_until(lambda: _some(phase.views, ["warmup"]), "the worker to join")
        meter = CpuMeter({"worker": proc.pid, **phase.others})
        meter.start()
        start = time.perf_counter()
        first = asyncio.ensure_future(wait_until(lambda: _some(phase.views, ids), "a view"))

        async def appender(k: int) -> int:
            sent, t0 = 0, time.perf_counter()
            for gid, appends in games[k::appenders]:
                version = 0
                for events in appends:
                    version = (await phase.store.append(f"game-{gid}", version, events)).version
                    sent += len(events)
                    ahead = sent / per - (time.perf_counter() - t0)
                    if ahead > 0:
                        await asyncio.sleep(ahead)
            return sent

        total = sum(await asyncio.gather(*(appender(k) for k in range(appenders))))
        took = time.perf_counter() - start
        last = await wait_until(lambda: _all(phase.views, ids, total), "the load applied")
        cpu = meter.stop()
        applied_from = await first
        await asyncio.sleep(1.5)  # the worker writes its status every second
        status = await phase.status()
    status["applied_per_s"] = total / max(last - applied_from, 1e-6)
    status.update(cpu)
    return total / took, status


def cores_of(status: dict[str, Any]) -> dict[str, float]:
    """Return {process: cores} of a phase's CPU figures ("worker", "broker", ...)."""
    tail = "_cpu_cores"
    return {k.removesuffix(tail): float(v) for k, v in status.items() if k.endswith(tail)}


def local_redis_pid(redis_url: str) -> tuple[int, ...]:
    """Return the pid of the Redis server at redis_url when it runs on this machine."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        host = str(client.connection_pool.connection_kwargs.get("host", ""))
        if host not in ("localhost", "127.0.0.1", "::1"):
            return ()
        return (int(client.info("server")["process_id"]),)
    finally:
        client.close()


async def faust_lag(
    redis_url: str,
    backlog_games: int = 4,
    load_games: int = 8,
    fraction: float = 0.8,
    light_fraction: float = 0.4,
    isolate: bool = False,
) -> dict[str, Any]:
    """Return the faust runner's maximum rate and its lag at fraction of it, and (unless
    light_fraction is 0) at that lighter fraction with half the games: the path's own
    floor, with cores to spare. With ``isolate`` the worker runs on a core of its own and
    the appenders, the relay, the broker and a local Redis on the others (cpus.py)."""
    from services.platform.localservers import kafka_broker

    backlog = playouts(backlog_games, "max")
    live = playouts(backlog_games, "live")
    load = playouts(load_games, "load")
    with ExitStack() as stack:
        redis_pid = local_redis_pid(redis_url)
        split = stack.enter_context(split_cpus(redis_pid)) if isolate else None
        cpus = split.worker if split is not None else None
        bootstrap = stack.enter_context(kafka_broker())
        others = dict(
            [("redis", pid) for pid in redis_pid] + [("broker", p) for p in children_named("tansu")]
        )
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="fallen-faust-"))
        first = Phase(redis_url, bootstrap, tmp, "max", cpus, others)
        try:
            backlog_max = await max_rate(first, backlog)
        finally:
            await first.close()
        second = Phase(redis_url, bootstrap, tmp, "live", cpus, others)
        try:
            _, saturated = await paced(second, live, backlog_max, appenders=4)
        finally:
            await second.close()
        maximum = min(backlog_max, float(saturated["applied_per_s"]))
        third = Phase(redis_url, bootstrap, tmp, "load", cpus, others)
        try:
            achieved, status = await paced(third, load, fraction * maximum, appenders=4)
        finally:
            await third.close()
        hop = await broker_hop(bootstrap, relayed(load), achieved)
        light: dict[str, Any] = {}
        if light_fraction > 0:
            fourth = Phase(redis_url, bootstrap, tmp, "light", cpus, others)
            try:
                _, light = await paced(
                    fourth, load[: max(1, len(load) // 2)], light_fraction * maximum, appenders=4
                )
            finally:
                await fourth.close()
    return {
        "backlog_max_events_per_s": backlog_max,
        "live_max_events_per_s": float(saturated["applied_per_s"]),
        "live_max_lag_p99_ms": 1000 * float(saturated.get("lag_p99_s", 0.0)),
        "max_events_per_s": maximum,
        "target_events_per_s": fraction * maximum,
        "achieved_events_per_s": achieved,
        "lag_p50_ms": 1000 * float(status.get("lag_p50_s", 0.0)),
        "lag_p99_ms": 1000 * float(status.get("lag_p99_s", 0.0)),
        "events": int(status.get("applied", 0)),
        "load_machine_cpu_busy": status.get("machine_cpu_busy"),
        "load_worker_cpu_cores": status.get("worker_cpu_cores"),
        "live_max_machine_cpu_busy": saturated.get("machine_cpu_busy"),
        "live_max_worker_cpu_cores": saturated.get("worker_cpu_cores"),
        "light_fraction": light_fraction,
        "light_lag_p50_ms": 1000 * float(light.get("lag_p50_s", 0.0)) if light else None,
        "light_lag_p99_ms": 1000 * float(light.get("lag_p99_s", 0.0)) if light else None,
        "light_machine_cpu_busy": light.get("machine_cpu_busy"),
        "worker_cores": sorted(cpus) if cpus is not None else None,
        "load_stages": status.get("stages", {}),
        "broker_hop_p50_ms": 1000 * float(hop["hop_p50_s"]),
        "broker_hop_p99_ms": 1000 * float(hop["hop_p99_s"]),
        "load_cpu_cores": cores_of(status),
        "light_stages": light.get("stages", {}),
        "light_cpu_cores": cores_of(light),
    }
