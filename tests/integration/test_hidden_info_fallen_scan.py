"""Hidden-information scan over 500 random finished Fallen games.

Each game is a seeded random legal playout of the pure engine (chance from the fair
scheme), stored as the rules runner would store it: GameCreated, one append per command,
GameEnded (tests/support/pure_log.py). The projection folds that log and, at every append
boundary, every seat's view, the spectator view and every event of each seat's feed are
searched for card ids hidden from that reader at that version (tests/support/hidden_scan.py).
Dice and deck streams are left out: Fallen draws no cards through the deck service, and
dice events carry faces, not cards; test_projections_hidden_info.py scans games played
through the real runner, all streams included. Two worker processes (two cores).
FALLEN_SCAN_FALLEN_500 sets the count (default 500).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from services.rules.fallen import RULES
from tests.support.hidden_scan import scan_game
from tests.support.pure_log import played_log

GAMES = int(os.environ.get("FALLEN_SCAN_FALLEN_500", "500"))
WORKERS = 2


def _worker(seeds: list[int]) -> tuple[int, int]:
    """Play and scan the Fallen games of the given seeds; return (games, checks)."""
    checks = 0
    for seed in seeds:
        gid = f"scan{seed}"
        checks += scan_game(
            "fallen", gid, played_log(RULES, gid, f"scan-{seed}"), {"fallen": RULES}
        )
    return len(seeds), checks


@pytest.mark.timeout(1800)
def test_no_view_or_feed_of_500_finished_fallen_games_names_a_hidden_card():
    # given GAMES random finished Fallen games, split over two processes
    shares = [list(range(w, GAMES, WORKERS)) for w in range(WORKERS)]
    # when every view and feed is scanned at every append boundary
    with ProcessPoolExecutor(WORKERS) as pool:
        results = list(pool.map(_worker, shares))
    # then no reader ever saw a card hidden from it (scan_game asserts), in every game
    assert sum(n for n, _ in results) == GAMES
    assert sum(c for _, c in results) > GAMES * 1000
