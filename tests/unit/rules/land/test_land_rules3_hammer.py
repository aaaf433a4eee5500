"""Card data 3 (new games), Project God's Hammer with a limited Bank: TTs go back and forth."""

from __future__ import annotations

from services.rules.engine.flow import Ctx
from services.rules.land.data import economy, factions
from services.rules.land.gods_hammer import neutral_town_at, relocate
from services.rules.land.hexmap import game_map
from services.rules.land.state import starting_techs
from tests.unit.rules.land.rules3_support import Game, at_deed

HARSH_HAMMER = {"gods_hammer": True, "harsh_reality": True}


def _bank(g: Game) -> dict[str, int]:
    return {t: g.state.count(f"bank.tech.{t}") for t in economy()["techs"]}


def _techs(g: Game, seat: str = "p1") -> dict[str, int]:
    return {t: n for t in economy()["techs"] if (n := g.state.count(f"tech.{seat}.{t}"))}


def _bought(g: Game, tech: str, tiers: int) -> None:
    """Give p1 a non-starting TT of some tiers, its chip(s) taken from the Bank."""

    def fn(ctx: Ctx) -> None:
        ctx.add(f"tech.p1.{tech}", tiers)
        ctx.add(f"bank.tech.{tech}", -1)

    g.edit(fn)


def _extra_tech(g: Game, chips: int = 1) -> str:
    """Return a TT p1 does not hold whose chips the Bank has."""
    held = set(_techs(g))
    return next(t for t in sorted(economy()["techs"]) if t not in held and _bank(g)[t] >= chips)


def _nuke_town(g: Game) -> None:
    g.run_then_roll(("town_nuked_rolled", {"seat": "p1", "faces": ["2", "2", "2", "2"]}))


def _relocate(g: Game) -> int:
    """Move p1's party onto a Neutral Faction's town and let it join; return the faction."""
    taken = {g.state.var(f"faction.{s}") for s in g.state.var("players")}
    roll = next(r for r in sorted(game_map().towns) if r not in taken)
    at = list(game_map().towns[roll])

    def fn(ctx: Ctx) -> None:
        ctx.setv("pos.p1", at)
        assert neutral_town_at(ctx.state, tuple(at)) == roll
        relocate(ctx, "p1")

    g.edit(fn)
    return roll


def test_a_nuked_towns_tts_return_to_the_bank_and_relocation_takes_them_back() -> None:
    # A Harsh Reality: "Destroyed TTs are returned to the Bank and may be purchased again."
    # God's Hammer: "A Player Town in the blast radius is destroyed and discarded. ... they
    # gain its Perks and previous Non-Starting TTs." Given a new 3-player game whose p1 bought
    # a TT beyond its starting ones
    g = at_deed(3, "gh1", **HARSH_HAMMER)
    extra = _extra_tech(g)
    _bought(g, extra, 1)
    held, bank = _techs(g), _bank(g)
    # when its town is nuked
    _nuke_town(g)
    # then every destroyed TT chip is back in the Bank
    assert _techs(g) == {}
    assert _bank(g) == {t: bank[t] + (1 if t in held else 0) for t in bank}
    after = _bank(g)
    # when the party joins a Neutral Faction
    roll = _relocate(g)
    # then it regains only its previous non-starting TTs, taken from the Bank: the new mat's
    # starting TTs are not listed by the rule
    start = set(starting_techs(g.state, "p1")) | set(factions()[roll]["techs"])
    saved = {t: n for t, n in held.items() if t not in start}
    assert extra in saved and _techs(g) == saved
    assert _bank(g) == {t: after[t] - (1 if t in saved else 0) for t in after}


def test_a_tt_the_bank_ran_out_of_is_not_regained() -> None:
    g = at_deed(3, "gh2", **HARSH_HAMMER)
    extra = _extra_tech(g)
    _bought(g, extra, 1)
    _nuke_town(g)

    def sold_out(ctx: Ctx) -> None:  # another player bought the returned chips meanwhile
        ctx.add(f"bank.tech.{extra}", -ctx.state.count(f"bank.tech.{extra}"))

    g.edit(sold_out)
    _relocate(g)
    assert extra not in _techs(g) and g.state.count(f"bank.tech.{extra}") == 0


def test_modifier_1_returns_and_takes_a_chip_per_tier() -> None:
    # "Modifier 1: Tier 2 Town Technologies count as 2 for purposes of the bank."
    g = at_deed(3, "gh3", **HARSH_HAMMER, harsh_modifier_1=True)
    extra = _extra_tech(g, 2)
    _bought(g, extra, 2)
    g.edit(lambda ctx: ctx.add(f"bank.tech.{extra}", -1))  # the upgrade's second chip
    before = g.state.count(f"bank.tech.{extra}")
    _nuke_town(g)
    assert g.state.count(f"bank.tech.{extra}") == before + 2
    _relocate(g)
    assert _techs(g)[extra] == 2 and g.state.count(f"bank.tech.{extra}") == before
