"""The outside verifier (written from the docs) re-derives a real game, and catches forgeries."""

from __future__ import annotations

import copy
import hashlib

import pytest

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.dice.engine import DiceEngine
from services.platform.store.sqlite import SqliteEventStore
from services.projections.cli import rules_of
from services.rules.runner import GameRunner
from tests.support.fair_verifier import rederive
from tests.support.projections_play import rechain

SEATS = {"p1": "ann", "p2": "ben", "p3": "cat"}
SEEDS = {"p1": "a", "p2": "b", "p3": "c"}


@pytest.fixture
async def records(tmp_path) -> list[dict]:
    """Return the audit records of a short three-seat Land game played to its end."""
    store = SqliteEventStore(tmp_path / "v.db")
    runner = GameRunner(store, DiceEngine(store, seed_wait=600))
    loaded, _ = await runner.create(
        "land", "v1", SEATS, {"short_game": True, "max_turns": 1}, client_seeds=SEEDS
    )
    for step in range(3000):
        if loaded.ended:
            break
        pending = loaded.rules.pending(loaded.state)
        legal = loaded.rules.legal_commands(loaded.state, pending.seat)
        pick = int(hashlib.sha256(f"v1:{step}".encode()).hexdigest(), 16) % len(legal)
        loaded, _ = await runner.submit("v1", legal[pick])
    assert loaded.ended
    out = [dict(r) for r in await store_records(store, "v1")]
    await store.close()
    return out


def test_an_honest_log_re_derives_with_every_seat_in_the_seed(records) -> None:
    checked = rederive("v1", records)
    assert checked.seats == ("p1", "p2", "p3") and checked.seeds == SEEDS
    assert checked.draws > 0 and checked.dice > 0 and checked.deck_shuffles > 0
    assert verify_game("v1", records, rules_of).verified


def test_a_changed_seat_seed_is_caught_by_both_verifiers(records) -> None:
    # given a forger who changes p2's recorded seed and rebuilds the dice stream's chain
    forged = copy.deepcopy(records)
    at = next(r for r in forged if r["type"] == "DiceClientSeedSet" and r["data"]["seat"] == "p2")
    at["data"]["seat_seed"] = "forged"
    forged = rechain(forged, "dice-v1")
    # then the draws no longer carry every seat's seed
    with pytest.raises(AssertionError, match="client seed is not every seat's"):
        rederive("v1", forged)
    assert not verify_game("v1", forged, rules_of).dice_ok


def test_a_draw_before_a_seat_seed_is_caught_by_both_verifiers(records) -> None:
    # given a forger who drops p3's seed event (a draw made without p3's seed)
    forged = [
        r
        for r in copy.deepcopy(records)
        if not (r["type"] == "DiceClientSeedSet" and r["data"]["seat"] == "p3")
    ]
    dice = [r for r in forged if r["stream"] == "dice-v1"]
    for n, r in enumerate(dice, start=1):
        r["version"] = n
    forged = rechain(forged, "dice-v1")
    with pytest.raises(AssertionError, match="drawn before every seat had a seed"):
        rederive("v1", forged)
    report = verify_game("v1", forged, rules_of)
    assert not report.dice_ok


def test_a_changed_die_face_is_caught(records) -> None:
    forged = copy.deepcopy(records)
    roll = next(r for r in forged if r["type"] == "DiceRolled")
    die = roll["data"]["dice"][0]
    die["index"] = (die["index"] + 1) % len(die["faces"])
    die["face"] = die["faces"][die["index"]]
    forged = rechain(forged, "dice-v1")
    with pytest.raises(AssertionError):
        rederive("v1", forged)
