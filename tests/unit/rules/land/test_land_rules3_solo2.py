"""Card data 3 (new games), Solo Variant II: the opposing factions can win, and each rolls."""

from __future__ import annotations

from services.rules.engine.api import Setup
from services.rules.land import RULES
from services.rules.land.data import card
from services.rules.land.flow import REGISTRY
from services.rules.land.turn import victory
from services.rules.playout import play
from tests.unit.rules.land.rules3_support import at_deed, notes

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


def _oftec_by_turn(options: dict[str, object], seed: str) -> tuple[list[int], list[list[int]]]:
    """Return a played game's opposing factions and, per turn, the factions rolled for."""
    setup = Setup({"p1": "u1"}, RULES.new_game_options(options))
    p = play(RULES, setup, seed, seed)
    state = RULES.initial_state()
    turns: list[list[int]] = []
    for ev in p.events:
        state = RULES.evolve(state, ev)
        if ev.type == "turn_started":
            turns.append([])
        elif ev.type in ("oftec_rolled", "oftec_roll_lost"):
            turns[-1].append(int(ev.data["faction"]))
    return list(state.var("opposing")), turns


def test_the_ultimate_challenge_rolls_once_for_each_of_its_four_factions() -> None:
    # "Then the player rolls a 1d10 for each opposing Faction on the Opposing Faction Town
    # Events Chart." Given new Ultimate games (4 opposing factions) played for three turns
    for seed in ("u1", "u2"):
        opposing, turns = _oftec_by_turn({**SOLO2, "max_turns": 3}, seed)
        # then every turn rolls (or loses the roll of) each faction once, in the order rolled
        assert len(opposing) == 4 and turns
        assert all(t == opposing for t in turns), turns


def test_games_created_before_card_data_3_keep_three_rotating_rolls() -> None:
    opposing, turns = _oftec_by_turn({**SOLO2, "max_turns": 2, "card_data": 2}, "u3")
    assert [len(t) for t in turns] == [3, 3]
    assert turns[1][0] == opposing[3]  # roll j of turn t is for faction (3(t-1)+j) mod 4


def test_a_pvp_option_1_npcm_enters_at_the_party_and_uses_its_first_strike() -> None:
    # "Option 1: ... Draw the first NPCM Bounty Hunter, Assassin or Hitman card, discarding
    # all others. Reshuffle if necessary. That NPCM enters play at the player's Party location
    # and utilizes their First Strike." Given a new Solo II game (PVP option 1)
    g = at_deed(1, "pvp1", **SOLO2)
    f = g.state.var("opposing")[0]
    start = len(g.events)
    # when an opposing faction's PVP Secondary Effect draws its NPCM (deck service dealing)
    g.run_then_roll(("pvp1_draw", {"faction": f}))
    new = g.events[start:]
    (entered,) = notes(new, "npcm_entered")
    # then it enters at the party's hex and strikes at once with its listed damage
    assert entered["at"] == g.state.var("pos.p1") and entered["faction"] == f"of{f}"
    assert notes(new, "npcm_first_strike") == [
        {"faction": f"of{f}", "card": entered["card"], "target": "p1"}
    ]
    listed = card(entered["card"])["npcm"]["damage"]
    hits = notes(new, "damage_taken")
    assert sorted(h["type"] for h in hits) == sorted(listed)
    assert all(
        h["seat"] == "p1" and h["amount"] + h["prevented"] == listed[h["type"]] for h in hits
    )
    # and it stays in play, acting in the NPCM step as every NPCM does
    assert [n["card"] for n in g.state.var("npcms")] == [entered["card"]]
