"""Ronin (optional rule for 2-6 players): each rule tested by the sentence it enforces."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from services.rules.engine.api import Setup
from services.rules.engine.flow import Ctx
from services.rules.land import RULES
from services.rules.land.data import factions
from services.rules.land.economy import adjust
from services.rules.land.flow import REGISTRY, sync_town
from services.rules.land.hexmap import game_map
from services.rules.land.ronin import join, settle, settles
from services.rules.land.setup import validate_options
from services.rules.land.state import (
    NO_TOWN,
    faction_of,
    own_town,
    perks_of,
    starting_techs,
    taken_factions,
    town,
)
from services.rules.playout import play

M = game_map()
SEATS = {"p1": "u1", "p2": "u2", "p3": "u3"}


def _game(seed: str = "ro", turns: int = 1, **opts: Any) -> Any:
    return play(RULES, Setup(SEATS, {"ronin": True, "max_turns": turns, **opts}), seed, seed)


def _ctx(seed: str = "ro") -> Ctx:
    p = _game(seed)
    state = RULES.initial_state()
    for ev in p.events:
        state = RULES.evolve(state, ev)
        if ev.type == "turn_started":
            break
    ctx = REGISTRY.ctx(state)
    ctx.tasks = []
    return ctx


def test_ronin_is_a_toggle_for_two_to_six_players() -> None:
    assert validate_options({"ronin": True})["ronin"] is True
    with pytest.raises(ValueError, match=r"options\.ronin"):
        validate_options({"ronin": "yes"})
    with pytest.raises(ValueError, match=r"options\.ronin"):
        validate_options({"ronin": True, "variant": "solo1"})


def test_ronin_parties_start_without_a_mat_at_a_2d10_hex() -> None:
    # "Players don't start with a Town Play Mat, their Parties use a random Party Marker and
    # begin the game at a random 2d10 location."
    p = _game("start")
    placed = [e.data for e in p.events if e.type == "ronin_placed"]
    assert [d["seat"] for d in placed] == list(SEATS)
    ctx = _ctx("start")
    for d in placed:
        seat = d["seat"]
        assert list(M.numbered[d["roll"]]) == d["hex"] == ctx.state.var(f"pos.{seat}")
        # no mat: no faction, no perks, no starting Town Technologies, no own town
        assert faction_of(ctx.state, seat) is None and perks_of(ctx.state, seat) == []
        assert starting_techs(ctx.state, seat) == [] and not town(ctx.state, seat).techs
        assert own_town(ctx.state, seat) == NO_TOWN
    assert taken_factions(ctx.state) == set()
    assert not [e for e in p.events if e.type == "faction_rolled"]


def test_no_town_health_or_prestige_changes_while_wandering() -> None:
    # "They cannot gain and lose Town Health or Prestige until they successfully complete a
    # City/Rad Encounter card."
    ctx = _ctx()
    t = town(ctx.state, "p1")
    sync_town(ctx, "p1", adjust(t, salvage=3, prestige=2, town_health=-5), "card")
    after = town(ctx.state, "p1")
    assert (after.prestige, after.town_health) == (t.prestige, t.town_health)
    assert after.salvage == t.salvage + 3  # Salvage Coins are not a victory track
    # when the City/Rad Encounter is completed, then the tracks move again
    settle(ctx, "p1")
    sync_town(ctx, "p1", adjust(after, prestige=2), "card")
    assert town(ctx.state, "p1").prestige == t.prestige + 2


def test_only_a_completed_city_rad_encounter_settles() -> None:
    assert settles("encounter_city_rad", True)
    assert not settles("encounter_city_rad", False)
    assert not settles("encounter_plains", True)


def test_joining_a_neutral_faction_takes_its_mat_tts_perks_and_bonuses() -> None:
    # "From there they travel to a Neutral Faction of their choice. Upon arrival, they obtain
    # its Party Marker, Town Play Mat, TTs and Perks. All bonus Prestige and Town Health are
    # then applied from Spoils, Action and Characters they possess."
    ctx = _ctx()
    t = town(ctx.state, "p1")
    held = dict(ctx.state.var("ronin_bonus.p1") or {"prestige": 0, "town_health": 0})
    # given an Event bonus received while wandering (held, not applied)
    sync_town(ctx, "p1", adjust(t, prestige=1, town_health=2), "event")
    assert town(ctx.state, "p1").prestige == t.prestige
    want = {"prestige": held["prestige"] + 1, "town_health": held["town_health"] + 2}
    assert ctx.state.var("ronin_bonus.p1") == want
    settle(ctx, "p1")
    # when the party arrives at faction 4's town
    join(ctx, "p1", 4)
    assert faction_of(ctx.state, "p1") == 4
    assert own_town(ctx.state, "p1") == tuple(factions()[4]["at"])
    assert perks_of(ctx.state, "p1") == list(factions()[4]["perks"])
    assert set(town(ctx.state, "p1").techs) == set(factions()[4]["techs"])
    after = town(ctx.state, "p1")
    assert after.prestige == min(20, max(0, t.prestige + want["prestige"]))
    assert after.town_health == min(80, max(0, t.town_health + want["town_health"]))
    assert ctx.state.var("ronin.p1") is None and 4 in taken_factions(ctx.state)


@pytest.mark.parametrize("seed", [f"rp{k}" for k in range(4)])
def test_random_ronin_playouts(seed: str) -> None:
    k = int(seed[-1])
    opts = {"harsh_reality": k % 2 == 0, "gods_hammer": k >= 2}
    p = _game(seed, turns=3, **opts)
    out = RULES.outcome(p.state)
    assert out is not None
    kinds = Counter(e.type for e in p.events)
    assert kinds["ronin_placed"] == len(SEATS)
    for seat in SEATS:
        if p.state.var(f"ronin.{seat}") == "wandering":
            assert p.state.count(f"th.{seat}") == 30 and p.state.count(f"prestige.{seat}") == 1


# --- the heuristic bot plays a Ronin toward its City/Rad Encounter ---------------------


def _turn(vars_: dict[str, Any], legal: list[Any]) -> Any:
    from services.bots.policies import Turn

    view = {"vars": vars_, "counters": {"weeks.p1": 4}, "players": ["p1", "p2"], "zones": {}}
    return Turn("land", "g", "p1", 7, view, legal, "s")


def test_a_wandering_ronin_bot_takes_the_city_rad_encounter_it_needs() -> None:
    # "They cannot gain and lose Town Health or Prestige until they successfully complete a
    # City/Rad Encounter card."
    from services.bots.policies import Choice
    from services.rules.land.bot import heuristic

    movement = Choice("deed", {"deed": "movement"})
    plains = Choice("deed", {"deed": "encounter", "deck": "encounter_plains"})
    city = Choice("deed", {"deed": "encounter", "deck": "encounter_city_rad"})
    legal = [movement, plains, city, Choice("end", {})]
    # given a wandering Ronin on a City hex that also has plains, then it draws City/Rad
    assert heuristic(_turn({"ronin.p1": "wandering"}, legal)) == 2
    # and without a City/Rad deck where it stands, it moves on
    assert heuristic(_turn({"ronin.p1": "wandering"}, [movement, plains])) == 0
    # and once settled (or without Ronin) it plays as before: the Plains Encounter
    assert heuristic(_turn({"ronin.p1": "seeking"}, legal)) == 1
    assert heuristic(_turn({}, legal)) == 1


def test_a_wandering_ronin_bot_moves_toward_a_city_or_rad_hex() -> None:
    from services.bots.policies import Choice
    from services.rules.land.bot import heuristic

    # given a move to a Resource Location without City or Rad, or to a City/Rad hex
    resource = next(r.at for r in M.resources.values() if not M.terrain[r.at] & {"city", "rad"})
    at = {r.at for r in M.resources.values()}
    city = next(h for h, t in sorted(M.terrain.items()) if t & {"city", "rad"} and h not in at)
    legal = [Choice("move", {"x": h[0], "y": h[1]}) for h in (resource, city)]
    # then a wandering Ronin heads for the City/Rad hex, any other party for the Resource
    assert heuristic(_turn({"ronin.p1": "wandering"}, legal)) == 1
    assert heuristic(_turn({}, legal)) == 0


@pytest.mark.parametrize("seed", [f"rh{k}" for k in range(3)])
def test_heuristic_ronin_games_settle_and_end_in_a_victory(seed: str) -> None:
    # given two heuristic bots playing Ronin (a 150-turn guard, never reached)
    from services.rules.land.bot import heuristic

    seats = {"p1": "u1", "p2": "u2"}
    options = {"ronin": True, "max_turns": 150}
    p = play(RULES, Setup(seats, options), seed, seed, dict.fromkeys(seats, heuristic))
    # then a Ronin completes a City/Rad Encounter and the game ends in a victory
    out = RULES.outcome(p.state)
    assert out is not None and out["kind"] in ("prestige", "town_health", "tiebreak"), out
    assert any(e.type == "ronin_settled" for e in p.events)
