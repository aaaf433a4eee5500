"""A cluster on containers: one container of each kind killed (every kind runs two but the relay).

Every rules pool plays games the whole time, each with seats its bots pool plays (`bot:`
players; the Fallen and Worlds games come from matchmaking's `vs_bot` queues), while one
container of every kind of the image (dice, deck, each rules and bots pool, matchmaking,
projections, the faust workers and the relay) is `docker kill`ed, started again and waited
for until healthy, a few seconds after the previous kind. Every game finishes, the views
converge to a rebuild, every audit log verifies and no acknowledged command is lost.
Services added to docker-compose.yml are picked up by the same rules (tests/stack/compose.py);
redis and the stand-in broker (memory storage) are not killed.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from fallen.matchmaking.v1.matchmaking_pb2_grpc import MatchmakingServiceStub
from fallen.projections.v1.projections_pb2_grpc import ProjectionServiceStub
from fallen.rules.v1 import rules_pb2

from services.bots.driver import _md
from services.bots.policies import policy_for
from services.bots.worker import BOT_PLAYER_PREFIX
from services.matchmaking.modes import Mode, load_modes
from services.platform.store.redis import RedisEventStore
from services.rules.pools import POOLS
from tests.stack.checks import audit_report, lost_acks, views_converge
from tests.stack.compose import NOT_SCALED, REDIS_PORT, REPLICAS, Stack, docker
from tests.stack.play import Ack, Replicas, create, matched, play, served_games

LOOPS_PER_POOL = 2  # games played at once on each rules pool, one preferring each replica
KILL_AFTER_ACKS = 20  # the first kill comes once the games are well under way
STAGGER_S = 3.0  # one kind is killed this long after the previous one (outages overlap)
DOWN_S = 2.0
HEALTHY_AGAIN_S = 120.0
CONVERGE_TIMEOUT_S = 180.0

pytestmark = pytest.mark.timeout(600)


def kinds(stack: Stack) -> list[str]:
    """Return the services of the image (each one kind to kill): workers and relay first."""
    image = stack.of_image()
    grpc = set(stack.services_running(""))
    first = [n for n in image if n not in grpc] + [n for n in NOT_SCALED if n in image]
    return [*first, *sorted(n for n in image if n not in first)]


def bot_mode(pool: str, game: str) -> Mode | None:
    """Return the instant matchmaking mode that seats a bot next to one player on a pool."""
    for mode in load_modes().values():
        if mode.pool == pool and mode.game == game and mode.bots and mode.instant:
            return mode
    return None


@dataclass
class Cluster:
    """What the game loops share: endpoints, acks, results and the end of the chaos."""

    stack: Stack
    run: str
    rules: dict[str, Replicas]
    mm: Replicas
    views: Replicas
    acks: list[Ack] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    in_flight: dict[str, str] = field(default_factory=dict)  # loop -> game id
    kills_issued: asyncio.Event = field(default_factory=asyncio.Event)  # no new game after it
    t0: float = field(default_factory=time.monotonic)  # when the games start

    def replicas_of(self, service: str) -> list[Replicas]:
        """Return the test's clients of a service (to repoint after a restart)."""
        by = {"matchmaking": [self.mm], "projections": [self.views]}
        return [self.rules[service]] if service in self.rules else by.get(service, [])


async def one_game(c: Cluster, service: str, game: str, seats: list[str], i: int, n: int) -> dict:
    """Play one game of a rules pool with bots in every seat but one; return its summary."""
    replicas, pool = c.rules[service], c.stack.command_of(service)
    player = f"cl-{c.run}-{service}-{i}-{n}"
    mode = bot_mode(pool, game)
    if mode is not None:  # as a client does: queue, then play where MatchFound says
        match = await matched(c.mm, i, game, mode.name, player)
        assert match.pool == pool, (mode, match)
        game_id = match.game_id
        get = rules_pb2.GetGameRequest(game_id=game_id)
        players = dict((await replicas.call(i, "GetGame", get, _md(player))).seats)
    else:  # the fewest seats (at least two) the pool serves, bots in all but the first
        low, _ = (POOLS.get(pool) or {}).get(game) or (2, len(seats))
        game_id = f"cl{c.run}{service.replace('-', '')}{i}n{n}"
        players = {s: f"{BOT_PLAYER_PREFIX}{game_id}-{s}" for s in seats[: max(low, 2)]}
        players[seats[0]] = player
        await create(replicas, i, game, game_id, players)
    c.in_flight[f"{service}/{i}"] = game_id
    policies = {seat: policy_for(game, "random") for seat in players}
    try:
        return await play(replicas, c.views, i, game, game_id, players, policies, c.acks, True)
    finally:
        c.in_flight.pop(f"{service}/{i}", None)


async def game_loop(c: Cluster, service: str, i: int) -> None:
    """Play games of every kind a rules pool serves, one after another, until the last kill
    (the games in flight then play on while the last containers come back)."""
    kinds_served = sorted((await served_games(c.rules[service])).items())
    n = 0
    while n == 0 or not c.kills_issued.is_set():
        game, seats = kinds_served[n % len(kinds_served)]
        c.results.append(await one_game(c, service, game, seats, i, n))
        n += 1


