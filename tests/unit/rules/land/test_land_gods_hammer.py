"""Project God's Hammer, each rule tested by the sentence it enforces."""

from __future__ import annotations

import pytest

from services.rules.engine.api import Setup
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


def _ctx_of(seats: dict[str, str], seed: str):  # type: ignore[no-untyped-def]
    from services.rules.land.flow import REGISTRY

    p = play(RULES, Setup(seats, {"gods_hammer": True, "max_turns": 1}), seed, seed)
    state = RULES.initial_state()
    for ev in p.events:
        state = RULES.evolve(state, ev)
        if ev.type == "turn_started":
            break
    ctx = REGISTRY.ctx(state)
    ctx.tasks = []
    return ctx


def test_destroyed_town_has_no_perks_until_the_party_relocates() -> None:
    # "The Party may travel to any Neutral Faction's town to join with them and receive their
    # Town Play Mat. Afterwards, they gain its Perks and previous Non-Starting TTs."
    from services.rules.land.data import factions
    from services.rules.land.gods_hammer import relocate
    from services.rules.land.state import faction_of, perks_of, taken_factions, town

    ctx = _ctx_of({"p1": "u1", "p2": "u2"}, "reloc")
    old = faction_of(ctx.state, "p1")
    assert perks_of(ctx.state, "p1") == list(factions()[old]["perks"])
    # given p1's town destroyed, holding a bought (non-starting) Marketplace before
    start = set(factions()[old]["techs"])
    bought = next(t for t in ("marketplace", "garrison", "medical_center") if t not in start)
    ctx.setv("homeless.p1", True)
    ctx.setv("saved_techs.p1", {bought: 2})
    for t in start:
        ctx.set_to(f"tech.p1.{t}", 0)
    # then its perks are gone while it is homeless
    assert perks_of(ctx.state, "p1") == []
    # when the party moves onto a Neutral Faction's town and relocates
    neutral = next(f for f in sorted(factions()) if f not in taken_factions(ctx.state))
    ctx.setv("pos.p1", list(M.towns[neutral]))
    relocate(ctx, "p1")
    # then it takes that mat and its perks, and its previous non-starting TTs come back
    assert faction_of(ctx.state, "p1") == neutral and ctx.state.var("homeless.p1") is False
    assert tuple(ctx.state.var("home.p1")) == tuple(factions()[neutral]["at"])
    assert perks_of(ctx.state, "p1") == list(factions()[neutral]["perks"])
    techs = dict(town(ctx.state, "p1").techs)
    assert techs[bought] >= 2
    assert all(techs.get(t, 0) >= 1 for t in factions()[neutral]["techs"])
    assert [e.data for e in ctx.events if e.type == "faction_joined"] == [
        {"seat": "p1", "faction": neutral}
    ]


def test_relocation_needs_a_neutral_unradiated_town() -> None:
    from services.rules.land.gods_hammer import relocate
    from services.rules.land.state import faction_of

    ctx = _ctx_of({"p1": "u1", "p2": "u2"}, "reloc2")
    ctx.setv("homeless.p1", True)
    # given the party on p2's town (not neutral), when it tries to relocate, then nothing
    ctx.setv("pos.p1", ctx.state.var("home.p2"))
    before = faction_of(ctx.state, "p1")
    relocate(ctx, "p1")
    assert faction_of(ctx.state, "p1") == before and ctx.state.var("homeless.p1") is True


def test_a_party_with_no_character_left_makes_no_fallout_check() -> None:
    # "they must make individual Survival and Medical checks": with nobody crowned there is
    # nobody to check, so no dice are asked for (the dice service refuses a roll of none)
    from services.rules.land.party import CROWNS
    from services.rules.land.state import member
    from tests.unit.rules.land.support import run_tasks

    ctx = _ctx_of({"p1": "u1", "p2": "u2"}, "nocrown")
    # given p1's party destroyed by a blast (every crowned Character killed)
    run_tasks(ctx, ("party_nuked", {"seat": "p1"}))
    assert all(member(ctx.state, "p1", k) is None for k in CROWNS)
    # when a fallout reaches it
    notes = run_tasks(ctx, ("fallout", {"seat": "p1"}))
    # then no roll is pending and no check was made
    assert ctx.pending is None and "fallout_checked" not in notes
