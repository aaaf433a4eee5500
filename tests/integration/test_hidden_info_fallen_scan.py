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

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from tests.support.scan_worker import scan_seeds

GAMES = int(os.environ.get("FALLEN_SCAN_FALLEN_500", "500"))
WORKERS = 2


@pytest.mark.timeout(1800)
def test_no_view_or_feed_of_500_finished_fallen_games_names_a_hidden_card():
    # given GAMES random finished Fallen games, split over two processes
    shares = [list(range(w, GAMES, WORKERS)) for w in range(WORKERS)]
    # when every view and feed is scanned at every append boundary
    # (spawned, not forked: a fork would inherit the test process's threads, signal
    # handlers and open servers; once that stalled a worker on its first game)
    with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(scan_seeds, shares))
    # then no reader ever saw a card hidden from it (scan_game asserts), in every game
    assert sum(n for n, _ in results) == GAMES
    assert sum(c for _, c in results) > GAMES * 1000
