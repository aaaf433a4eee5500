"""Action cards are played at the timings they name (docs/games/land.md 8.1).

Each decision that offers Action plays offers exactly the cards of its timing: the Effects
Phase its `effects` cards, the Financial period's Sell and Purchase `town_business` and
`any`, Hire the NPCMs (hired, not played), Party Exploits `party_exploits` and `any`. A card
aimed at a player may be played on every other seat. (Skill-check and PVP windows:
test_land_pvp_window.py.)
"""

from __future__ import annotations

from services.rules.engine.flow import Ctx
from services.rules.land import finance
from services.rules.land.data import card, catalog
from services.rules.land.exploits import _deed_options
from services.rules.land.flow import REGISTRY
from tests.unit.rules.land.support import drive, place_card, setup

TIMINGS = ("effects", "town_business", "party_exploits", "skill_check", "pvp", "any", "hire")


def _hand_of_every_timing() -> tuple[Ctx, dict[str, str]]:
    """Return a 3-seat game at its first turn whose p1 holds one Action card of each timing."""
    state = drive(setup(3), lambda s: s.count("turn") == 1 and s.var("step") is not None)
    ctx = REGISTRY.ctx(state)
    ctx.tasks = []
    for c in list(ctx.state.zone("hand.p1")):
        ctx.move(c, "hand.p1", "discard.action")
    held = {c for cs in ctx.state.zones.values() for c in cs}
    chosen: dict[str, str] = {}
    for c in catalog().decks["action"]:
        t = card(c)["timing"]
        if t not in chosen and c not in held:
            chosen[t] = c
    assert set(chosen) == set(TIMINGS)
    ctx.add("salvage.p1", 100, "test")  # every NPCM is affordable
    for c in chosen.values():
        place_card(ctx, c, "hand.p1")
    return ctx, chosen


def _played(opts: list[tuple[str, dict]]) -> set[str]:
    return {a["card"] for k, a in opts if k == "play"}


def test_each_decision_offers_the_action_cards_of_its_timing() -> None:
    # given p1 holding one Action card of each timing
    ctx, by_timing = _hand_of_every_timing()
    timed = {"seat": "p1", "sub": "resolve", "timing": "effects"}
    # then the Effects Phase offers its Effects card only
    effects = finance._timed_options(ctx.state, {"info": timed})
    assert _played(effects) == {by_timing["effects"]}
    # and the Financial period's Sell and Purchase offer Town Business and "any" cards
    for sub in ("sell", "purchase"):
        opts = finance._finance_options(ctx, "p1", sub)
        assert _played(opts) == {by_timing["town_business"], by_timing["any"]}, sub
    # and Hire offers the NPCM to hire (on each other seat) and plays nothing
    hire = finance._finance_options(ctx, "p1", "hire")
    assert _played(hire) == set()
    assert {a["target"] for k, a in hire if k == "hire"} == {"p2", "p3"}
    # and Party Exploits offer Party Exploits and "any" cards next to the deeds
    deeds = _deed_options(ctx, "p1")
    assert _played(deeds) == {by_timing["party_exploits"], by_timing["any"]}
    # and no decision here offers the skill-check or PVP cards (they have their windows)
    every = _played(effects) | _played(deeds)
    every |= _played(finance._finance_options(ctx, "p1", "sell"))
    assert not every & {by_timing["skill_check"], by_timing["pvp"]}


def test_a_card_aimed_at_a_player_can_be_played_on_every_other_seat() -> None:
    # given p1 holding a Red Dot card aimed at a player of each of the three timings
    ctx, _ = _hand_of_every_timing()
    for c in list(ctx.state.zone("hand.p1")):
        ctx.move(c, "hand.p1", "discard.action")
    held = {c for cs in ctx.state.zones.values() for c in cs}
    aimed = {}
    for c in catalog().decks["action"]:
        data = card(c)
        t = data["timing"]
        if data.get("target") == "player" and "npcm" not in data and t not in aimed:
            if t in ("effects", "town_business", "party_exploits") and c not in held:
                aimed[t] = c
    assert len(aimed) == 3
    for c in aimed.values():
        place_card(ctx, c, "hand.p1")
    timed = {"seat": "p1", "sub": "resolve", "timing": "effects"}
    offers = {
        "effects": finance._timed_options(ctx.state, {"info": timed}),
        "town_business": finance._finance_options(ctx, "p1", "purchase"),
        "party_exploits": _deed_options(ctx, "p1"),
    }
    # then each is offered once per other seat at its own timing, never on its own player
    for t, c in aimed.items():
        targets = [a["target"] for k, a in offers[t] if k == "play" and a["card"] == c]
        assert sorted(targets) == ["p2", "p3"], (t, c)
