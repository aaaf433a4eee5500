"""Solo Variant II PVP option 2 (a PVP Party): each rule tested by the sentence it enforces.

Flow tests take the state of a real Solo II game (pvp_option 2) at its first Effects Phase, set
the given through the engine's own builder, run the task the rule lives in and check the
events and state it leaves. The equipping policy is docs/games/land.md 1.7.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules.engine.api import Setup
from services.rules.engine.flow import Ctx
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.damage import can_carry, carried_weight
from services.rules.land.data import card, catalog, factions
from services.rules.land.flow import REGISTRY
from services.rules.land.party import vehicle_capacity
from services.rules.land.pvp_party import equip_party, party_size, party_spoils
from services.rules.land.setup import validate_options
from services.rules.playout import play
from tests.unit.rules.land.support import ctx_notes as _notes
from tests.unit.rules.land.support import place_card as _place
from tests.unit.rules.land.support import run_tasks as _run


def _opts(level: int) -> dict[str, Any]:
    return {"variant": "solo2", "challenge": level, "pvp_option": 2}


def _state(level: int, seed: str = "pvp2") -> State:
    """Return the state of a real option-2 game just after its first phase started."""
    p = play(RULES, Setup({"p1": "u1"}, {**_opts(level), "max_turns": 1}), seed, seed)
    state = RULES.initial_state()
    for ev in p.events:
        state = RULES.evolve(state, ev)
        if ev.type == "phase_started":
            return state
    raise AssertionError("no phase_started in the game")


def _ctx(level: int = 2) -> Ctx:
    ctx = REGISTRY.ctx(_state(level))
    ctx.tasks = []
    return ctx


def _muster(ctx: Ctx, f: int, chars: list[str], spoils: list[str]) -> None:
    for c in chars:
        _place(ctx, c, f"play.of{f}.chars")
    for s in spoils:
        _place(ctx, s, f"play.of{f}.spoils")


def _free(ctx: Ctx, deck: str, n: int, kind: str | None = None) -> list[str]:
    """Return n cards of a deck that the player does not hold (still in the face-down deck)."""
    held = {c for cs in ctx.state.zones.values() for c in cs}
    out = [
        c
        for c in catalog().decks[deck]
        if c not in held and (kind is None or kind in card(c).get("types", []))
    ]
    return out[:n]


# --- the option and the party's size ---------------------------------------------------


def test_option_2_is_chosen_at_creation() -> None:
    # "Below are two different options for players for PVP. Option 1 is easier and Option 2 is
    # advanced"
    assert validate_options(_opts(2))["pvp_option"] == 2
    assert validate_options({"variant": "solo2", "challenge": 2})["pvp_option"] == 1


def test_party_spoils_are_12_plus_1_per_10_town_health_rounded_down() -> None:
    # "Then Draw 12 Spoils cards +1 for every 10 Town Health that Faction has, rounded down. For
    # example, an opposing Faction with 53 Town Health, draw/assign 17 Spoils cards (12+5)."
    assert party_spoils(53) == 17
    assert [party_spoils(th) for th in (0, 9, 10, 19, 80)] == [12, 12, 13, 13, 20]
    assert party_size()[0] == 5  # "Draw and attach 5 Characters to it."


def test_row_ten_pvp_under_option_2_draws_5_characters_and_the_spoils() -> None:
    # "Option 2: Create a PVP Party." / "Draw and attach 5 Characters to it. Then Draw 12
    # Spoils cards +1 for every 10 Town Health that Faction has"
    ctx = _ctx(2)
    f = int(ctx.state.var("opposing")[0])
    ctx.set_to(f"th.of{f}", 53)
    _run(ctx, ("se_pvp", {"faction": f}))
    assert _notes(ctx, "pvp_party_forming") == [{"faction": f, "characters": 5, "spoils": 17}]
    # the deck service deals them: first the 5 Characters, then the Spoils
    assert ctx.pending is not None and ctx.pending["kind"] == "deck_draw"
    assert ctx.pending["data"]["zone"] == f"play.of{f}.chars"
    assert ctx.pending["data"]["then"]["n"] == 5
    (spoils_draw,) = [t for t in ctx.tasks if t[0] == "draw" and t[1]["deck"] == "spoils"]
    assert spoils_draw[1]["n"] == 17
    assert _notes(ctx, "npcm_entered") == []  # not option 1's NPCM


# --- equipping -------------------------------------------------------------------------


def test_linked_items_go_to_the_proper_characters() -> None:
    # "3rd: Check for proper Carrying Capacity and equip all linked items to the proper
    # Characters."
    assert card("ch_01")["link"]["type"] == "melee_weapon"
    assert card("ch_02")["link"]["type"] == "ranged_weapon"
    kit = equip_party(["ch_01", "ch_02"], ["rifle_556#1", "machete#1", "ev_cache#1"])
    assert kit.crowns == {1: "ch_01", 2: "ch_02"}
    assert kit.gear[1] == ("machete#1",) and kit.gear[2] == ("rifle_556#1",)
    assert kit.left == ("ev_cache#1",)  # an Event is not carried


def test_what_no_character_can_carry_goes_in_the_vehicle_or_is_discarded() -> None:
    # "Check for proper Carrying Capacity"
    rifles = ["rifle_556#1", "rifle_556#2", "rifle_556#3"]  # 5 weight each; ch_04 carries 8
    assert int(card("ch_04")["carry"]) == 8
    bare = equip_party(["ch_04"], rifles)
    assert bare.gear[1] == ("rifle_556#1",) and bare.left == tuple(rifles[1:])
    truck = equip_party(["ch_04"], ["pickup_truck#1", *rifles])
    assert truck.vehicle == "pickup_truck#1" and truck.load == tuple(rifles[1:])


SPOILS = sorted(catalog().decks["spoils"])
CHARS = sorted(catalog().decks["characters"])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(CHARS), min_size=1, max_size=5, unique=True),
    st.lists(st.sampled_from(SPOILS), max_size=20, unique=True),
)
def test_the_party_is_always_within_carrying_capacity(chars: list[str], spoils: list[str]) -> None:
    # "Check for proper Carrying Capacity"
    kit = equip_party(chars, spoils)
    placed = [g for gs in kit.gear.values() for g in gs] + [*kit.load, *kit.left]
    placed += [kit.vehicle] if kit.vehicle else []
    assert Counter(placed) == Counter(spoils)  # every Spoils card once
    assert all(can_carry(kit.crowns[k], list(gs)) for k, gs in kit.gear.items())
    assert carried_weight(kit.load) <= vehicle_capacity(kit.vehicle)


def test_the_party_enters_equipped_and_the_choice_is_logged() -> None:
    # "1st: Match the Town Faction Chip up with that Faction's Town Play Mat. 2nd: Draw and
    # attach 5 Characters to it."
    ctx = _ctx(2)
    f = int(ctx.state.var("opposing")[0])
    chars = _free(ctx, "characters", 5)
    spoils = _free(ctx, "spoils", 12)
    _muster(ctx, f, chars, spoils)
    _run(ctx, ("pvp2_equip", {"faction": f}))
    assert [ctx.state.zone(f"crown.of{f}.{k}") for k in range(1, 6)] == [(c,) for c in chars]
    assert not ctx.state.zone(f"play.of{f}.chars") and not ctx.state.zone(f"play.of{f}.spoils")
    assert ctx.state.var("pvp_parties") == [f]
    assert ctx.state.var(f"pos.of{f}") == ctx.state.var("pos.p1")
    assert ctx.state.var(f"home.of{f}") == list(factions()[f]["at"])
    (entered,) = _notes(ctx, "pvp_party_entered")
    assert entered["policy"] == "linked_first_then_least_loaded"
    assert entered["crowns"]["1"][0] == chars[0]


# --- the cap ---------------------------------------------------------------------------


def test_a_party_in_play_blocks_another_outside_the_ultimate_challenge() -> None:
    # "Only 1 PVP Party or NPCM can be in play at a time. If another opposing Party is already
    # in play, ignore this effect and discard 1d10 Salvage Coins instead. If you have none, you
    # lose 2 Prestige."
    ctx = _ctx(2)
    f, g = (int(x) for x in ctx.state.var("opposing"))
    ctx.setv("pvp_parties", [f])
    _run(ctx, ("se_pvp", {"faction": g}))
    assert ctx.pending["data"]["dice"] == ["d10"] and _notes(ctx, "pvp_party_forming") == []
    ctx.pending = None
    ctx.set_to("salvage.p1", 0)
    ctx.set_to("prestige.p1", 5)
    _run(ctx, ("se_pvp", {"faction": g}))
    assert ctx.state.count("prestige.p1") == 3


def test_the_ultimate_challenge_allows_a_second_party() -> None:
    # "The Ultimate Challenge (versus 4 Factions), is the exception to this rule and allows 2
    # PVP Parties or NPCMs in play."
    ctx = _ctx(4)
    f, g = (int(x) for x in ctx.state.var("opposing")[:2])
    ctx.setv("pvp_parties", [f])
    _run(ctx, ("se_pvp", {"faction": g}))
    assert [n["faction"] for n in _notes(ctx, "pvp_party_forming")] == [g]


# --- the fight -------------------------------------------------------------------------


def test_the_party_always_attacks_with_its_first_strikes() -> None:
    # "4th: The PVP Party always attacks and will utilize First Strikes they have available"
    ctx = _ctx(2)
    f = int(ctx.state.var("opposing")[0])
    chars = [c for c in _free(ctx, "characters", 40) if int(card(c)["first_strike"]) > 0][:5]
    _muster(ctx, f, chars, [])
    _run(ctx, ("pvp2_equip", {"faction": f}))
    _run(ctx, ("pvp_parties_act", {}))
    assert _notes(ctx, "pvp_started") == [{"attacker": f"of{f}", "defender": "p1"}]
    # its first strike: 1d6 for a random Character of the player's party
    # its first strikes come first, each 1d6 for a random Character of the player's party
    assert ctx.pending["data"]["purpose"] == "random character of p1"
    queued = [t[1] for t in ctx.tasks[: [t[0] for t in ctx.tasks].index("pvp_strike")]]
    strikes = [ctx.pending["data"], *queued]
    assert all(d["seat"] == "p1" for d in strikes)
    assert sum(int(d["n"]) for d in strikes) == sum(int(card(c)["first_strike"]) for c in chars)


def test_the_party_leaves_play_after_its_fight() -> None:
    # ours (the rulebook does not say how long it stays): like an NPCM, after its attack
    ctx = _ctx(2)
    f = int(ctx.state.var("opposing")[0])
    chars, spoils = _free(ctx, "characters", 5), _free(ctx, "spoils", 12)
    _muster(ctx, f, chars, spoils)
    _run(ctx, ("pvp2_equip", {"faction": f}))
    _run(ctx, ("pvp2_leave", {"faction": f}))
    assert ctx.state.var("pvp_parties") == []
    assert set(chars) <= set(ctx.state.zone("discard.characters"))
    assert set(spoils) <= set(ctx.state.zone("discard.spoils"))
    assert not any(ctx.state.zone(f"crown.of{f}.{k}") for k in range(1, 6))


def test_full_option_2_games_form_fight_and_disband_parties() -> None:
    # "PVP occurs when a "10" is rolled on the Opposing Factions Town Event Chart and the
    # Secondary Effect rolled is a "4-6.""
    seen: Counter[str] = Counter()
    for i in range(8):
        setup = Setup({"p1": "u1"}, {**_opts(4), "max_turns": 4})
        p = play(RULES, setup, f"pvp2-{i}", f"pvp2-{i}")
        types = Counter(e.type for e in p.events)
        # every party that entered fought and left, unless the game ended with it in play
        still = len(p.state.var("pvp_parties", []))
        assert types["pvp_party_entered"] == types["pvp_party_left"] + still
        fights = [e for e in p.events if e.type == "pvp_fought"]
        assert (
            sum(1 for e in fights if e.data["attacker"].startswith("of")) == types["pvp_party_left"]
        )
        seen += types
    assert seen["pvp_party_entered"] > 0
