"""The compose stack as an operator runs it: healthy, plays bot games, views and audit hold."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from fallen.projections.v1.projections_pb2_grpc import ProjectionServiceStub

from services.bots.policies import policy_for
from tests.stack.checks import audit_report, lost_acks, views_converge
from tests.stack.compose import REDIS_PORT, Stack
from tests.stack.play import Ack, CreateRefused, Replicas, play, served_games

GAMES_PER_KIND = 1
CONVERGE_TIMEOUT_S = 90.0

pytestmark = pytest.mark.timeout(900)


async def play_any(
    replicas: Replicas, views: Replicas, game: str, gid: str, seats: list[str], acks: list[Ack]
) -> dict[str, Any]:
    """Play a game with every seat ListGames names, or with fewer when CreateGame refuses
    the seat count (e.g. rules-land serves 2-5 of land's 6 seats). Any other error, also
    one of a later command, fails the test as it is."""
    refused = []
    for n in range(len(seats), 1, -1):
        players = {seat: f"bot-{seat}-{gid}" for seat in seats[:n]}
        policies = {seat: policy_for(game, "random") for seat in seats[:n]}
        try:
            return await play(replicas, views, 0, game, gid, players, policies, acks)
        except CreateRefused as err:
            if "seats" not in err.details:
                raise
            refused.append(f"{n} seats: {err.details}")
    raise AssertionError(f"{game}: no seat count accepted: {refused}")


async def test_every_rules_service_plays_bot_games_whose_views_and_audit_hold(stack: Stack):
    # given the healthy stack and every rules-* service it publishes
    rules_services = stack.services_running("rules-")
    assert rules_services, "the compose file runs no rules-* service"
    (projections,) = stack.endpoints("projections")
    views = Replicas([projections], ProjectionServiceStub)
    (redis,) = stack.endpoints("redis", REDIS_PORT)
    redis_port = int(redis.rsplit(":", 1)[1])
    run = uuid.uuid4().hex[:6]
    played: list[str] = []
    acks: list[Ack] = []
    # when bots play games of every kind each service serves, through the published ports
    for service in rules_services:
        replicas = Replicas(stack.endpoints(service))
        try:
            kinds = await served_games(replicas)
            assert kinds, f"{service} serves no game"
            games = []
            for game, seats in sorted(kinds.items()):
                for i in range(GAMES_PER_KIND):
                    gid = f"st{run}{service.replace('-', '')}{game}{i}"
                    games.append(play_any(replicas, views, game, gid, seats, acks))
            results = await asyncio.gather(*games)
        finally:
            await replicas.close()
        assert [r for r in results if "stalled" in r] == []
        played += [r["game_id"] for r in results]
    await views.close()
    # then every game ended, and the faust workers' views equal a rebuild from the store
    took = await views_converge(redis_port, played, CONVERGE_TIMEOUT_S)
    print(f"\nstack: {len(played)} games, {len(acks)} commands; views = rebuild after {took:.1f} s")
    # and every audit log read through the projections service verifies
    for gid in played:
        report = await audit_report(projections, gid)
        assert report["verified"] is True, report
    # and every acknowledged command is in the store
    assert await lost_acks(redis_port, acks) == []
