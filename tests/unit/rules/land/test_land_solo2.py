"""Solo Variant II: each rule tested by the sentence of the expansion it enforces.

Flow tests take the state of a real Solo II game at its first Town Events, set the given
(resources, cards, counters) through the engine's own builder, run the task the rule lives
in with chosen dice faces, and check the events and state it leaves.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Setup
from services.rules.engine.flow import Ctx
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.data import card, catalog, economy, factions
from services.rules.land.flow import REGISTRY
from services.rules.land.hexmap import game_map
from services.rules.land.oftec import (
    challenge,
    farthest,
    last_tech,
    priciest,
    pvp_cap,
    pvp_option_1_pick,
    roller,
    row,
    se_of,
)
from services.rules.land.pvp import npcm_goal, raider_assignment
from services.rules.land.setup import setup_numbers, validate_options
from services.rules.land.solo import auction_buys
from services.rules.land.solo_decks import RED_DOT_DECK, solo_deck
from services.rules.playout import play
from tests.unit.rules.land.support import ctx_notes as _notes
from tests.unit.rules.land.support import place_card as _place
from tests.unit.rules.land.support import run_tasks as _run

M = game_map()


def _solo2(level: int, **extra: Any) -> dict[str, Any]:
    return {"variant": "solo2", "challenge": level, **extra}


def _game(level: int = 4, seed: str = "s2", turns: int = 1) -> Any:
    return play(RULES, Setup({"p1": "u1"}, _solo2(level, max_turns=turns)), seed, seed)


def _state_at(level: int, event_type: str, seed: str = "s2") -> State:
    """Return the state of a real Solo II game just after its first `event_type` event."""
    p = _game(level, seed)
    state = RULES.initial_state()
    for ev in p.events:
        state = RULES.evolve(state, ev)
        if ev.type == event_type:
            return state
    raise AssertionError(f"no {event_type} in the game")


def _ctx(level: int = 4) -> Ctx:
    state = _state_at(level, "phase_started")  # the first Effects Phase
    ctx = REGISTRY.ctx(state)
    ctx.tasks = []
    return ctx


def _own(ctx: Ctx, *resources: str) -> None:
    ctx.setv("resources", {r: "p1" for r in resources})


# --- challenge levels and options -------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "factions_", "rolls", "cap"), [(1, 1, 1, 0), (2, 2, 2, 1), (3, 3, 3, 2), (4, 4, 3, 3)]
)
def test_challenge_levels_as_listed(level: int, factions_: int, rolls: int, cap: int) -> None:
    # "1 Faction = a standard challenge. Roll once on The OFTEC. There are no Secondary Effect
    # (SE) each Turn." / "2 Factions = a moderate challenge. Roll twice on The OFTEC. Each Turn,
    # there can be 1 Secondary effect." / "3 Factions = ... Roll three times on The OFTEC. Each
    # Turn, there can only be up to 2 Secondary Effects." / "4 Factions = The Ultimate
    # challenge. Roll three times on The OFTEC. Each Turn, there can only be up to 3 Secondary
    # Effects."
    c = challenge(level)
    assert (c.factions, c.rolls, c.se_cap) == (factions_, rolls, cap)


def test_the_ultimate_challenges_three_rolls_rotate_over_four_factions() -> None:
    # given the Ultimate challenge (3 rolls, 4 factions), when 4 turns are rolled
    c = challenge(4)
    seen = Counter(roller(c, t, j) for t in range(1, 5) for j in range(3))
    # then every faction rolls equally often, and a turn never rolls one faction twice
    assert seen == {0: 3, 1: 3, 2: 3, 3: 3}
    assert all(len({roller(c, t, j) for j in range(3)}) == 3 for t in range(1, 9))


def test_challenge_is_chosen_at_creation_and_validated() -> None:
    # "The player chooses the number of Opposing Factions they are playing against, before set up."
    assert validate_options(_solo2(3))["pvp_option"] == 1
    for bad in (0, 5, True, "4", None):
        with pytest.raises(ValueError, match=r"options\.challenge"):
            validate_options({"variant": "solo2", "challenge": bad})
    with pytest.raises(ValueError, match=r"options\.challenge"):
        validate_options({"variant": "solo1", "challenge": 2})
    with pytest.raises(ValueError, match=r"options\.pvp_option"):
        validate_options(_solo2(2, pvp_option=3))
    with pytest.raises(InvalidArgument, match="challenge"):
        RULES.initial_events("g", Setup({"p1": "u"}, {"variant": "solo2"}))


def test_solo2_setup_numbers() -> None:
    # "Deal yourself 6 Character cards, 10 Spoils cards and 3 Action cards. Then retrieve 10
    # Salvage Coins."
    n = setup_numbers(1, validate_options(_solo2(1)))
    assert (n.characters, n.crowned, n.roster, n.spoils, n.action, n.salvage) == (
        6,
        5,
        1,
        10,
        3,
        10,
    )


# --- decks ---------------------------------------------------------------------------------


def test_red_dot_action_deck_is_the_red_dot_cards_and_the_nine_npcms() -> None:
    # "Separate and remove all Red Dot cards from the Action deck and the nine Non-player
    # Mercenary cards (NPCMs). Shuffle them together to create a Red Dot Action deck"
    opts = _solo2(2)
    red = solo_deck(RED_DOT_DECK, opts)
    action = catalog().decks["action"]
    assert sum(1 for c in red if "npcm" in card(c)) == 9
    assert set(red) == {c for c in action if card(c).get("red_dot") or "npcm" in card(c)}
    assert not set(red) & set(solo_deck("action", opts))
    assert set(red) | set(solo_deck("action", opts)) == set(action)


def test_red_dot_cards_leave_the_encounter_and_mission_decks() -> None:
    # "Remove all cards with the Red Dot next to their title from the Encounter and Mission
    # decks and place them in the box."
    for name in ("encounter_plains", "encounter_mountain", "encounter_city_rad", "missions"):
        assert not [c for c in solo_deck(name, _solo2(1)) if card(c).get("red_dot")]


def test_the_game_forms_the_red_dot_deck_and_rolls_the_opposing_factions() -> None:
    # "Then randomly roll or select your Opposing Factions." / "retrieve two Faction Marker
    # chips from each Opposing Faction and place them on the "Begin" on both victory tracks."
    for level in (1, 2, 3, 4):
        state = _state_at(level, "turn_started", seed=f"of{level}")
        opp = state.var("opposing")
        assert len(opp) == level and len(set(opp)) == level
        assert state.var("faction.p1") not in opp
        for f in opp:
            assert state.count(f"th.of{f}") == economy()["start_town_health"]
            assert state.count(f"prestige.of{f}") == economy()["start_prestige"]
        assert state.count(f"deck.{RED_DOT_DECK}") == len(solo_deck(RED_DOT_DECK, _solo2(level)))


def test_auction_house_buys_any_or_all_of_three() -> None:
    # "C. Auction House.* Draw 3 Spoils cards. You may purchase any or all of them"
    assert auction_buys(_solo2(1)) == 3
    assert auction_buys({"variant": "solo1"}) == 2


# --- the OFTEC rows ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "th", "pr"),
    [
        (1, 0, 0),
        (2, 1, 0),
        (3, 2, 1),
        (4, 4, 2),
        (5, 4, 2),
        (6, 4, 2),
        (7, 5, 3),
        (8, 6, 3),
        (9, 7, 4),
        (10, 8, 5),
    ],
)
def test_oftec_rows_raise_the_opposing_factions_tracks(roll: int, th: int, pr: int) -> None:
    # "2.) +1 Town Health. No SE." ... "10.) +8 Town Health and +5 Prestige."
    ctx = _ctx(2)
    f = ctx.state.var("opposing")[0]
    _run(ctx, ("oftec_rolled", {"j": 99, "faction": f, "faces": [roll]}))
    assert ctx.state.count(f"th.of{f}") == 30 + th
    assert ctx.state.count(f"prestige.of{f}") == 1 + pr


def test_rows_one_to_three_have_no_secondary_effect() -> None:
    # "1.) ... No SE." "2.) +1 Town Health. No SE." "3.) ... No SE."
    for roll in (1, 2, 3):
        assert se_of(row(roll), None) == "nothing"


def test_row_one_loses_the_factions_next_roll() -> None:
    # "1.) This Faction loses their roll next Town Events roll. No SE."
    ctx = _ctx(1)
    f = ctx.state.var("opposing")[0]
    _run(ctx, ("oftec_rolled", {"j": 99, "faction": f, "faces": [1]}))
    assert ctx.state.var("oftec_lost") == [f]
    # when its next roll comes, then it is lost and no die is rolled for it
    types = _run(ctx, ("oftec", {"j": 0}))
    assert "oftec_roll_lost" in types and ctx.pending is None
    assert ctx.state.var("oftec_lost") == []


def test_secondary_effects_are_capped_by_the_challenge() -> None:
    # "1 Faction = ... There are no Secondary Effect (SE) each Turn."
    ctx = _ctx(1)
    f = ctx.state.var("opposing")[0]
    salvage = ctx.state.count("salvage.p1")
    # given the turn's OFTEC started (it sets the cap), when a row with an SE is rolled
    _run(ctx, ("oftec", {"j": 0}))
    assert ctx.state.count("se_left") == 0 and ctx.pending["data"]["dice"] == ["d10"]
    ctx.pending = None
    ctx.tasks = []
    types = _run(ctx, ("oftec_rolled", {"j": 99, "faction": f, "faces": [4]}))
    # then the SE is ignored and nothing is lost
    assert "secondary_effect_ignored" in types and ctx.state.count("salvage.p1") == salvage


def test_row_four_loses_1d6_salvage() -> None:
    # "4.) +4 Town Health and +2 Prestige. SE: Lose 1d6 Salvage Coins."
    ctx = _ctx(2)
    ctx.set_to("se_left", 1)
    f = ctx.state.var("opposing")[0]
    before = ctx.state.count("salvage.p1")
    _run(ctx, ("oftec_rolled", {"j": 99, "faction": f, "faces": [4]}))
    assert ctx.pending is not None and ctx.pending["data"]["dice"] == ["d6"]
    ctx.pending = None
    _run(ctx, ("se_salvage", {"faces": [5]}))
    assert ctx.state.count("salvage.p1") == max(0, before - 5)
    assert ctx.state.count("se_left") == 0


@pytest.mark.parametrize(("roll", "n"), [(5, 1), (6, 1), (7, 2)])
def test_rows_five_to_seven_draw_and_play_red_dot_cards(roll: int, n: int) -> None:
    # "5.) ... SE: Draw and play 1 card from the Red Dot Action deck." "7.) ... SE: Draw and
    # play 2 cards from the Red Dot Action deck."
    ctx = _ctx(4)
    f = ctx.state.var("opposing")[0]
    ctx.set_to("se_left", 1)
    deck = ctx.state.count(f"deck.{RED_DOT_DECK}")
    _run(ctx, ("oftec_rolled", {"j": 99, "faction": f, "faces": [roll]}))
    assert ctx.pending is not None and ctx.pending["kind"] == "deck_draw"
    assert ctx.pending["data"]["count"] == n and deck >= n


# --- row 8: resources --------------------------------------------------------------------


def test_row_eight_split() -> None:
    # "8.) ... SE: Roll 1d6. A "1" ignores this loss and effects. On a "2-3," you choose an
    # Owned Resource to lose. On a "4-6," Lose the Owned Resource that is farthest from your
    # Party."
    r = row(8)
    assert [se_of(r, d) for d in range(1, 7)] == [
        "nothing",
        "choose_resource",
        "choose_resource",
        "farthest_resource",
        "farthest_resource",
        "farthest_resource",
    ]


def test_row_eight_you_choose_the_resource() -> None:
    ctx = _ctx(2)
    rs = sorted(M.resources)[:3]
    _own(ctx, *rs)
    _run(ctx, ("se", {"kind": "choose_resource", "faction": 1, "roll": 8, "d6": 2}))
    # then the player is asked, with every owned resource as a choice
    assert ctx.pending["seat"] == "p1"
    assert [a["resource"] for _, a in ctx.pending["data"]["options"]] == rs


def test_row_eight_loses_the_farthest_resource() -> None:
    ctx = _ctx(2)
    here = tuple(ctx.state.var("pos.p1"))
    from services.rules.land.hexmap import distances

    d = distances(M, here, int(economy()["mountain_move_cost"]))
    by = sorted(M.resources, key=lambda r: d[M.resources[r].at])
    near, far = by[0], by[-1]
    _own(ctx, near, far)
    p = ctx.state.count("prestige.p1")
    _run(ctx, ("se", {"kind": "farthest_resource", "faction": 1, "roll": 8, "d6": 5}))
    assert ctx.state.var("resources") == {near: "p1"}
    assert ctx.state.count("prestige.p1") == max(0, p - 1)


def test_row_eight_tie_you_choose() -> None:
    # "If tied, you choose."
    assert farthest({"a": 3, "b": 7, "c": 7}) == ["b", "c"]
    assert farthest({"a": 3}) == ["a"]


def test_row_eight_without_resources_costs_4_town_health_and_1_prestige() -> None:
    # "If you own no Resources, lose 4 Town Health and 1 Prestige instead."
    ctx = _ctx(2)
    _own(ctx)
    ctx.set_to("prestige.p1", 3)
    th = ctx.state.count("th.p1")
    _run(ctx, ("se", {"kind": "farthest_resource", "faction": 1, "roll": 8, "d6": 4}))
    assert (ctx.state.count("th.p1"), ctx.state.count("prestige.p1")) == (th - 4, 2)


# --- row 9: roster and Auction House -----------------------------------------------------


def test_row_nine_split() -> None:
    # "9.) ... SE: Roll 1d6. On a "1-2," Nothing happens. On a "3-4," discard a random
    # Character from your Town Roster. On a "5-6," discard the most expensive Spoils card in
    # your Auction House."
    r = row(9)
    assert [se_of(r, d) for d in range(1, 7)] == [
        "nothing",
        "nothing",
        "discard_roster",
        "discard_roster",
        "discard_priciest_spoils",
        "discard_priciest_spoils",
    ]


def test_row_nine_discards_a_random_roster_character() -> None:
    ctx = _ctx(2)
    roster = list(ctx.state.zone("roster.p1"))
    assert roster
    _run(ctx, ("se", {"kind": "discard_roster", "faction": 1, "roll": 9, "d6": 3}))
    assert ctx.pending["kind"] == "shuffle"  # chance picks the Character
    ctx.pending = None
    _run(ctx, ("se_roster", {"cards": sorted(roster), "order": [0]}))
    assert sorted(roster)[0] in ctx.state.zone("discard.characters")
    assert sorted(roster)[0] not in ctx.state.zone("roster.p1")


def test_row_nine_discards_the_most_expensive_spoils() -> None:
    spoils = [c for c in catalog().decks["spoils"] if "event" not in card(c)["types"]]
    by_value = sorted(spoils, key=lambda c: int(card(c)["value"]))
    cheap, dear = by_value[0], by_value[-1]
    assert priciest([cheap, dear]) == [dear]
    ctx = _ctx(2)
    for c in (cheap, dear):
        _place(ctx, c, "auction.p1")
    top = priciest(ctx.state.zone("auction.p1"))
    _run(ctx, ("se", {"kind": "discard_priciest_spoils", "faction": 1, "roll": 9, "d6": 6}))
    if len(top) == 1:
        assert top == [dear] and dear in ctx.state.zone("discard.spoils")
    else:  # a tie among the dearest: the player chooses
        assert ctx.pending["kind"] == "se_spoils"


# --- row 10: technology and PVP ------------------------------------------------------------


def test_row_ten_split() -> None:
    # "10.) ... SE: Roll 1d6. On a "1" Nothing happens. On a "2-3," you lose the last Town
    # Technology you equipped and all effects apply ... On a "4-6," PVP."
    r = row(10)
    assert [se_of(r, d) for d in range(1, 7)] == [
        "nothing",
        "lose_last_tech",
        "lose_last_tech",
        "pvp",
        "pvp",
        "pvp",
    ]
    assert last_tech(["garrison", "marketplace"], {"garrison": 1}) == "garrison"
    assert (
        last_tech(["garrison", "marketplace"], {"garrison": 1, "marketplace": 2}) == "marketplace"
    )


def test_row_ten_loses_the_last_technology_equipped() -> None:
    ctx = _ctx(2)
    start = factions()[ctx.state.var("faction.p1")]["techs"]
    th = ctx.state.count("th.p1")
    _run(ctx, ("se", {"kind": "lose_last_tech", "faction": 1, "roll": 10, "d6": 2}))
    # given no purchases, the last equipped is the second starting technology
    assert ctx.state.count(f"tech.p1.{start[-1]}") == 0
    assert ctx.state.count("th.p1") == th - int(economy()["tech_town_health"])


def test_pvp_option_1_draws_the_first_bounty_hunter_assassin_or_hitman() -> None:
    # "Option 1: ... Draw the first NPCM Bounty Hunter, Assassin or Hitman card, discarding all
    # others. ... That NPCM enters play at the player's Party location"
    raider = next(
        c for c in catalog().decks["action"] if card(c).get("npcm", {}).get("class") == "raider"
    )
    bounty = next(
        c
        for c in catalog().decks["action"]
        if card(c).get("npcm", {}).get("class") == "bounty_hunter"
    )
    smear = "smear_campaign#1"
    assert pvp_option_1_pick([raider, smear, bounty]) == 2
    assert pvp_option_1_pick([raider, smear]) is None
    ctx = _ctx(2)
    f = ctx.state.var("opposing")[0]
    for c in (raider, bounty):
        _place(ctx, c, f"play.of{f}")
    _run(ctx, ("pvp1_draw", {"faction": f}))
    entered = _notes(ctx, "npcm_entered")
    assert [e["card"] for e in entered] == [bounty]
    assert entered[0]["at"] == ctx.state.var("pos.p1")
    assert raider in ctx.state.zone(f"discard.{RED_DOT_DECK}")


def test_pvp_with_an_opposing_party_in_play_costs_1d10_salvage_or_2_prestige() -> None:
    # "If another opposing Party is already in play, ignore this effect and discard 1d10
    # Salvage Coins instead. If you have none, you lose 2 Prestige."
    assert pvp_cap(challenge(3)) == 1 and pvp_cap(challenge(4)) == 2  # "allows 2 PVP Parties"
    ctx = _ctx(2)
    ctx.setv("npcms", [{"card": "bh_red_hand", "hirer": "of1", "target": "p1", "at": [1, 1]}])
    _run(ctx, ("se_pvp", {"faction": 1}))
    assert ctx.pending["data"]["dice"] == ["d10"]
    ctx.pending = None
    ctx.set_to("salvage.p1", 0)
    ctx.set_to("prestige.p1", 5)
    _run(ctx, ("se_pvp", {"faction": 1}))
    assert ctx.state.count("prestige.p1") == 3


# --- Red Dot cards in play, NPCMs by class -------------------------------------------------


def test_red_dot_npcm_enters_at_the_factions_starting_town_unpaid() -> None:
    # "NPCMs drawn from Secondary Effects come into play before the player takes their Party
    # Exploits Phase. That Faction does not pay their hiring cost. Like the Core Rules, NPCMs
    # originate in that Faction's Starting Town Location."
    ctx = _ctx(2)
    f = ctx.state.var("opposing")[0]
    ctx.add(f"deck.{RED_DOT_DECK}", -1)
    ctx.emit("zone_set", {"zone": f"play.of{f}", "cards": ["as_viper"]})
    _run(ctx, ("red_dot_play", {"faction": f}))
    (n,) = ctx.state.var("npcms")
    assert n == {
        "card": "as_viper",
        "hirer": f"of{f}",
        "target": "p1",
        "at": list(factions()[f]["at"]),
    }
    assert "as_viper" in ctx.state.zone(f"npcm.of{f}")
    assert ctx.state.count(f"salvage.of{f}") == 0


def test_town_business_red_dot_cards_take_effect_at_once_others_wait() -> None:
    # "Red Dot Action cards take effect, in the Phase or Sub-Phase it lists or immediately if
    # it states "Play at any time.""
    ctx = _ctx(2)
    f = ctx.state.var("opposing")[0]
    ctx.set_to("prestige.p1", 4)
    ctx.add(f"deck.{RED_DOT_DECK}", -2)
    ctx.emit("zone_set", {"zone": f"play.of{f}", "cards": ["smear_campaign#1", "rockslide#1"]})
    _run(ctx, ("red_dot_play", {"faction": f}))
    assert ctx.state.count("prestige.p1") == 3  # Smear Campaign (Town Business): -1 Prestige
    assert ctx.state.zone(f"play.of{f}") == ("rockslide#1",) or list(
        ctx.state.zone(f"play.of{f}")
    ) == ["rockslide#1"]
    ctx.set_to("weeks.p1", 4)
    _run(ctx, ("red_dot_timing", {"timing": "party_exploits"}))
    assert ctx.state.count("weeks.p1") == 3 and not ctx.state.zone(f"play.of{f}")


def test_npcm_classes() -> None:
    # "Bounty Hunters: Always move towards your Party and attack."
    party, town, res = (1, 1), (5, 5), (3, 3)
    assert npcm_goal("bounty_hunter", "", party, town, res) == party
    # "Raiders: ... On a "1-3", they will move toward the player's nearest Resource and claim
    # it when they arrive. On a "4-6", they will move toward your Starting Town Location"
    assert [raider_assignment(d) for d in range(1, 7)] == ["resource"] * 3 + ["town"] * 3
    assert npcm_goal("raider", "resource", party, town, res) == res
    assert npcm_goal("raider", "town", party, town, res) == town


def test_assassins_attack_a_random_crowned_character_rerolling_6_and_empty_crowns() -> None:
    # "Assassins and Hitman: Attack a random Party Character by rolling 1d6. A "6" and empty
    # Character Crowns are re-rolled."
    ctx = _ctx(2)
    args = {"seat": "p1", "type": "physical", "n": 1, "how": "random"}
    _run(ctx, ("damage_crown", dict(args, faces=[6])))
    assert ctx.pending["kind"] == "roll"  # a 6 is rolled again
    ctx.pending = None
    _run(ctx, ("damage_crown", dict(args, faces=[3])))
    assert _notes(ctx, "damage_taken")[-1]["crown"] == 3


def test_full_solo2_games_play_to_the_turn_limit_or_victory() -> None:
    # "The player must achieve 20 Prestige or 80 Town Health."
    for level in (1, 4):
        p = _game(level, f"full{level}", turns=6)
        out = RULES.outcome(p.state)
        assert out["kind"] in ("prestige", "town_health", "turn_limit") and "turns" in out
        types = Counter(e.type for e in p.events)
        assert types["oftec_rolled"] + types["oftec_roll_lost"] >= challenge(level).rolls * 5


def test_opposing_factions_use_no_perks() -> None:
    # "Place each of the Opposing Factions' Town Play mats on the table to keep track of their
    # OFTEC rolls ... These Factions cannot use perks."
    from services.rules.land.state import perks_of

    # given an Ultimate Solo II game with its four opposing factions rolled
    state = _state_at(4, "phase_started")
    opposing = [int(f) for f in state.var("opposing")]
    assert len(opposing) == 4 and all(factions()[f]["perks"] for f in opposing)
    # then none of them has a perk, though each mat prints four; the player keeps its own
    assert all(perks_of(state, f"of{f}") == [] for f in opposing)
    assert perks_of(state, "p1") == list(factions()[state.var("faction.p1")]["perks"])
    # and no opposing faction holds Salvage Coins (perks pay none to it)
    assert not [k for k in state.counters if k.startswith("salvage.of")]
