"""Town Defense chips placed on an owned resource (docs/games/land.md 5.2, 5.3).

Expansion, Epic game: "When Town Defense (TD) chips run out, they are no longer available for
purchase, unless one is returned to the Bank. All other TD rules apply." Public source [BT]:
a Resource "also counts TD chips placed on a resource". Where they go and what they do is our
choice, kept as data (economy.yaml capture_base, capture_per_defense).
"""

from __future__ import annotations

import pytest

from services.platform.errors import RuleViolation
from services.rules.engine.flow import Ctx
from services.rules.land.data import economy
from services.rules.land.economy import (
    Town,
    buy_defense,
    capture_requirement,
    lose_resource,
    open_bank,
    place_defense,
)
from services.rules.land.hexmap import game_map
from services.rules.land.state import town
from tests.unit.rules.land.support import act, drive, edit, legal, run_task, setup, waiting

RES = "tulsa_oil"


def _town(**kw: object) -> Town:
    base: dict[str, object] = {"salvage": 100, "prestige": 3, "town_health": 30}
    return Town(**{**base, **kw})  # type: ignore[arg-type]


def test_placing_moves_a_chip_from_the_town_onto_an_owned_resource() -> None:
    # given a town with 2 TD chips that owns Tulsa Oil
    t = _town(defense=2, resources=(RES,))
    # when it places one on the resource
    t = place_defense(t, RES)
    # then the town keeps 1 and the resource holds 1
    assert t.defense == 1 and dict(t.resource_defense) == {RES: 1}


@pytest.mark.parametrize(
    ("kw", "reason"),
    [({"defense": 1}, "does not own"), ({"defense": 0, "resources": (RES,)}, "no Town Defense")],
)
def test_placing_needs_an_owned_resource_and_a_chip_in_town(
    kw: dict[str, object], reason: str
) -> None:
    with pytest.raises(RuleViolation, match=reason):
        place_defense(_town(**kw), RES)


def test_chips_on_resources_count_toward_the_five_a_player_holds() -> None:
    # given 4 chips on a resource and 1 in town
    t = _town(defense=1, resources=(RES,), resource_defense={RES: 4})
    # when it tries to buy a sixth, then it is refused
    with pytest.raises(RuleViolation, match="most Town Defense"):
        buy_defense(t, open_bank(None, None))


def test_each_chip_on_a_resource_makes_its_capture_harder() -> None:
    assert capture_requirement(0) == economy()["capture_base"] == 3
    assert capture_requirement(2) == 3 + 2 * economy()["capture_per_defense"]


def test_a_lost_resource_takes_its_chips_with_it() -> None:
    t = lose_resource(_town(defense=1, resources=(RES,), resource_defense={RES: 2}), RES)
    assert t.resources == () and dict(t.resource_defense) == {} and t.defense == 1


def _own(seat: str, chips: int, town_chips: int = 0):  # type: ignore[no-untyped-def]
    def fn(ctx: Ctx) -> None:
        ctx.setv("resources", {**ctx.state.var("resources", {}), RES: seat})
        ctx.add(f"rdef.{RES}", chips, "test")
        ctx.add(f"defense.{seat}", town_chips, "test")
        if ctx.state.var("epic"):
            ctx.add("bank.defense", -(chips + town_chips), "test")

    return fn


def test_purchase_offers_placing_a_chip_and_the_engine_moves_it() -> None:
    # given p1 in its Purchase sub-phase owning Tulsa Oil with 2 TD chips in town
    state = drive(setup(2), waiting("purchase", "p1"))
    state = edit(state, _own("p1", 0, town_chips=2))
    # when it places a chip on the resource
    assert ("place_defense", {"resource": RES}) in legal(state, "p1")
    state, events = act(state, "p1", "place_defense", resource=RES)
    # then the fact is recorded, one chip moved and p1 still holds two in all
    assert any(e.type == "defense_placed" and e.data["resource"] == RES for e in events)
    t = town(state, "p1")
    assert t.defense == 1 and dict(t.resource_defense) == {RES: 1}
    assert state.count(f"rdef.{RES}") == 1


def test_the_resource_deed_needs_more_successes_against_placed_chips() -> None:
    # given p1 choosing a deed on Tulsa Oil, owned by p2 with 2 chips on it
    state = drive(setup(2), waiting("deed", "p1"))
    state = edit(state, _own("p2", 2))
    state = edit(state, lambda ctx: ctx.setv("pos.p1", list(game_map().resources[RES].at)))
    if state.count("weeks.p1") < 1:
        state = edit(state, lambda ctx: ctx.set_to("weeks.p1", 4, "test"))
    # when p1 starts the Resource Deed
    state, _ = act(state, "p1", "deed", deed="resource")
    # then its Combat check needs 3 + 2 per chip
    chk = state.pending["data"]["chk"]
    assert chk["skill"] == "combat" and chk["required"] == 3 + 2 * 2


def test_epic_chips_on_a_captured_resource_return_to_the_bank() -> None:
    # given an Epic game where p2 owns Tulsa Oil with 2 chips on it
    state = drive(setup(6), waiting("deed"))
    state = edit(state, _own("p2", 2))
    bank_before = state.count("bank.defense")
    # when p1 captures it
    args = {"seat": "p1", "owner": "p2", "resource": RES, "passed": True}
    state, types = run_task(state, "captured", args)
    # then the chips go back to the Bank, p1 owns it bare, and the chips are conserved
    assert "resource_captured" in types
    assert state.count("bank.defense") == bank_before + 2
    assert state.count(f"rdef.{RES}") == 0
    assert RES in town(state, "p1").resources and dict(town(state, "p1").resource_defense) == {}
    held = sum(state.count(f"defense.p{k}") for k in range(1, 7))
    assert state.count("bank.defense") + held == economy()["epic_defense_supply"]
