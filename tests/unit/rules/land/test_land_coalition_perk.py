"""The Coalition's Information Crossroads perk (docs/games/land.md 2.2, 5.5).

Public source [BT]: "Information Crossroads (once per turn in Town Business pay 5 salvage,
draw 1 Action)". The perk is data (factions.yaml kind `draw_action_for_salvage`, n 5); the
Syndicate's Back Room Deals uses the same kind for 4 (our choice). We offer it in the
Financial period's Purchase sub-phase (our choice of the Town Business moment).
"""

from __future__ import annotations

from services.rules.engine.api import CHANCE
from services.rules.engine.flow import Ctx
from services.rules.engine.state import State
from services.rules.land.data import factions
from services.rules.land.finance import perk_draw
from tests.unit.rules.land.support import act, drive, edit, legal, setup, waiting

COALITION, ENCLAVE = 1, 2


def _as(faction: int, salvage: int):  # type: ignore[no-untyped-def]
    def fn(ctx: Ctx) -> None:
        ctx.setv("faction.p1", faction)
        ctx.set_to("salvage.p1", salvage, "test")

    return fn


def _purchase(faction: int, salvage: int) -> State:
    return edit(drive(setup(2), waiting("purchase", "p1"), seed="cp"), _as(faction, salvage))


def test_the_coalition_perk_is_data() -> None:
    perk = next(p for p in factions()[COALITION]["perks"] if p["name"] == "Information Crossroads")
    assert perk == {"name": "Information Crossroads", "kind": "draw_action_for_salvage", "n": 5}


def test_the_coalition_pays_five_and_draws_one_action_card() -> None:
    # given the Coalition's p1 in its Purchase sub-phase with 12 Salvage Coins
    state = _purchase(COALITION, 12)
    assert ("perk_draw", {}) in legal(state, "p1")
    hand = len(state.zone("hand.p1"))
    # when it uses Information Crossroads
    state, events = act(state, "p1", "perk_draw")
    # then it paid 5, the fact names the perk and the deck service deals it one Action card
    used = next(e for e in events if e.type == "perk_used")
    assert used.data == {"seat": "p1", "perk": "Information Crossroads", "paid": 5}
    assert state.count("salvage.p1") == 7
    p = state.pending
    assert p["seat"] == CHANCE and p["kind"] == "deck_draw" and p["data"]["deck"] == "deck.action"
    assert p["data"]["count"] == 1 and p["data"]["visible_to"] == ["p1"]
    assert len(state.zone("hand.p1")) == hand  # the card arrives with the deck's answer


def test_once_per_turn() -> None:
    # given the Coalition already used the perk this turn
    state = _purchase(COALITION, 20)
    state = edit(state, lambda ctx: ctx.setv("perk_draw.p1", ctx.state.count("turn")))
    # then it is not offered again until the next turn
    assert ("perk_draw", {}) not in legal(state, "p1")
    state = edit(state, lambda ctx: ctx.add("turn", 1, "test"))
    assert ("perk_draw", {}) in legal(state, "p1")


def test_not_without_the_salvage_or_the_perk() -> None:
    assert ("perk_draw", {}) not in legal(_purchase(COALITION, 4), "p1")
    assert ("perk_draw", {}) not in legal(_purchase(ENCLAVE, 50), "p1")
    assert perk_draw(_purchase(ENCLAVE, 50), "p1") is None
