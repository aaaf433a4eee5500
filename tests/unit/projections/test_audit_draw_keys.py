"""A draw no decision used, a second draw for one decision, re-keyed and reordered draws:
each makes `verified` false and names the dice stream, version and nonce, even when the
forger keeps every hash chain correct and every die re-derives from the revealed seed."""

from __future__ import annotations

from typing import Any

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.dice.engine import roll_event
from services.platform.store.sqlite import SqliteEventStore
from tests.support.projections_play import engines, finished_game, rechain

RULES_OF = engines().get


async def toy_records(seed: int = 3) -> list[dict[str, Any]]:
    """Return the audit records of one finished toy game (g1)."""
    store = SqliteEventStore(":memory:")
    await finished_game(store, "toy", "g1", seed)
    records = await store_records(store, "g1")
    await store.close()
    return records


def dice_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the dice stream's records."""
    return [r for r in records if r["stream"] == "dice-g1"]


def with_forged_draw(records: list[dict[str, Any]], key: str) -> tuple[list[dict[str, Any]], int]:
    """Return records with one more honest-looking d6 roll before the seed's reveal (nonce
    next, dice re-derived from the revealed seed, chain recomputed) and the new nonce."""
    dice = dice_of(records)
    reveal = next(r for r in dice if r["type"] == "DiceSeedRevealed")
    seed = bytes.fromhex(reveal["data"]["server_seed"])
    draws = [r for r in dice if r["type"] in ("DiceRolled", "DiceShuffleDrawn")]
    nonce = len(draws)
    client_seed = draws[0]["data"]["client_seed"]
    data = roll_event("g1", seed, client_seed, nonce, "toy", ["d6"], key)
    forged = {**reveal, "type": "DiceRolled", "data": data, "visibility": "public"}
    out: list[dict[str, Any]] = []
    shift = 0
    for r in records:
        if r is reveal:
            out.append(forged)
            shift = 1
            out.append({**r, "version": r["version"] + 1, "position": r["position"] + 1})
        else:
            out.append({**r, "position": r["position"] + shift})
    return rechain(out, "dice-g1"), nonce


async def test_given_an_honest_game_then_every_draw_is_keyed_and_used():
    records = await toy_records()
    draws = [r for r in dice_of(records) if r["type"] in ("DiceRolled", "DiceShuffleDrawn")]
    assert draws and all(r["data"]["key"].startswith("game-g1@") for r in draws)
    report = verify_game("g1", records, RULES_OF)
    assert report.verified and report.unused_draws == ()


async def test_given_an_unused_draw_with_a_correct_chain_then_verified_is_false():
    # given a finished game whose dice stream gains a roll keyed to a decision that was no
    # chance decision (the GameCreated version), hash chain recomputed
    records = await toy_records()
    forged, nonce = with_forged_draw(records, "game-g1@1")
    # when verified
    report = verify_game("g1", forged, RULES_OF)
    # then it fails and names the dice stream, the draw's version and its nonce
    assert report.chain_ok and not report.verified and not report.dice_ok
    assert nonce in report.unused_draws
    named = [m for m in report.mismatches if m.stream == "dice-g1"]
    assert any(f"nonce {nonce}" in m.what and "no decision used it" in m.what for m in named)
    forged_version = next(r["version"] for r in forged if r["data"].get("nonce") == nonce)
    assert any(m.version == forged_version for m in named)


async def test_given_a_second_draw_for_one_decision_then_it_is_named_as_a_repeat():
    records = await toy_records()
    first_key = next(r["data"]["key"] for r in dice_of(records) if r["type"] == "DiceRolled")
    forged, nonce = with_forged_draw(records, first_key)
    report = verify_game("g1", forged, RULES_OF)
    assert report.chain_ok and not report.verified
    assert any(f"nonce {nonce}: repeats key" in m.what for m in report.mismatches)


async def test_given_two_draws_whose_keys_are_swapped_then_the_decisions_do_not_follow():
    records = await toy_records(seed=5)
    rolls = [i for i, r in enumerate(records) if r["type"] == "DiceRolled"]
    assert len(rolls) >= 2
    a, b = rolls[0], rolls[1]
    forged = [dict(r) for r in records]
    ka, kb = records[a]["data"]["key"], records[b]["data"]["key"]
    forged[a] = {**forged[a], "data": {**records[a]["data"], "key": kb}}
    forged[b] = {**forged[b], "data": {**records[b]["data"], "key": ka}}
    report = verify_game("g1", rechain(forged, "dice-g1"), RULES_OF)
    assert report.chain_ok and not report.verified
    assert any("out of decision order" in m.what for m in report.mismatches)


async def test_given_a_draw_keyed_to_another_game_then_it_is_named():
    records = await toy_records()
    forged, nonce = with_forged_draw(records, "game-other@3")
    report = verify_game("g1", forged, RULES_OF)
    assert not report.verified
    assert any(f"nonce {nonce}: key 'game-other@3' names no decision" in m.what
               for m in report.mismatches)  # fmt: skip