async def kill(c: Cluster, service: str, delay: float, log: dict[str, str], last: bool) -> None:
    """After delay, kill one container of a service, start it again, wait until healthy."""
    await asyncio.sleep(delay)
    victim = c.stack.containers(service)[0]
    at, playing = len(c.acks), len(c.in_flight)
    when = time.strftime("%H:%M:%S", time.gmtime())  # to match with the containers' logs (UTC)
    start = time.monotonic()
    await asyncio.to_thread(docker, "kill", victim)
    if last:
        c.kills_issued.set()
    await asyncio.sleep(DOWN_S)
    await asyncio.to_thread(docker, "start", victim)
    for client in c.replicas_of(service):  # its port is published anew
        client.repoint(await asyncio.to_thread(c.stack.endpoints, service))
    await asyncio.to_thread(c.stack.wait_container_healthy, victim, HEALTHY_AGAIN_S)
    log[service] = (
        f"{service}: killed at {when} UTC (+{start - c.t0:.0f} s), ack {at}, with {playing} "
        "games in flight, "
        f"healthy again after {time.monotonic() - start:.1f} s"
    )
    print(f"\ncluster: {log[service]}", flush=True)


async def chaos(c: Cluster, order: list[str], log: dict[str, str]) -> None:
    """Kill one container of each kind, STAGGER_S apart; then wait for the whole stack."""
    try:
        waited = time.monotonic()
        while len(c.acks) < KILL_AFTER_ACKS and time.monotonic() - waited < 120:
            await asyncio.sleep(0.1)
        last = len(order) - 1
        await asyncio.gather(
            *(kill(c, s, k * STAGGER_S, log, k == last) for k, s in enumerate(order))
        )
        await asyncio.to_thread(c.stack.wait_healthy)
    finally:
        c.kills_issued.set()


async def bot_moves(redis_port: int, game_ids: list[str]) -> int:
    """Return how many commands of these games the bots pools made (causation `bot:`)."""
    store = RedisEventStore(f"redis://127.0.0.1:{redis_port}/0")
    try:
        ids = set()
        for gid in game_ids:
            ids |= {e.causation_id for e in await store.read(f"game-{gid}")}
        return len({i for i in ids if i.startswith(BOT_PLAYER_PREFIX)})
    finally:
        await store.close()


async def test_killing_one_container_of_each_kind_loses_nothing(stack: Stack):
    # given the stack with two containers of every kind but the relay (conftest), healthy
    order = kinds(stack)
    rules_services = stack.services_running("rules-")
    assert rules_services and len(order) > len(rules_services), order
    await asyncio.to_thread(stack.wait_healthy)
    for name in order:
        assert len(stack.containers(name)) == (1 if name in NOT_SCALED else REPLICAS), name
    (redis,) = stack.endpoints("redis", REDIS_PORT)
    redis_port = int(redis.rsplit(":", 1)[1])
    c = Cluster(
        stack,
        uuid.uuid4().hex[:6],
        {s: Replicas(stack.endpoints(s)) for s in rules_services},
        Replicas(stack.endpoints("matchmaking"), MatchmakingServiceStub),
        Replicas(stack.endpoints("projections"), ProjectionServiceStub),
    )
    kills: dict[str, str] = {}
    # when every rules pool plays games with bots while one container of each kind is
    # killed and started again
    start = c.t0 = time.monotonic()
    loops = [game_loop(c, s, i) for s in rules_services for i in range(LOOPS_PER_POOL)]
    try:
        await asyncio.gather(chaos(c, order, kills), *loops)
    finally:
        for client in [*c.rules.values(), c.mm, c.views]:
            await client.close()
    took = time.monotonic() - start
    checked = time.monotonic()
    played = [r["game_id"] for r in c.results]
    stalled = [r for r in c.results if "stalled" in r]
    # then the views converge to a rebuild
    converge = await views_converge(redis_port, played, CONVERGE_TIMEOUT_S)
    # and every finished game's audit log verifies, and no acknowledged command is lost
    finished = [r["game_id"] for r in c.results if "stalled" not in r]
    projections = stack.endpoints("projections")[0]
    reports = [await audit_report(projections, gid) for gid in finished]
    lost = await lost_acks(redis_port, c.acks)
    moves = await bot_moves(redis_port, played)
    retries = sum(r.retries for r in c.rules.values())
    print(
        f"\ncluster: checks took {time.monotonic() - checked:.1f} s"
        f"\ncluster: {len(finished)} of {len(played)} games finished ({len(rules_services)} "
        f"rules pools x {LOOPS_PER_POOL}), {len(stalled)} stalled {stalled}; "
        f"{len(c.acks)} acknowledged commands and {moves} bot moves in {took:.1f} s; "
        f"{retries} rules, {c.mm.retries} matchmaking and {c.views.retries} view calls "
        f"retried; {len(lost)} acks lost; views = rebuild {converge:.1f} s after the last game"
        "\n  " + "\n  ".join(kills[s] for s in order if s in kills)
    )
    assert [r["game_id"] for r in reports if r["verified"] is not True] == [], reports
    assert lost == []
    assert sorted(kills) == sorted(order)
    assert moves > 0
    # and every game finished (a crash must never leave one waiting for chance: issue 11)
    assert stalled == []
