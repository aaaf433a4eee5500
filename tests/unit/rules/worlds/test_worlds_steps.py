"""Phase rules as events: folding what each phase causes gives the rulebook's result."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from services.rules.worlds import moves, steps
from services.rules.worlds.board import health_left
from services.rules.worlds.cards import using
from services.rules.worlds.combat import Strike
from services.rules.worlds.effects import run
from services.rules.worlds.facts import fact
from services.rules.worlds.table import Table


@pytest.fixture(autouse=True)
def _first_card_data() -> Iterator[None]:
    """These rule examples use card data 1's numbers (the rules, not the data, are tested)."""
    with using(1):
        yield


def _started(p1: tuple[str, ...] = (), p2: tuple[str, ...] = ()) -> Table:
    table = run(Table(), [fact("game_started", seats=["p1", "p2"], library_sizes=[20, 20])])
    events = []
    for seat, cards in (("p1", p1), ("p2", p2)):
        events += [fact("card_drawn", (seat,), seat=seat, card=c) for c in cards]
    table = run(table, events)
    return run(table, steps.begin_turn(table, "p1"))


def _deploy(table: Table, seat: str, card: str, pool: int = 3) -> tuple[Table, str]:
    board = moves.change_pool(table.board, seat, pool)
    board, uid = moves.deploy(board, seat, card)
    return replace(table, board=board), uid


def test_phase_one_sets_the_pool_applies_upkeep_and_unlocks() -> None:
    # given p1 has an Ember Forge (+1 Resource each upkeep) and a locked creature
    table, _ = _deploy(_started(("dra_ember_forge",)), "p1", "dra_ember_forge", pool=1)
    table = run(table, [fact("resources_changed", seat="p1", delta=5, reason="card")])
    # when Phase 1 rolls 1 and 3
    events = steps.resources_phase(table, [1, 3])
    table = run(table, events)
    # then the old pool is gone: 3 from the dice + 1 from the Forge
    assert [e.type for e in events] == ["resources_rolled", "resources_changed", "cards_unlocked"]
    assert table.board.side("p1").pool == 4


def test_phase_two_heals_the_active_players_cards_only() -> None:
    table, mine = _deploy(_started(("uea_marine",)), "p1", "uea_marine")
    table, theirs = _deploy(
        replace(table, board=moves.draw(table.board, "p2", "uea_marine")), "p2", "uea_marine"
    )
    table = run(table, [fact("card_damaged", uid=u, amount=2, source="t") for u in (mine, theirs)])
    table = run(table, steps.healing_phase(table))
    assert health_left(table.board, mine) == 2 and health_left(table.board, theirs) == 1


def test_an_empty_library_costs_one_capital() -> None:
    table = run(_started(), steps.empty_library_cost(_started()))
    assert table.board.side("p1").capital == 19


def test_a_drawn_card_is_seen_only_by_its_drawer() -> None:
    events = steps.drawn("p1", "uea_marine", 19)
    assert events[0].visibility == ("p1",) and events[1].visibility == "public"
    assert "uea_marine" not in str(events[1].data)


def test_combat_rolls_then_resolution_applies_damage_and_raids() -> None:
    # given p1 attacks with a Marine and a Rifleman; p2 lines a Pit Brute up against the Marine
    table = _started(("uea_marine", "uea_rifleman"), ("dae_pit_brute",))
    table, marine = _deploy(table, "p1", "uea_marine")
    table, rifle = _deploy(table, "p1", "uea_rifleman")
    table, brute = _deploy(table, "p2", "dae_pit_brute")
    table = run(
        table,
        [
            fact("attacker_declared", seat="p1", uid=marine),
            fact("attacker_declared", seat="p1", uid=rifle),
            fact("defender_lined_up", seat="p2", defender=brute, attacker=marine),
        ],
    )
    # when both duel sides roll 6 and the rifleman raids
    duel = steps.strike_list(table)
    assert duel == [Strike(marine, brute), Strike(brute, marine)]
    for strike in duel:
        table = run(table, [steps.strike_fact(table, strike, 6)])
    table = run(table, steps.raid_facts(table))
    events = steps.resolution_phase(table)
    table = run(table, events)
    # then the Marine (3 Hp) dies to the Brute's 3, the Brute (4 Hp) survives 2, p2 loses 2
    assert not table.board.has(marine) and health_left(table.board, brute) == 2
    assert table.board.side("p2").capital == 18
    assert table.board.side("p1").graveyard == ("uea_marine",)


def test_the_game_ends_when_capital_reaches_zero() -> None:
    table = _started()
    table = run(table, [fact("capital_changed", seat="p2", delta=-20, capital=0, reason="raid")])
    (end,) = steps.ending(table)
    assert end.data["winner"] == "p1"
    assert run(table, [end]).winner == "p1"
    assert steps.ending(_started()) == []


def test_hand_limit_and_turn_end() -> None:
    cards = tuple(["uea_marine"] * 9)
    table = _started(cards)
    assert steps.discards_owed(table) == 2
    table = run(table, steps.end_turn(table))
    assert table.turn.phase == "ended"
