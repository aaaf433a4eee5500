"""Card-data versions: a game records the data set it was created with and replays with it.

Old logs (no version recorded) replay with the original data: see also
tests/unit/rules/engine/test_legacy_log.py, which verifies a log recorded before versions.
"""

from __future__ import annotations

import pytest

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.bots.policies import Choice, Turn
from services.dice.engine import DiceEngine
from services.platform.errors import InvalidArgument
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import Command, Setup
from services.rules.fallen import RULES
from services.rules.fallen.bot import heuristic
from services.rules.fallen.cards import FIRST, LATEST, VERSIONS, catalog_of, data_version, using
from services.rules.fallen.engine import NEWEST_RECORD
from services.rules.fallen.state import State
from services.rules.playout import play
from services.rules.runner import GameRunner
from tests.support.projections_play import rechain

SEATS = {"hero": "h", "dungeon_lord": "d"}


def _critical_deck(options: dict[str, object]) -> list[str]:
    # the Critical cards as the setup puts them in their public box (the deck service then
    # forms the face-down deck from it)
    events = RULES.initial_events("v", Setup(SEATS, options))
    for e in events:
        if e.type == "zones_set" and "box.critical" in e.data["zones"]:  # record format 2
            return list(e.data["zones"]["box.critical"])
    return next(e.data["cards"] for e in events if e.data.get("zone") == "box.critical")


def test_given_no_version_when_a_game_is_set_up_then_it_uses_the_original_card_data() -> None:
    # given options without a card-data version (every log recorded before versions existed)
    # when the engine sets the game up
    deck = _critical_deck({})
    # then the original data set is dealt (the card ids of version 1) and nothing extra is
    # recorded, so the setup of an old log is rebuilt event for event
    assert "crit_hunted" in deck and "crit_stalked" not in deck
    events = RULES.initial_events("v", Setup(SEATS, {}))
    assert not any(e.type == "var_set" and e.data["key"] == "card_data" for e in events)


def test_given_a_new_game_then_its_options_pin_the_newest_card_data() -> None:
    # given a client that names no version; when the game's options are pinned for creation
    options = RULES.new_game_options({})
    # then the newest data version is recorded, and the setup deals that data set
    assert options["card_data"] == LATEST == max(VERSIONS)
    deck = _critical_deck(options)
    assert "crit_stalked" in deck and "crit_hunted" not in deck
    # and an older version named by the client is kept (each released set stays playable)
    assert RULES.new_game_options({"card_data": FIRST})["card_data"] == FIRST


@pytest.mark.parametrize("bad", [0, 99, "2", True, None, 2.5])
def test_given_an_unknown_version_then_creation_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(InvalidArgument) as err:
        RULES.new_game_options({"card_data": bad})
    assert "card_data" in str(err.value)
    with pytest.raises(InvalidArgument):
        RULES.initial_events("v", Setup(SEATS, {"card_data": bad}))


def test_every_released_version_loads_and_later_versions_keep_the_rules_shape() -> None:
    # given every released data set; then each loads, with the same characters
    for v in VERSIONS:
        cat = catalog_of(v)
        assert cat.heroes == catalog_of(FIRST).heroes
        assert cat.dungeon_lords == catalog_of(FIRST).dungeon_lords
    # and the renames of version 2 exist only in version 2
    assert "crit_hunted" in catalog_of(1).cards and "crit_hunted" not in catalog_of(2).cards
    assert catalog_of(2)["crit_stalked"]["name"] == "Stalked"


def test_version_three_changes_only_the_heroes_attribute_dice() -> None:
    # given card data 2 and 3 (the balance release, docs/games/fallen.md "Balance")
    two, three = catalog_of(2), catalog_of(3)
    # then every card but the Hero Character cards is the same
    assert set(two.cards) == set(three.cards)
    changed = {cid for cid in two.cards if two[cid] != three[cid]}
    assert changed == set(two.heroes)
    # and of a Hero only the attribute dice differ: the weakest attribute (no dice in
    # card data 2) gains a red die, the middle one a second blue die, the strongest none
    for hero in two.heroes:
        assert {k: v for k, v in two[hero].items() if k != "attributes"} == {
            k: v for k, v in three[hero].items() if k != "attributes"
        }
        before, after = two[hero]["attributes"], three[hero]["attributes"]
        assert all(after[attr][: len(dice)] == dice for attr, dice in before.items())
        added = {attr: after[attr][len(dice) :] for attr, dice in before.items()}
        (weakest,) = [attr for attr, dice in before.items() if not dice]
        assert added.pop(weakest) == ["red"], hero
        assert sorted(added.values()) == [[], ["blue"]], hero
        # (the middle one: fewer swords expected, a red die counting for two blue ones)
        weight = {attr: sum(2 if d == "red" else 1 for d in before[attr]) for attr in added}
        middle = min(added, key=weight.__getitem__)
        assert added[middle] == ["blue"] and weight[middle] < max(weight.values()), hero
    assert three["merace"]["attributes"] == {
        "agility": ["blue", "blue"],
        "intelligence": ["red"],
        "strength": ["red"],
    }


