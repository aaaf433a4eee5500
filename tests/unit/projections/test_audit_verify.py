"""Verification of a finished game's log: chains, dice, shuffles, state replay, upcasting."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from services.audit.logfile import parse_jsonl, store_records, to_jsonl
from services.audit.verify import verify_game
from services.deck.engine import DeckEngine
from services.platform.decision import decision_key
from services.platform.store.sqlite import SqliteEventStore
from services.projections import core
from services.projections.records import record_envelope
from tests.support.projections_play import (
    advance,
    engines,
    finished_game,
    play,
    rechain,
    runner_for,
)
from tests.support.toy_game import ToyRules

GAMES = sorted(engines())
RULES_OF = engines().get


async def records_of(game: str, game_id: str = "g1", seed: int = 3) -> list[dict[str, Any]]:
    """Return the audit records of one finished game."""
    store = SqliteEventStore(":memory:")
    await finished_game(store, game, game_id, seed)
    records = await store_records(store, game_id)
    await store.close()
    return records


def first(records: list[dict[str, Any]], type_: str) -> int:
    """Return the index of the first record of a type."""
    return next(i for i, r in enumerate(records) if r["type"] == type_)


@pytest.mark.parametrize("game", GAMES)
async def test_given_a_finished_game_when_verified_then_every_check_passes(game):
    records = await records_of(game)
    report = verify_game("g1", records, RULES_OF)
    assert report.verified, report.mismatch
    assert report.final_state_hash == report.live_state_hash != ""
    assert report.events == len(records) and report.unused_draws == ()


async def test_given_an_exported_log_with_one_byte_edited_then_the_edited_event_is_named():
    records = await records_of("toy")
    text = to_jsonl(records)
    i = first(records, "Rolled")
    # given one byte of the Rolled event's value changed in the exported text
    line_start = sum(len(line) + 1 for line in text.splitlines()[:i])
    at = text.index('"value":', line_start) + len('"value":')
    digit = text[at]
    edited = text[:at] + ("6" if digit != "6" else "5") + text[at + 1 :]
    # when the edited log is verified
    recs, problems = parse_jsonl(edited)
    report = verify_game("g1", recs, RULES_OF, problems=problems)
    # then verification fails at exactly that event of the game stream
    assert not report.verified and not report.chain_ok
    m = report.mismatch
    assert (m.stream, m.version) == (records[i]["stream"], records[i]["version"])
    assert "hash" in m.what


async def test_given_a_byte_that_breaks_the_json_then_the_line_and_event_are_named():
    records = await records_of("toy")
    lines = to_jsonl(records).splitlines()
    i = first(records, "CardDealt")
    lines[i] = lines[i].replace("{", "[", 1)
    recs, problems = parse_jsonl("\n".join(lines))
    report = verify_game("g1", recs, RULES_OF, problems=problems)
    assert not report.verified
    assert (report.mismatch.stream, report.mismatch.version) == (
        records[i]["stream"],
        records[i]["version"],
    )
    assert f"line {i + 1}" in report.mismatch.what


async def test_given_a_flipped_die_then_the_chain_fails_and_a_rechained_forgery_fails_the_dice():
    records = await records_of("toy")
    i = first(records, "DiceRolled")
    flipped = [dict(r) for r in records]
    data = json.loads(json.dumps(flipped[i]["data"]))
    face = data["dice"][0]["face"]
    new = "6" if face != "6" else "1"
    data["dice"][0]["face"] = data["results"][0] = new
    data["dice"][0]["index"] = int(new) - 1
    flipped[i]["data"] = data
    where = (records[i]["stream"], records[i]["version"])
    # when only the die is flipped, the hash chain names the event
    plain = verify_game("g1", flipped, RULES_OF)
    assert not plain.verified and not plain.chain_ok
    assert (plain.mismatch.stream, plain.mismatch.version) == where
    # when the forger also recomputes the chain, re-deriving from the seed names it
    forged = verify_game("g1", rechain(flipped, records[i]["stream"]), RULES_OF)
    assert forged.chain_ok and not forged.dice_ok and not forged.verified
    assert (forged.mismatch.stream, forged.mismatch.version) == where
    assert "DiceRolled nonce" in forged.mismatch.what and "seed gives" in forged.mismatch.what


async def test_given_a_game_roll_that_disagrees_with_the_dice_then_replay_names_it():
    records = await records_of("toy")
    i = first(records, "Rolled")
    forged = [dict(r) for r in records]
    # a value no draw of this game gave (so no other draw can explain it)
    rolled = {int(r["data"]["results"][0]) for r in records if r["type"] == "DiceRolled"}
    value = next((v for v in range(1, 7) if v not in rolled), 7)
    forged[i]["data"] = {**forged[i]["data"], "value": value}
    report = verify_game("g1", rechain(forged, records[i]["stream"]), RULES_OF)
    assert report.chain_ok and report.dice_ok and not report.state_ok and not report.verified
    assert (report.mismatch.stream, report.mismatch.version) == (
        records[i]["stream"],
        records[i]["version"],
    )
    assert "does not follow from dice nonce" in report.mismatch.what


async def test_given_two_events_reordered_then_the_first_out_of_place_is_named():
    records = await records_of("toy")
    i = first(records, "RollAsked")
    j = (
        i
        + 1
        + next(k for k, r in enumerate(records[i + 1 :]) if r["stream"] == records[i]["stream"])
    )
    swapped = list(records)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    report = verify_game("g1", swapped, RULES_OF)
    assert not report.verified and not report.chain_ok
    assert (report.mismatch.stream, report.mismatch.version) == (
        records[j]["stream"],
        records[j]["version"],
    )


async def test_given_a_forged_final_state_hash_then_replay_names_game_ended():
    records = await records_of("toy")
    i = first(records, "GameEnded")
    forged = [dict(r) for r in records]
    forged[i]["data"] = {**forged[i]["data"], "state_hash": "f" * 64}
    report = verify_game("g1", rechain(forged, records[i]["stream"]), RULES_OF)
    assert report.chain_ok and report.dice_ok and not report.state_ok
    assert report.mismatch.version == records[i]["version"]
    assert "state hash differs" in report.mismatch.what


async def test_given_an_unfinished_game_then_it_does_not_verify_and_says_why():
    store = SqliteEventStore(":memory:")
    await play(runner_for(store), "toy", "g1", random.Random(1), steps=1)
    report = verify_game("g1", await store_records(store, "g1"), RULES_OF)
    assert not report.verified
    assert any("not revealed" in m.what for m in report.mismatches)
    await store.close()


async def test_given_a_deck_shuffle_whose_after_is_forged_then_the_deck_event_is_named():
    # given a game with a deck stream: a shuffled deck and a draw, then played to its end
    store = SqliteEventStore(":memory:")
    runner = runner_for(store)
    await play(runner, "toy", "g1", random.Random(5), steps=0)
    deck = DeckEngine(store, runner.dice)
    cards = [f"card.x{i}" for i in range(10)]
    at = (await runner.load("g1")).version
    await deck.create_zone(
        "g1", "library", "deck", cards=cards, shuffle=True, key=decision_key("g1", at, "lib")
    )
    await deck.create_zone("g1", "hand.a", "hand", owner="a", key=decision_key("g1", at, "hand"))
    await deck.draw("g1", "library", "a", 2, key=decision_key("g1", at, "draw"))
    assert await advance(runner, "g1", random.Random(5), steps=200)
    records = await store_records(store, "g1")
    await store.close()
    assert verify_game("g1", records, RULES_OF).verified
    # when the shuffle's result is forged (two cards swapped) and the chain recomputed
    i = first(records, "DeckShuffled")
    forged = [dict(r) for r in records]
    after = list(forged[i]["data"]["after"])
    after[0], after[1] = after[1], after[0]
    forged[i]["data"] = {**forged[i]["data"], "after": after}
    report = verify_game("g1", rechain(forged, records[i]["stream"]), RULES_OF)
    # then the dice check names the DeckShuffled event
    assert report.chain_ok and not report.dice_ok
    assert (report.mismatch.stream, report.mismatch.version) == (
        records[i]["stream"],
        records[i]["version"],
    )
    assert "after is not before permuted" in report.mismatch.what


class ToyV2(ToyRules):
    """The toy engine after a schema change: Rolled v1 {seat, pips} became {seat, value}."""

    upcasters = {("Rolled", 1): lambda d: {"seat": d["seat"], "value": d["pips"]}}


def as_old_log(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return records as an older server wrote them: Rolled v1 carried `pips`."""
    old = []
    for r in records:
        r = dict(r)
        if r["type"] == "Rolled":
            r["data"] = {"seat": r["data"]["seat"], "pips": r["data"]["value"]}
        old.append(r)
    return rechain(old, "game-g1")


