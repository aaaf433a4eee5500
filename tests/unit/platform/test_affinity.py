"""Game affinity over a pool's replicas (services/platform/grpcx/affinity.py)."""

from __future__ import annotations

import asyncio
from collections import Counter

from services.platform.grpcx.affinity import AffinityChannels, owner, replica_addresses

REPLICAS = ["10.0.0.1:50051", "10.0.0.2:50051", "10.0.0.3:50051"]
GAMES = [f"g{n:016x}" for n in range(600)]


def test_games_spread_over_every_replica_and_a_game_always_has_the_same_one() -> None:
    shares = Counter(owner(g, REPLICAS) for g in GAMES)
    assert set(shares) == set(REPLICAS) and min(shares.values()) > 600 / 3 * 0.7
    assert all(owner(g, REPLICAS) == owner(g, list(reversed(REPLICAS))) for g in GAMES)


def test_a_replica_that_goes_moves_only_its_own_games() -> None:
    # given three replicas, when the third goes away
    before = {g: owner(g, REPLICAS) for g in GAMES}
    after = {g: owner(g, REPLICAS[:2]) for g in GAMES}
    # then only the games the third replica held move
    moved = {g for g in GAMES if before[g] != after[g]}
    assert moved == {g for g in GAMES if before[g] == REPLICAS[2]}


def test_an_ipv4_target_lists_its_replicas_and_a_name_resolves() -> None:
    assert replica_addresses("ipv4:127.0.0.1:2,127.0.0.1:1") == ["127.0.0.1:1", "127.0.0.1:2"]
    assert replica_addresses("dns:///localhost:7000") in (
        ["127.0.0.1:7000"],
        ["127.0.0.1:7000", "[::1]:7000"],
        ["[::1]:7000"],
    )


def test_stubs_follow_the_replicas_the_name_resolves_to() -> None:
    answers = [REPLICAS, REPLICAS[:1]]

    def resolve(target: str) -> list[str]:
        return answers[0]

    async def run() -> tuple[object, object, object]:
        pool = AffinityChannels("dns:///rules:50051", lambda channel: channel, resolve)
        game = next(g for g in GAMES if owner(g, REPLICAS) != REPLICAS[0])
        first = pool.stub(game)
        again = pool.stub(game)
        answers.pop(0)  # the game's replica leaves
        pool._resolved_at = -1e9  # the next call resolves again
        moved = pool.stub(game)
        await pool.close()
        return first, again, moved

    first, again, moved = asyncio.run(run())
    # then a game keeps its channel while its replica is there, and moves when it goes
    assert first is again and moved is not first


def test_a_refresh_resolves_the_name_again_on_the_next_call() -> None:
    calls: list[str] = []

    def resolve(target: str) -> list[str]:
        calls.append(target)
        return REPLICAS

    async def run() -> None:
        pool = AffinityChannels("dns:///rules:50051", lambda channel: channel, resolve)
        pool.stub(GAMES[0])
        pool.stub(GAMES[1])  # within REFRESH_S: no new lookup
        pool.refresh()  # e.g. a call met UNAVAILABLE
        pool.stub(GAMES[0])
        await pool.close()

    asyncio.run(run())
    assert len(calls) == 2
