"""Card data 3 (new games), Solo Variant II: the opposing factions can win, and each rolls."""

from __future__ import annotations

from services.rules.land import RULES
from services.rules.land.flow import REGISTRY
from services.rules.land.turn import victory
from tests.unit.rules.land.rules3_support import at_deed

SOLO2 = {"variant": "solo2", "challenge": 4}


def test_an_opposing_faction_reaching_20_prestige_wins_and_the_player_loses() -> None:
    # "Afterwards, retrieve two Faction Marker chips from each Opposing Faction and place them
    # on the "Begin" on both victory tracks." / "The player must achieve 20 Prestige or 80
    # Town Health." Given a new Solo II game whose first opposing faction's marker is at 20
    state = at_deed(1, "s2win", **SOLO2).state
    of = f"of{state.var('opposing')[0]}"
    ctx = REGISTRY.ctx(state)
    ctx.add(f"prestige.{of}", 20 - ctx.state.count(f"prestige.{of}"))
    # when victory is checked at the end of a phase
    assert victory(ctx, last_phase=False)
    # then the game is over and lost: the opposing faction is the winner
    out = RULES.outcome(ctx.state)
    assert out is not None
    assert out["winners"] == [] and out["kind"] == "opposing_faction"
    assert out["opposing_winners"] == [of]
    assert out["scores"][of]["prestige"] == 20


def test_an_opposing_faction_reaching_80_town_health_wins() -> None:
    state = at_deed(1, "s2th", **SOLO2).state
    of = f"of{state.var('opposing')[-1]}"
    ctx = REGISTRY.ctx(state)
    ctx.add(f"th.{of}", 80 - ctx.state.count(f"th.{of}"))
    assert victory(ctx, last_phase=False)
    assert ctx.state.var("result")["opposing_winners"] == [of]


def test_reached_together_the_tie_break_decides() -> None:
    # the core rule for several reaching a threshold at one check: 4 x Prestige + Town Health
    state = at_deed(1, "s2tie", **SOLO2).state
    a, b = (f"of{f}" for f in state.var("opposing")[:2])
    ctx = REGISTRY.ctx(state)
    ctx.add("prestige.p1", 20 - ctx.state.count("prestige.p1"))
    ctx.add(f"prestige.{a}", 20 - ctx.state.count(f"prestige.{a}"))
    ctx.add(f"th.{a}", 80 - ctx.state.count(f"th.{a}"))  # a's score is the best
    ctx.add(f"prestige.{b}", 20 - ctx.state.count(f"prestige.{b}"))
    assert victory(ctx, last_phase=False)
    result = ctx.state.var("result")
    assert result["winners"] == [] and result["opposing_winners"] == [a]


def test_the_player_still_wins_first_to_the_track() -> None:
    state = at_deed(1, "s2me", **SOLO2).state
    ctx = REGISTRY.ctx(state)
    ctx.add("prestige.p1", 20 - ctx.state.count("prestige.p1"))
    assert victory(ctx, last_phase=False)
    result = ctx.state.var("result")
    assert result["winners"] == ["p1"] and result["kind"] == "prestige"
    assert result["opposing_winners"] == []


def test_games_created_before_card_data_3_keep_the_opposing_tracks_harmless() -> None:
    state = at_deed(1, "s2old", **SOLO2, card_data=2).state
    of = f"of{state.var('opposing')[0]}"
    ctx = REGISTRY.ctx(state)
    ctx.add(f"prestige.{of}", 20 - ctx.state.count(f"prestige.{of}"))
    assert not victory(ctx, last_phase=False)