async def test_given_a_log_written_with_an_older_event_version_then_it_replays_via_the_upcaster():
    records = await records_of("toy")
    old = as_old_log(records)
    assert any(r["type"] == "Rolled" and "pips" in r["data"] for r in old)
    # given the current engine, which no longer reads `pips`, without its upcaster
    plain = verify_game("g1", old, {"toy": ToyRules()}.get)
    assert not plain.state_ok
    # when the engine declares its upcaster, the old log replays to the live state hash
    report = verify_game("g1", old, {"toy": ToyV2()}.get)
    assert report.verified, report.mismatch
    assert report.final_state_hash == verify_game("g1", records, RULES_OF).final_state_hash
    # and the projections fold the old log to the same views as the new one
    old_views = core.views(
        core.fold_game("g1", [record_envelope(r) for r in old], {"toy": ToyV2()}.get),
        {"toy": ToyV2()}.get,
    )
    new_views = core.views(
        core.fold_game("g1", [record_envelope(r) for r in records], RULES_OF), RULES_OF
    )
    assert old_views == new_views


@pytest.mark.parametrize("game", GAMES)
async def test_given_an_exported_log_then_verifying_its_lines_reports_what_its_records_do(game):
    # given a finished game's exported log (payloads hashed as their lines write them)
    records = await records_of(game)
    text = to_jsonl(records)
    # when one payload is written non-canonically (same values, other spacing and key
    # order) and another is altered
    lines = text.splitlines()
    spaced = first(records, "GameCreated")
    rec = json.loads(lines[spaced])
    lines[spaced] = json.dumps(dict(reversed(rec.items())), indent=1).replace("\n", "")
    altered = len(lines) - 3
    rec = json.loads(lines[altered])
    rec["data"] = {**rec["data"], "extra": 1}
    lines[altered] = json.dumps(rec, sort_keys=True, separators=(",", ":"))
    edited = "\n".join(lines) + "\n"
    # then the report from the lines equals the report from the plain records
    parsed, problems = parse_jsonl(edited)
    plain = [dict(r) for r in parsed]
    from_lines = verify_game("g1", parsed, RULES_OF, problems=problems)
    from_records = verify_game("g1", plain, RULES_OF, problems=problems)
    assert from_lines.to_dict() == from_records.to_dict()
    # and the altered event is named; the re-spaced one is not
    named = {(m.stream, m.version) for m in from_lines.mismatches}
    assert not from_lines.chain_ok
    assert (records[altered]["stream"], records[altered]["version"]) in named
    assert (records[spaced]["stream"], records[spaced]["version"]) not in named
    # and the unedited log verifies from its lines
    parsed, problems = parse_jsonl(text)
    assert verify_game("g1", parsed, RULES_OF, problems=problems).verified
