"""Hidden-information scan over 500 random finished Fallen games.

Each game is played to its end through the real GameRunner (in-process dice, SQLite in
memory), then every event of its game, dice and deck streams is folded by the projection
and, at every command boundary, every seat's view, the spectator view and every event of
each seat's feed are serialized and searched for card ids hidden from that reader at that
version (tests/support/hidden_scan.py). Games run in two worker processes (two cores).
FALLEN_SCAN_FALLEN_500 sets the count (default 500).
"""

from __future__ import annotations

import asyncio
import os
import random
from concurrent.futures import ProcessPoolExecutor

from services.kernel.store.sqlite import SqliteEventStore
from services.projections.records import game_streams
from tests.support.hidden_scan import scan_game
from tests.support.projections_play import engines, play, runner_for

GAMES = int(os.environ.get("FALLEN_SCAN_FALLEN_500", "500"))
WORKERS = 2


async def _play_and_scan(seeds: list[int]) -> tuple[int, int]:
    """Play and scan the Fallen games of the given seeds; return (games, checks)."""
    games = engines()
    store = SqliteEventStore(":memory:")
    runner = runner_for(store, games)
    checks = 0
    for seed in seeds:
        gid = f"scan{seed}"
        assert await play(runner, "fallen", gid, random.Random(seed)), gid
        envs = [e for s in game_streams(gid) for e in await store.read(s)]
        checks += scan_game("fallen", gid, sorted(envs, key=lambda e: e.position), games)
    await store.close()
    return len(seeds), checks


def _worker(seeds: list[int]) -> tuple[int, int]:
    """Run one worker's share in its own event loop."""
    return asyncio.run(_play_and_scan(seeds))


def test_no_view_or_feed_of_500_finished_fallen_games_names_a_hidden_card():
    # given GAMES random finished Fallen games, split over two processes
    shares = [list(range(w, GAMES, WORKERS)) for w in range(WORKERS)]
    # when every view and feed is scanned at every command boundary
    with ProcessPoolExecutor(WORKERS) as pool:
        results = list(pool.map(_worker, shares))
    # then no reader ever saw a card hidden from it (scan_game asserts), in every game
    assert sum(n for n, _ in results) == GAMES
    assert sum(c for _, c in results) > GAMES * 1000
