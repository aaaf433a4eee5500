"""Project God's Hammer, each rule tested by the sentence it enforces."""

from __future__ import annotations

import pytest

from services.rules.kernel.api import Setup
from services.rules.land import RULES
from services.rules.land.gods_hammer import blast, fallout_survives, fate, push_out
from services.rules.land.hexmap import adjacent, game_map
from services.rules.land.setup import validate_options
from services.rules.playout import play

M = game_map()


def _state_after(p):  # type: ignore[no-untyped-def]
    state = RULES.initial_state()
    for ev in p.events:
        state = RULES.evolve(state, ev)
    return state


def test_blast_is_the_numbered_hex_and_all_adjacent_hexes() -> None:
    # "This location and all adjacent hexes are considered impassable."
    centre = M.numbered[55]
    hit = blast(centre)
    assert centre in hit and set(adjacent(centre)) & set(M.terrain) <= hit
    assert len(hit) == 1 + sum(1 for h in adjacent(centre) if h in M.terrain)


def test_party_on_the_hex_is_destroyed_and_adjacent_party_checks() -> None:
    # "A Party on the numbered hex when nuke detonates is destroyed and a Party adjacent to the
    # nuke makes an Individual Survival and Medical Skill Check."
    centre = M.numbered[42]
    assert fate(centre, centre) == "destroyed"
    assert fate(adjacent(centre)[0], centre) == "checks"
    far = next(h for h in M.terrain if h not in blast(centre))
    assert fate(far, centre) is None


def test_characters_that_fail_either_check_are_killed() -> None:
    # "makes an Individual Survival and Medical Skill Check. Characters that fail are killed."
    # Bram Birch (ch_02): Survival 5, Medical 11; each check needs one success (land.md)
    assert fallout_survives("ch_02", [], [5, 3])
    assert not fallout_survives("ch_02", [], [6, 3])  # Survival fails
    assert not fallout_survives("ch_02", [], [5, 10])  # a 10 never succeeds: Medical fails


def test_the_party_is_pushed_out_of_the_blast_radius() -> None:
    # "The Party is then pushed out of the blast radius."
    from dataclasses import replace

    centre = M.numbered[42]
    hot = replace(M, blocked=blast(centre))
    for h in blast(centre):
        out = push_out(hot, h)
        assert out not in blast(centre) and hot.passable(out)


def test_option_is_a_toggle_for_two_to_six_players() -> None:
    assert validate_options({"gods_hammer": True})["gods_hammer"] is True
    with pytest.raises(ValueError, match=r"options\.gods_hammer"):
        validate_options({"gods_hammer": 1})
    with pytest.raises(ValueError, match=r"options\.gods_hammer"):
        validate_options({"gods_hammer": True, "variant": "solo1"})


@pytest.mark.parametrize("seed", [f"gh{k}" for k in range(6)])
def test_random_playouts_with_the_hammer(seed: str) -> None:
    # "During each Effects Phase, a nuke detonates at a random number location, by rolling 2d10."
    n = 2 + int(seed[-1]) % 3
    seats = {f"p{k}": f"u{k}" for k in range(1, n + 1)}
    p = play(RULES, Setup(seats, {"gods_hammer": True, "max_turns": 4}), seed, seed)
    types = [e.type for e in p.events]
    turns = types.count("turn_started")
    assert types.count("nuke_detonated") >= turns - 1 and turns >= 1
    state = _state_after(p)
    hot = {tuple(h) for h in state.var("radiated", [])}
    # "Any Missions or Point of Interest chips are Destroyed and not placed back on the map."
    assert not {M.numbered[n] for n in state.var("missions", [])} & hot
    for s in seats:
        # no party stands on a radiated (impassable) hex after play
        assert tuple(state.var(f"pos.{s}")) not in hot or state.var("result") is None
        assert state.count(f"th.{s}") >= 0


@pytest.mark.parametrize(("seed", "n"), [("pr23", 5), ("pr15", 4)])
def test_destroyed_town_loses_4d6_and_gains_no_town_health(seed: str, n: int) -> None:
    # Given a game where a nuke's blast covers a player's town (seeds found by search)
    seats = {f"p{k}": f"u{k}" for k in range(1, n + 1)}
    p = play(RULES, Setup(seats, {"gods_hammer": True, "max_turns": 6}), seed, seed)
    # When the town is destroyed
    # Then "The player then loses 4d6 Town Health and may not gain Town Health again until they
    # relocate to a new Faction."
    homeless: set[str] = set()
    destroyed = 0
    for e in p.events:
        if e.type == "town_destroyed":
            seat = e.data["seat"]
            assert 4 <= e.data["roll"] <= 24
            homeless.add(seat)
            destroyed += 1
        elif e.type == "faction_joined":
            homeless.discard(e.data["seat"])
        elif e.type == "counter_changed" and e.data["key"].startswith("th."):
            if e.data["key"][3:] in homeless:
                assert e.data["delta"] <= 0
    assert destroyed >= 1
    # and "A Player Town in the blast radius is destroyed and discarded": its TTs leave the mat
    state = _state_after(p)
    for s in homeless:
        assert state.var(f"homeless.{s}") is True
        assert all(state.count(f"tech.{s}.{t}") == 0 for t in state.var("saved_techs." + s, {}))
