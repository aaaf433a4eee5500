"""Worlds card-data versions: a new game pins the newest, an older game keeps its numbers."""

from __future__ import annotations

import pytest

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Setup
from services.rules.playout import play
from services.rules.worlds.bot import service_policy
from services.rules.worlds.cards import DATA_VERSIONS, LATEST_DATA, Stats, catalog_of
from services.rules.worlds.engine import RULES

SEATS = {"p1": "alice", "p2": "bob"}
DECKS = {"decks": {"p1": "draga", "p2": "reptilians"}}
BOTS = {"p1": service_policy, "p2": service_policy}


def _started(events: tuple) -> dict:  # type: ignore[type-arg]
    return next(e.data for e in events if e.type == "game_started")


def test_given_no_version_when_a_game_is_created_then_the_newest_is_pinned() -> None:
    options = RULES.new_game_options(DECKS)
    assert options["card_data"] == LATEST_DATA == DATA_VERSIONS[-1]
    events = RULES.initial_events("g", Setup(SEATS, options))
    assert _started(tuple(events))["card_data"] == LATEST_DATA


def test_given_an_unknown_version_when_a_game_is_created_then_invalid_argument() -> None:
    with pytest.raises(InvalidArgument, match="card_data"):
        RULES.initial_events("g", Setup(SEATS, {**DECKS, "card_data": 99}))


def test_given_version_two_when_compared_then_only_creature_numbers_changed() -> None:
    old, new = catalog_of(1), catalog_of(2)
    assert set(old.cards) == set(new.cards) and old.starters == new.starters
    changed = [cid for cid in old.cards if old[cid] != new[cid]]
    assert changed and all(old[c].type == "creature" for c in changed)
    assert all(old[c].res == new[c].res and old[c].keywords == new[c].keywords for c in changed)


def test_given_a_game_of_each_version_when_played_then_its_own_numbers_show() -> None:
    for version in DATA_VERSIONS:
        options = RULES.new_game_options({**DECKS, "card_data": version})
        p = play(RULES, Setup(SEATS, options), f"v{version}", "g", policies=BOTS)
        assert RULES.outcome(p.state) is not None
        view = RULES.view(p.state, "p1")
        assert view["card_data"] == version
        cat = catalog_of(version)
        board = p.state.table.board
        plain = [x for x in board.play if not x.attached and x.temp == x.perm == Stats()]
        if not any(cat[x.card].aura != Stats() for x in board.play):
            # then a card with no modifiers shows its own version's printed Damage
            shown = {c["uid"]: c["stats"]["dmg"] for c in view["play"]}
            assert all(shown[x.uid] == cat[x.card].stats.dmg for x in plain)
        # replaying the log from scratch (as the audit does) folds to the same state
        state = RULES.initial_state()
        for ev in p.events:
            state = RULES.evolve(state, ev)
        assert RULES.state_hash(state) == RULES.state_hash(p.state)


def test_given_a_game_recorded_without_a_version_when_replayed_then_first_data() -> None:
    # a game created before versions (no card_data option) records none and plays version 1
    p = play(RULES, Setup(SEATS, dict(DECKS)), "old", "g", policies=BOTS)
    assert "card_data" not in _started(p.events)
    assert p.state.table.card_data == 1
    assert RULES.view(p.state, "p1")["card_data"] == 1


def test_given_each_version_when_clients_fetch_card_texts_then_each_shows_its_numbers() -> None:
    from services.web.carddata import card_data, versions

    assert versions("worlds") == DATA_VERSIONS
    texts = {v: card_data("worlds", v)["cards"]["dra_scorch_brute"]["text"] for v in DATA_VERSIONS}
    assert "DMG 4" in texts[1] and "DMG 3" in texts[2]
