"""A vehicle's own load of Spoils, limited by the vehicle's capacity (docs/games/land.md 6.1).

Expansion, Epic setup 7.): "Taking note of your Character's Carrying Capacity, assign Spoils
cards to them." Public source [BT]: a party has "5 character slots ("crowns") plus 1 vehicle
slot", and "for vehicles the "carry weight" field appears to hold carrying capacity". The
capacity of each vehicle is data (spoils.yaml `capacity`); the rest is our choice.
"""

from __future__ import annotations

import pytest

from services.platform.errors import RuleViolation
from services.rules.engine.flow import Ctx
from services.rules.land.data import card, catalog
from services.rules.land.party import Party, can_load, equip, skill_values, vehicle_capacity
from services.rules.land.state import party
from tests.unit.rules.land.support import act, drive, edit, legal, run_task, setup, waiting

BIKE, KNIFE, RIFLE = "dirt_bike#1", "survival_knife#1", "rifle_556#1"


def test_every_vehicle_card_has_a_capacity() -> None:
    spoils = catalog().decks["spoils"]
    vehicles = {c for c in spoils if "vehicle" in card(c)["types"]}
    assert vehicles and all(vehicle_capacity(v) > 0 for v in vehicles)


def test_a_load_fits_within_the_vehicle_capacity() -> None:
    # given a Dirt Bike (capacity 3)
    assert vehicle_capacity(BIKE) == 3
    # then a knife (weight 1) fits, a rifle (weight 5) does not, three knives do not
    assert can_load(BIKE, [], KNIFE)
    assert not can_load(BIKE, [], RIFLE)
    assert not can_load(BIKE, ["survival_knife#2", "survival_knife#3"], "hunting_bow#1")
    # and a party without a vehicle loads nothing
    assert not can_load(None, [], KNIFE)


@pytest.mark.parametrize("spoils", ["horse#1", "ally_scout#1", "ev_cache#1", "semi_truck#1"])
def test_horses_allies_events_and_vehicles_are_not_stowed(spoils: str) -> None:
    assert not can_load("semi_truck#2", [], spoils)


def test_setup_refuses_a_load_over_capacity() -> None:
    crowns = {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"}
    chars = [*crowns.values(), "ch_06"]
    with pytest.raises(RuleViolation, match="capacity"):
        equip(chars, [BIKE, RIFLE], crowns, {}, vehicle=BIKE, vehicle_gear=[RIFLE])


def test_stowed_spoils_add_no_skill() -> None:
    crowns = {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"}
    bare, _, _ = equip([*crowns.values()], [BIKE], crowns, {}, vehicle=BIKE)
    loaded, _, _ = equip([*crowns.values()], [BIKE, KNIFE], crowns, {}, BIKE, [KNIFE])
    assert isinstance(loaded, Party) and loaded.vehicle_gear == (KNIFE,)
    assert skill_values(loaded, "combat") == skill_values(bare, "combat")


def _garage(ctx: Ctx) -> None:
    ctx.emit("zone_set", {"zone": "vehicle.p1", "cards": [BIKE]})
    ctx.emit("zone_set", {"zone": "auction.p1", "cards": [KNIFE, RIFLE]})


def test_purchase_loads_what_fits_and_unloads_it_again() -> None:
    # given p1 in Purchase with a Dirt Bike and a knife and a rifle in its Auction House
    state = edit(drive(setup(2), waiting("purchase", "p1")), _garage)
    opts = legal(state, "p1")
    # then only the knife can be loaded
    assert ("load", {"card": KNIFE}) in opts and ("load", {"card": RIFLE}) not in opts
    # when it loads the knife
    state, events = act(state, "p1", "load", card=KNIFE)
    # then the knife rides in the vehicle's load, part of the party
    assert any(e.type == "spoils_loaded" for e in events)
    assert state.zone("load.p1") == (KNIFE,) and party(state, "p1").vehicle_gear == (KNIFE,)
    # and it can be unloaded back to the Auction House
    assert ("unload", {"card": KNIFE}) in legal(state, "p1")
    state, events = act(state, "p1", "unload", card=KNIFE)
    assert state.zone("load.p1") == () and KNIFE in state.zone("auction.p1")


def test_the_load_can_be_looted_in_pvp() -> None:
    # given p1 with a knife in its Dirt Bike's load
    state = edit(drive(setup(2), waiting("purchase", "p1")), _garage)
    state, _ = act(state, "p1", "load", card=KNIFE)
    # when PVP's loot picks it, then it goes to the winner's Auction House
    args = {"seat": "p1", "to": "p2", "gear": [KNIFE], "order": [0]}
    state, types = run_task(state, "lost_spoils", args)
    assert "spoils_lost" in types and KNIFE in state.zone("auction.p2")
    assert state.zone("load.p1") == ()