def test_version_four_changes_only_the_heroes_fortune_limits_and_krogarns_quest() -> None:
    # given card data 3 and 4 (the rulebook read again, docs/games/fallen.md)
    three, four = catalog_of(3), catalog_of(4)
    assert set(three.cards) == set(four.cards)
    changed = {cid for cid in three.cards if three[cid] != four[cid]}
    assert changed == {*three.heroes, "krogarn"}
    # then a Hero differs only in his Fortune limit, back to card data 1's ("usually 2")
    for hero in three.heroes:
        assert {k: v for k, v in three[hero].items() if k != "fortune_limit"} == {
            k: v for k, v in four[hero].items() if k != "fortune_limit"
        }
        assert four[hero]["fortune_limit"] == catalog_of(1)[hero]["fortune_limit"]
    # and Krogarn's Quest gives the Hero its Charge again on "Sneak Through the Larders"
    larders = [c for c in four["krogarn"]["quest"]["choices"] if c["name"].startswith("Sneak")]
    assert larders[0]["hero"] == [{"gain_charge": 1}]


def test_given_games_of_every_version_when_played_then_each_reads_its_own_data() -> None:
    # given a game of each version played by the heuristic bots
    for version in VERSIONS:
        p = play(RULES, Setup(SEATS, {"card_data": version}), "versions", "g", {"hero": heuristic})
        # then every card in play belongs to that version's data set
        cards = {c for zone in p.state.zones.values() for c in zone}
        assert cards <= set(catalog_of(version).cards), version
        assert RULES.outcome(p.state) is not None
    # and the engine restores the caller's active version after reading a game's data
    with using(FIRST):
        RULES.view(p.state, "hero")  # the last game played: the newest version
        assert data_version() == FIRST


@pytest.mark.parametrize(("options", "version"), [({}, LATEST), ({"card_data": 2}, 2)])
async def test_given_a_new_game_via_the_runner_then_its_log_records_and_replays_its_version(
    tmp_path, options: dict[str, int], version: int
) -> None:
    # given a game created through the runner with no options (or naming an older release,
    # as every game created before a newer one was released did)
    store = SqliteEventStore(tmp_path / "v.db")
    runner = GameRunner(store, DiceEngine(store), {"fallen": RULES})
    loaded, _ = await runner.create("fallen", "cv1", SEATS, options)
    # when both seats play it to the end with the heuristic bot
    step = 0
    while not loaded.ended:
        seat = RULES.pending(loaded.state).seat
        legal = RULES.legal_commands(loaded.state, seat)
        pick = heuristic(_turn(loaded.state, seat, legal, step))
        loaded, _ = await runner.submit("cv1", legal[pick])
        step += 1
    records = await store_records(store, "cv1")
    created = next(r for r in records if r["type"] == "GameCreated")
    # then GameCreated records the card-data version (the newest unless one is named)
    assert created["data"]["options"] == {"card_data": version, "record_format": NEWEST_RECORD}
    # and the log verifies: replay rebuilt the setup with that version
    report = verify_game("cv1", records, lambda game: RULES)
    assert report.verified, report.mismatch
    # but the same log with the version removed no longer matches the setup (it would
    # replay with the original data)
    forged = [dict(r) for r in records]
    at = forged.index(created)
    forged[at] = dict(created, data=dict(created["data"], options={}))
    report = verify_game("cv1", rechain(forged, "game-cv1"), lambda game: RULES)
    assert not report.verified
    assert report.mismatch is not None and "setup" in report.mismatch.what


def _turn(state: State, seat: str, legal: list[Command], step: int) -> Turn:
    choices = [Choice(c.kind, dict(c.args)) for c in legal]
    return Turn("fallen", "cv1", seat, step, RULES.view(state, seat), choices, f"cv:{step}")
