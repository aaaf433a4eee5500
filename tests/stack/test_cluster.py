"""A cluster on containers: pools scaled to two, one container of each kind killed mid-game.

Every game finishes, the views converge to a rebuild, every audit log verifies and no
acknowledged command is lost. Kinds killed: every scaled pool (rules-* services and the
workers of the image) and the relay; services added to docker-compose.yml are picked up
by the same rules (tests/stack/compose.py).
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from fallen.projections.v1.projections_pb2_grpc import ProjectionServiceStub

from services.bots.policies import policy_for
from tests.stack.checks import audit_report, lost_acks, views_converge
from tests.stack.compose import REDIS_PORT, Stack, docker
from tests.stack.play import Ack, Replicas, play, served_games

GAMES = 2  # one per rules replica
KILL_AFTER_ACKS = 20  # the first kill comes once the games are well under way
DOWN_S = 2.0
CONVERGE_TIMEOUT_S = 180.0

pytestmark = pytest.mark.timeout(900)


def pools(stack: Stack) -> list[str]:
    """Return the services scaled to two: rules-* and the image's workers (no gRPC)."""
    out = stack.services_running("rules-")
    for name, svc in stack.config["services"].items():
        test = " ".join(map(str, (svc.get("healthcheck") or {}).get("test") or []))
        if str(svc.get("image", "")).startswith("fallen-backend") and "heartbeat" in test:
            out.append(name)
    return sorted(out)


def players(run: str, i: int, seats: list[str]) -> dict[str, str]:
    """Return seat -> player id of the i-th game of a run."""
    return {s: f"bot-{s}-{run}-{i}" for s in seats}


async def chaos(stack: Stack, kinds: list[str], acks: list[Ack], log: list[str]) -> None:
    """Kill one container of each kind (docker kill), start it again, wait until healthy."""
    waited = time.monotonic()
    while len(acks) < KILL_AFTER_ACKS and time.monotonic() - waited < 60:
        await asyncio.sleep(0.1)
    for service in kinds:
        victim = stack.containers(service)[0]
        at = len(acks)
        start = time.monotonic()
        await asyncio.to_thread(docker, "kill", victim)
        await asyncio.sleep(DOWN_S)
        await asyncio.to_thread(docker, "start", victim)
        await asyncio.to_thread(stack.wait_healthy)
        log.append(
            f"{service}: killed at ack {at}, healthy again after {time.monotonic() - start:.1f} s"
        )
        print(f"\ncluster: {log[-1]}", flush=True)


async def test_killing_one_container_of_each_kind_loses_nothing(stack: Stack):
    # given the stack scaled to two replicas of every pool, healthy
    scaled = pools(stack)
    assert any(s.startswith("rules-") for s in scaled) and len(scaled) >= 2, scaled
    await asyncio.to_thread(stack.up, {name: 2 for name in scaled})
    await asyncio.to_thread(stack.wait_healthy)
    (rules_service, *_) = [s for s in scaled if s == "rules-fallen"] or scaled
    replicas = Replicas(stack.endpoints(rules_service))
    assert len(replicas.endpoints) == 2
    (projections,) = stack.endpoints("projections")
    views = Replicas([projections], ProjectionServiceStub)
    (redis,) = stack.endpoints("redis", REDIS_PORT)
    redis_port = int(redis.rsplit(":", 1)[1])
    run = uuid.uuid4().hex[:6]
    seats = (await served_games(replicas))["fallen"]
    policies = {seat: policy_for("fallen", "random") for seat in seats}
    acks: list[Ack] = []
    kills: list[str] = []
    workers = [s for s in scaled if not s.startswith("rules-")]
    kinds = [*workers, "relay", *[s for s in scaled if s.startswith("rules-")]]
    # when bots play games on both replicas while one container of each kind is killed
    start = time.monotonic()
    games = [
        play(replicas, views, i, "fallen", f"cl{run}g{i}", players(run, i, seats), policies, acks)
        for i in range(GAMES)
    ]
    try:
        results, _ = await asyncio.gather(asyncio.gather(*games), chaos(stack, kinds, acks, kills))
    finally:
        await replicas.close()
        await views.close()
    played = [r["game_id"] for r in results]
    stalled = [r for r in results if "stalled" in r]
    took = time.monotonic() - start
    # then the views converge to a rebuild
    converge = await views_converge(redis_port, played, CONVERGE_TIMEOUT_S)
    # and every finished game's audit log verifies, and no acknowledged command is lost
    finished = [r["game_id"] for r in results if "stalled" not in r]
    reports = [await audit_report(projections, gid) for gid in finished]
    lost = await lost_acks(redis_port, acks)
    print(
        f"\ncluster: {len(finished)} of {len(played)} games finished, {len(stalled)} stalled "
        f"{stalled}; {len(acks)} acknowledged commands in {took:.1f} s, "
        f"{replicas.retries} rules and {views.retries} view calls retried, {len(lost)} acks "
        f"lost; views = rebuild {converge:.1f} s after the last game\n  " + "\n  ".join(kills)
    )
    assert [r["game_id"] for r in reports if r["verified"] is not True] == [], reports
    assert lost == []
    assert len(kills) == len(kinds)
    # and every game finished (a crash must never leave one waiting for chance: issue 11)
    assert stalled == []
