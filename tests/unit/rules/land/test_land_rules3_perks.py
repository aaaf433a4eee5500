"""Card data 3 (new games): Cattle Drivers shares its income with a chosen faction."""

from __future__ import annotations

from services.rules.engine.flow import Ctx
from services.rules.land.data import factions
from services.rules.land.state import perks_of
from tests.unit.rules.land.rules3_support import Game, at_deed, notes

REGULATORS = next(r for r, f in factions().items() if f["id"] == "regulators")


def _regulators(g: Game, seat: str = "p1") -> None:
    def fn(ctx: Ctx) -> None:
        ctx.setv(f"faction.{seat}", REGULATORS)

    g.edit(fn)
    assert any(p["name"] == "Cattle Drivers" for p in perks_of(g.state, seat))


def _coins(g: Game) -> dict[str, int]:
    return {s: g.state.count(f"salvage.{s}") for s in g.state.var("players")}


def test_cattle_drivers_pays_the_chosen_other_faction_too() -> None:
    # "Cattle Drivers: Each Town Business Phase chose another Faction. You each receive 3
    # Salvage Coins." Given a new 3-player game whose p1 plays the Regulators
    g = at_deed(3, "cattle")
    _regulators(g)
    before = _coins(g)
    # when p1's Resource Production pays its income
    g.run(("produce", {"seat": "p1"}))
    # then p1 has its 3 coins and chooses another faction: a seat's or a Neutral one
    p = g.state.pending
    assert p is not None and (p["seat"], p["kind"]) == ("p1", "share_income")
    targets = [a["target"] for k, a in p["data"]["options"]]
    assert targets[:2] == ["p2", "p3"] and all(t.startswith("nf") for t in targets[2:])
    assert len(targets) == 2 + 10 - 3
    assert _coins(g)["p1"] - before["p1"] >= 3
    mid = _coins(g)
    # when it chooses p3, then p3 receives 3 Salvage Coins too
    g.answer("p1", "share", target="p3")
    assert _coins(g) == {**mid, "p3": mid["p3"] + 3}
    assert notes(g.events, "income_shared") == [{"seat": "p1", "target": "p3", "salvage": 3}]


def test_a_neutral_faction_chosen_takes_the_coins_from_no_player() -> None:
    g = at_deed(2, "cattle2")
    _regulators(g)
    g.run(("produce", {"seat": "p1"}))
    mid = _coins(g)
    options = g.state.pending["data"]["options"]
    neutral = next(a["target"] for _, a in options if a["target"] != "p2")
    g.answer("p1", "share", target=neutral)
    assert neutral.startswith("nf") and _coins(g) == mid


def test_games_created_before_card_data_3_ask_nothing() -> None:
    g = at_deed(2, "cattle3", card_data=2)
    _regulators(g)
    g.run(("produce", {"seat": "p1"}))
    p = g.state.pending
    assert p is None or p["kind"] != "share_income"
