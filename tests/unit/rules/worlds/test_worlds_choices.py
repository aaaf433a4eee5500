"""What a seat may do: deploys, abilities, attacks, blocks, orders, and the events they cause."""

from __future__ import annotations

from dataclasses import replace

from services.rules.worlds import choices, moves
from services.rules.worlds.board import health_left, stats
from services.rules.worlds.effects import run
from services.rules.worlds.facts import fact
from services.rules.worlds.table import Table


def _table(p1: tuple[str, ...], p2: tuple[str, ...] = (), pool: int = 3) -> Table:
    table = run(Table(), [fact("game_started", seats=["p1", "p2"], library_sizes=[20, 20])])
    draws = [
        fact("card_drawn", (s,), seat=s, card=c) for s, cs in (("p1", p1), ("p2", p2)) for c in cs
    ]
    table = run(table, [*draws, fact("turn_started", seat="p1", turn=1)])
    for seat in ("p1", "p2"):
        table = run(table, [fact("resources_changed", seat=seat, delta=pool, reason="t")])
    return run(table, [fact("phase_started", seat="p1", phase="deploy")])


def _do(table: Table, seat: str, args: dict[str, object]) -> Table:
    events, _ = choices.deploy_events(table, seat, args)
    return run(table, events)


def test_deploy_options_list_affordable_cards_with_their_targets() -> None:
    # given p1 holds a Marine (2), a Mech Walker (3), a Plasma Rifle (1), Orbital Strike (3)
    hand = ("uea_marine", "uea_mech_walker", "uea_plasma_rifle", "uea_orbital_strike")
    table = _table(hand, pool=3)
    # then the rifle has no creature to go on and the Strike has no target
    assert choices.deploy_options(table, "p1") == [
        {"card": "uea_marine"},
        {"card": "uea_mech_walker"},
    ]
    # when the Marine is deployed, then 1 Resource is left: only the rifle, on the Marine
    table = _do(table, "p1", {"card": "uea_marine"})
    assert choices.deploy_options(table, "p1") == [{"card": "uea_plasma_rifle", "on": "p1.1"}]


def test_an_event_needing_a_target_is_offered_once_per_target_and_not_without_one() -> None:
    table = _table(("ns_ambush",), ("uea_marine", "uea_rifleman"), pool=5)
    assert choices.deploy_options(table, "p1") == []
    for card in ("uea_marine", "uea_rifleman"):
        board, _ = moves.deploy(table.board, "p2", card)
        table = replace(table, board=board)
    targets = [o["target"] for o in choices.deploy_options(table, "p1")]
    assert targets == ["p2.1", "p2.2"]
    table = _do(table, "p1", {"card": "ns_ambush", "target": "p2.2"})
    assert not table.board.has("p2.2") and table.board.side("p1").pool == 4


def test_an_ability_is_used_once_per_turn_and_paid_from_the_pool() -> None:
    table = _table(("dae_flame_herald",), ("uea_marine",), pool=5)
    table = _do(table, "p1", {"card": "dae_flame_herald"})
    board, _ = moves.deploy(table.board, "p2", "uea_marine")
    table = replace(table, board=board)
    assert choices.ability_options(table, "p1") == [{"uid": "p1.1", "ability": 0, "target": "p2.2"}]
    events, _ = choices.ability_events(table, "p1", {"uid": "p1.1", "ability": 0, "target": "p2.2"})
    table = run(table, events)
    assert health_left(table.board, "p2.2") == 2 and table.board.side("p1").pool == 2
    assert choices.ability_options(table, "p1") == []
    table = run(table, [fact("turn_ended", seat="p1", turn=1)])
    assert choices.ability_options(table, "p1") != []


def test_heal_abilities_only_in_their_owners_healing_phase() -> None:
    table = _table(("uea_field_medic", "uea_marine"), pool=5)
    table = _do(_do(table, "p1", {"card": "uea_field_medic"}), "p1", {"card": "uea_marine"})
    assert choices.ability_options(table, "p1") == []
    healing = replace(table, turn=replace(table.turn, phase="healing"))
    assert {o["target"] for o in choices.ability_options(healing, "p1")} == {"p1.1", "p1.2"}
    assert (
        choices.ability_options(replace(healing, turn=replace(healing.turn, active="p2")), "p1")
        == []
    )


def test_an_attachment_ability_acts_on_its_bearer() -> None:
    table = _table(("uea_marine", "dae_skull_of_aza"), pool=6)
    table = _do(table, "p1", {"card": "uea_marine"})
    table = _do(table, "p1", {"card": "dae_skull_of_aza", "on": "p1.1"})
    assert stats(table.board, "p1.1").hp == 5
    table = run(table, [fact("card_damaged", uid="p1.1", amount=3, source="t")])
    (option,) = choices.ability_options(table, "p1")
    events, _ = choices.ability_events(table, "p1", option)
    assert health_left(run(table, events).board, "p1.1") == 4


def test_attack_block_and_order_options_follow_the_declarations() -> None:
    table = _table(("uea_commando", "uea_scout_drone"), ("kee_burrow_guard",), pool=9)
    for card in ("uea_commando", "uea_scout_drone"):
        table = _do(table, "p1", {"card": card})
    board, guard = moves.deploy(table.board, "p2", "kee_burrow_guard")
    table = replace(table, board=moves.start_turn(board, "p2", [1, 1]))
    assert choices.attack_options(table) == [{"uid": "p1.1"}, {"uid": "p1.2"}]
    table = run(table, [fact("attacker_declared", seat="p1", uid=u) for u in ("p1.1", "p1.2")])
    assert choices.attack_options(table) == []
    assert len(choices.block_options(table, "p2")) == 2
    table = run(table, [fact("defender_lined_up", seat="p2", defender=guard, attacker="p1.1")])
    # Guard 2: the same defender may also take the second attacker
    assert choices.block_options(table, "p2") == [{"defender": guard, "attacker": "p1.2"}]
    assert choices.order_options(table) == [
        {"uid": "p1.2", "order": "raid"},
        {"uid": "p1.2", "order": "aid", "target": "p1.1"},
    ]


def test_discard_options_are_the_distinct_cards_in_hand() -> None:
    table = _table(("uea_marine", "uea_marine", "kee_tinker"))
    assert choices.discard_options(table, "p1") == [{"card": "kee_tinker"}, {"card": "uea_marine"}]
