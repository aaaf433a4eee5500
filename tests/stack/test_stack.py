"""The compose stack as an operator runs it: healthy, plays bot games, views and audit hold."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from fallen.projections.v1.projections_pb2_grpc import ProjectionServiceStub

from services.bots.policies import policy_for
from services.rules.pools import POOLS
from tests.stack.checks import audit_report, lost_acks, views_converge
from tests.stack.compose import REDIS_PORT, Stack
from tests.stack.play import Ack, Replicas, play, served_games

GAMES_PER_KIND = 1
CONVERGE_TIMEOUT_S = 90.0

pytestmark = pytest.mark.timeout(600)


def seat_count(stack: Stack, service: str, game: str, seats: list[str]) -> int:
    """Return the most seats of `game` the service's rules pool serves (services/rules/pools.py:
    rules-land 1-5 of land's 6 seats, rules-land-epic 6), all it lists if not limited."""
    spec = POOLS.get(stack.command_of(service)) or {}
    low, high = spec.get(game) or (1, len(seats))
    assert low <= len(seats), (service, game, seats)
    return min(high, len(seats))


async def play_service(
    stack: Stack, service: str, views: Replicas, run: str, acks: list[Ack]
) -> list[dict[str, Any]]:
    """Bots play GAMES_PER_KIND games of every kind a rules service serves, through its port."""
    replicas = Replicas(stack.endpoints(service))
    try:
        kinds = await served_games(replicas)
        assert kinds, f"{service} serves no game"
        games = []
        for game, seats in sorted(kinds.items()):
            n = seat_count(stack, service, game, seats)
            for i in range(GAMES_PER_KIND):
                gid = f"st{run}{service.replace('-', '')}{game}{i}"
                players = {seat: f"bot-{seat}-{gid}" for seat in seats[:n]}
                policies = {seat: policy_for(game, "random") for seat in seats[:n]}
                first = len(games)  # the games of a service start on its replicas in turn
                games.append(play(replicas, views, first, game, gid, players, policies, acks))
        return list(await asyncio.gather(*games))
    finally:
        await replicas.close()


async def test_every_rules_service_plays_bot_games_whose_views_and_audit_hold(stack: Stack):
    # given the healthy stack and every rules-* service it publishes
    rules_services = stack.services_running("rules-")
    assert rules_services, "the compose file runs no rules-* service"
    projections = stack.endpoints("projections")
    views = Replicas(projections, ProjectionServiceStub)
    (redis,) = stack.endpoints("redis", REDIS_PORT)
    redis_port = int(redis.rsplit(":", 1)[1])
    run = uuid.uuid4().hex[:6]
    acks: list[Ack] = []
    # when bots play games of every kind each service serves, through the published ports
    # (all services at once; a pool's games with the most seats it serves)
    start = time.monotonic()
    try:
        per_service = await asyncio.gather(
            *(play_service(stack, service, views, run, acks) for service in rules_services)
        )
    finally:
        await views.close()
    results = [r for rs in per_service for r in rs]
    assert [r for r in results if "stalled" in r] == []
    played = [r["game_id"] for r in results]
    took_play = time.monotonic() - start
    # then every game ended, and the faust workers' views equal a rebuild from the store
    took = await views_converge(redis_port, played, CONVERGE_TIMEOUT_S)
    print(
        f"\nstack: {len(played)} games, {len(acks)} commands in {took_play:.1f} s; "
        f"views = rebuild after {took:.1f} s"
    )
    # and every audit log read through the projections service verifies
    for gid in played:
        report = await audit_report(projections[0], gid)
        assert report["verified"] is True, report
    # and every acknowledged command is in the store
    assert await lost_acks(redis_port, acks) == []
