"""PVP in its own decision window (docs/games/land.md 8.3).

Expansion, Order of Play: "III. Party Exploits Phase ... B. Party Exploits (Spend 4 weeks).
... - PVP Deed, 1 week." and Solo Variant II: "The PVP Party always attacks and will utilize
First Strikes they have available, in addition to any/all other special attacks. Special
equipment attacks (like the Rocket launcher that destroys a vehicle before combat)". So first
strikes and special attacks come before the combat itself; the PVP window between them and
the Combat checks is where `pvp` Action cards are played (the core's page 38 is not public:
the window's order, attacker, defender, then every other seat, is our choice).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from services.rules.engine.flow import Ctx
from services.rules.engine.state import State
from services.rules.land import checks_flow
from services.rules.land.flow import REGISTRY
from services.rules.land.pvp import pvp_bonus
from tests.unit.rules.land.support import act, drive, edit, legal, resume, setup, waiting

AMBUSH, AMBUSH2, DRESSING, STEADY = "ambush#1", "ambush#2", "field_dressing#1", "steady_hands#1"


def _face_off(ctx: Ctx) -> None:
    ctx.setv("pos.p2", ctx.state.var("pos.p1"))
    ctx.set_to("weeks.p1", 4, "test")
    ctx.emit("zone_set", {"zone": "hand.p1", "cards": [AMBUSH]})
    ctx.emit("zone_set", {"zone": "hand.p2", "cards": [AMBUSH2]})
    ctx.emit("zone_set", {"zone": "hand.p3", "cards": [DRESSING]})


def _fight() -> tuple[State, list[str]]:
    state = edit(drive(setup(3), waiting("deed", "p1"), seed="pvp"), _face_off)
    state, events = act(state, "p1", "deed", deed="pvp", target="p2")
    types = [e.type for e in events]
    state = resume(state, waiting("pvp_window"))
    return state, types


def test_ambush_is_a_pvp_card_worth_two_combat_successes() -> None:
    assert pvp_bonus(AMBUSH) == 2 and pvp_bonus(STEADY) == 0


def test_the_window_opens_after_first_strikes_and_before_any_combat_check() -> None:
    # given p1 and p2 on one hex, when p1 starts a PVP Deed against p2
    state, types = _fight()
    # then the fight starts, and the attacker is asked first in the PVP window
    assert "pvp_started" in types
    assert state.pending["kind"] == "pvp_window" and state.pending["seat"] == "p1"
    assert state.var("check") is None  # no Combat check has been rolled yet
    assert ("play", {"card": AMBUSH, "target": "p1"}) in legal(state, "p1")


def test_every_seat_gets_the_window_and_cards_add_to_their_side() -> None:
    state, _ = _fight()
    # when the attacker passes, the defender plays Ambush
    state, _ = act(state, "p1", "pass")
    assert state.pending["seat"] == "p2"
    state, events = act(state, "p2", "play", card=AMBUSH2, target="p2")
    # then it is an Action play in the PVP timing and the defender's side gains 2
    played = next(e for e in events if e.type == "action_played")
    assert played.data["timing"] == "pvp" and played.data["target"] == "p2"
    assert state.var("pvp")["bonus"] == {"p1": 0, "p2": 2}
    # and a third seat, not fighting, may still play its "any time" card (no pvp card offered)
    assert state.pending["seat"] == "p3"
    assert legal(state, "p3") == [("pass", {}), ("play", {"card": DRESSING, "target": "p3"})]


def test_the_window_closes_when_every_seat_passed_in_turn_then_the_checks_roll() -> None:
    state, _ = _fight()
    state, _ = act(state, "p1", "pass")
    state, _ = act(state, "p2", "pass")
    state, _ = act(state, "p3", "pass")
    # then the PVP window is over and the attacker's Combat check is rolled
    assert state.var("pvp_window") is None
    p = state.pending
    assert p["kind"] == "roll" and p["data"]["purpose"] == "combat check of p1"


def test_pvp_cards_are_not_played_in_skill_check_windows() -> None:
    # given p1 holding Ambush and Steady Hands during its own skill check
    def fn(ctx: Ctx) -> None:
        ctx.emit("zone_set", {"zone": "hand.p1", "cards": [AMBUSH, STEADY]})
        ctx.setv("check", {"seat": "p1", "skill": "combat", "pvp": True})

    state = edit(drive(setup(2), waiting("deed", "p1")), fn)
    opts = checks_flow._window_options(SimpleNamespace(state=state), "p1")  # type: ignore[arg-type]
    # then only the skill-check card is offered
    assert opts == [("pass", {}), ("play", {"card": STEADY})]


def test_the_result_counts_the_window_bonus() -> None:
    # given p1 gained 2 in the PVP window, when its check made 3 and p2's made 4
    state = drive(setup(2), waiting("deed", "p1"))
    fight = {"attacker": "p1", "defender": "p2", "bonus": {"p1": 2, "p2": 0}}
    state = edit(state, lambda ctx: ctx.setv("pvp", fight))
    prestige = state.count("prestige.p1")
    ctx_state, events = _close(state)
    # then p1 wins 5 to 4 and gains 1 Prestige
    fought = next(e for e in events if e.type == "pvp_fought")
    assert fought.data["winner"] == "p1" and fought.data["successes"] == [5, 4]
    assert fought.data["bonus"] == [2, 0]
    assert ctx_state.count("prestige.p1") == prestige + 1 and ctx_state.var("pvp") is None


def _close(state: State) -> tuple[State, list[Any]]:
    ctx = REGISTRY.ctx(state)
    REGISTRY.tasks["pvp_close"](ctx, {"att": 3, "def": 4})
    return ctx.state, ctx.events


def test_a_fight_queued_before_the_pvp_window_existed_still_finishes() -> None:
    # given a game recorded before the PVP window: the attacker's check result is queued as
    # ("pvp_att", {seat, target, successes}) and there is no `pvp` var
    state = drive(setup(2), waiting("deed", "p1"))
    assert state.var("pvp") is None
    ctx = REGISTRY.ctx(state)
    # when that task runs
    REGISTRY.tasks["pvp_att"](ctx, {"seat": "p1", "target": "p2", "successes": 3, "passed": True})
    # then the fight is rebuilt and the defender's Combat check comes next
    assert ctx.state.var("pvp")["attacker"] == "p1" and ctx.state.var("pvp")["defender"] == "p2"
    name, args = ctx.tasks[0]
    assert name == "check" and args["seat"] == "p2" and args["then"] == ["pvp_def", {"att": 3}]
