"""Moves on the board: deploying, attachments, effects, healing, combat outcome, end of turn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.rules.worlds import effects, moves
from services.rules.worlds.board import Board, health_left, new_board, stats
from services.rules.worlds.cards import Effect, Stats, catalog_of, using
from services.rules.worlds.combat import CombatPlan, Outcome
from services.rules.worlds.table import Table


@pytest.fixture(autouse=True)
def _first_card_data() -> Iterator[None]:
    """These rule examples use card data 1's numbers (the rules, not the data, are tested)."""
    with using(1):
        yield


CAT = catalog_of(1)  # the examples quote card data 1's numbers


def _table(p1_hand: tuple[str, ...] = (), p2_hand: tuple[str, ...] = (), pool: int = 3) -> Board:
    board = new_board(("p1", "p2"), (10, 10))
    for card in p1_hand:
        board = moves.draw(board, "p1", card)
    for card in p2_hand:
        board = moves.draw(board, "p2", card)
    board = moves.change_pool(board, "p1", pool)
    return moves.change_pool(board, "p2", pool)


def _resolve(board: Board, fx: tuple[Effect, ...], chosen: str = "") -> tuple[Board, int]:
    table = Table(board=board)
    events, draws = effects.resolve_all(table, "p1", fx, chosen=chosen)
    return effects.run(table, events).board, draws


def test_deploying_a_creature_pays_its_cost_and_it_cannot_attack_yet() -> None:
    # given p1 holds a Marine (cost 2) and 3 Resources
    board = _table(("uea_marine",))
    # when p1 deploys it
    board, uid = moves.deploy(board, "p1", "uea_marine")
    # then it is in play, fresh, the pool is 1, and it may not attack this turn
    assert board.get(uid).fresh and board.side("p1").pool == 1
    assert board.side("p1").hand == () and board.side("p1").library == 9
    assert moves.attackers_available(board, "p1") == []


def test_a_swift_creature_attacks_the_turn_it_is_deployed() -> None:
    board, uid = moves.deploy(_table(("uea_commando",)), "p1", "uea_commando")
    assert moves.attackers_available(board, "p1") == [uid]


def test_unaffordable_cards_and_cards_not_in_hand_are_refused() -> None:
    with pytest.raises(moves.MoveError, match="Resources"):
        moves.deploy(_table(("uea_mech_walker",), pool=2), "p1", "uea_mech_walker")
    with pytest.raises(moves.MoveError, match="not in"):
        moves.deploy(_table(), "p1", "uea_marine")


def test_only_one_scenario_per_turn_until_the_next_turn_starts() -> None:
    board = _table(("kee_burrow_hall", "kee_mushroom_garden"), pool=3)
    board, _ = moves.deploy(board, "p1", "kee_mushroom_garden")
    with pytest.raises(moves.MoveError, match="one Scenario"):
        moves.deploy(board, "p1", "kee_burrow_hall")
    board = moves.start_turn(board, "p1", [3, 1])
    assert moves.deploy(board, "p1", "kee_burrow_hall")[0].side("p1").pool == 1


def test_an_attachment_goes_on_an_own_creature_and_changes_its_stats() -> None:
    board = _table(("uea_marine", "uea_plasma_rifle", "uea_field_training"), pool=3)
    board, marine = moves.deploy(board, "p1", "uea_marine")
    assert moves.attach_targets(board, "p1", "uea_plasma_rifle") == [marine]
    board, _ = moves.deploy(board, "p1", "uea_plasma_rifle", on=marine)
    assert stats(board, marine) == Stats(dmg=3, atk=4, defence=3, hp=3)
    with pytest.raises(moves.MoveError, match="cannot be attached"):
        moves.deploy(board, "p1", "uea_field_training", on="p2.99")


def test_a_scenario_aura_lifts_its_owners_creatures() -> None:
    board = _table(("uea_marine", "uea_forward_base"), pool=6)
    board, marine = moves.deploy(board, "p1", "uea_marine")
    board, _ = moves.deploy(board, "p1", "uea_forward_base")
    assert stats(board, marine).defence == 4


def test_an_event_deals_damage_and_a_creature_at_zero_leaves_at_once() -> None:
    board = _table(("ns_ambush",), ("uea_rifleman",))
    board, rifleman = moves.deploy(board, "p2", "uea_rifleman")
    event = CAT["ns_ambush"]
    assert effects.target_kind(event.effects) == "enemy_creature"
    assert effects.options(board, "p1", "enemy_creature") == [rifleman]
    board = moves.play_event(board, "p1", "ns_ambush")
    board, draws = _resolve(board, event.effects, chosen=rifleman)
    assert not board.has(rifleman) and draws == 0
    assert board.side("p2").graveyard == ("uea_rifleman",)
    assert board.side("p1").graveyard == ("ns_ambush",)


def test_draw_and_capital_effects() -> None:
    board = _table(("dae_blood_pact",))
    board, draws = _resolve(board, CAT["dae_blood_pact"].effects)
    assert draws == 2 and board.side("p1").capital == 18


def test_temporary_modifiers_end_with_the_turn_and_permanent_ones_stay() -> None:
    board, uid = moves.deploy(_table(("uea_marine",)), "p1", "uea_marine")
    board, _ = _resolve(board, CAT["fel_pounce"].effects, chosen=uid)
    assert stats(board, uid).atk == 5
    assert stats(moves.end_turn(board), uid).atk == 3


def test_healing_phase_heals_one_or_all_with_regenerate() -> None:
    board = _table(("uea_marine", "fel_moon_spirit"), pool=4)
    board, marine = moves.deploy(board, "p1", "uea_marine")
    board, spirit = moves.deploy(board, "p1", "fel_moon_spirit")
    board = moves.damage(moves.damage(board, marine, 2), spirit, 2)
    board, healed = moves.healing_phase(board, "p1")
    assert health_left(board, marine) == 2 and health_left(board, spirit) == 3
    assert dict(healed) == {marine: 1, spirit: 2}


def test_combat_outcome_is_applied_at_once_and_raids_cost_capital() -> None:
    board = _table(("uea_marine",), ("dae_pit_brute",), pool=3)
    board, marine = moves.deploy(board, "p1", "uea_marine")
    board, brute = moves.deploy(board, "p2", "dae_pit_brute")
    board, dead = moves.apply_outcome(board, Outcome({marine: 3, brute: 2}, raid=2), "p2")
    assert [d.uid for d in dead] == [marine]
    assert health_left(board, brute) == 2 and board.side("p2").capital == 18


def test_fighters_use_frenzy_only_for_attackers() -> None:
    board = _table(("fel_claw_dancer",), ("fel_claw_dancer",))
    board, mine = moves.deploy(board, "p1", "fel_claw_dancer")
    board, theirs = moves.deploy(board, "p2", "fel_claw_dancer")
    got = moves.fighters(board, CombatPlan((mine,), {theirs: (mine,)}, {}))
    assert (got[mine].atk, got[mine].dmg) == (4, 3)
    assert (got[theirs].atk, got[theirs].dmg) == (3, 2)


def test_locked_creatures_neither_attack_nor_defend_until_unlocked() -> None:
    board = _table(("uea_marine",))
    board, marine = moves.deploy(board, "p1", "uea_marine")
    board = moves.lock(moves.start_turn(board, "p1", [2, 1]), [marine])
    assert moves.attackers_available(board, "p1") == []
    assert moves.defenders_available(board, "p1") == []
    board = moves.start_turn(board, "p1", [1, 1])
    assert moves.attackers_available(board, "p1") == [marine]


def test_an_empty_library_costs_capital_in_the_draw_phase() -> None:
    board = new_board(("p1", "p2"), (0, 3))
    drawn, board = moves.draw_phase_cost(board, "p1")
    assert not drawn and board.side("p1").capital == 19
    drawn, board = moves.draw_phase_cost(board, "p2")
    assert drawn and board.side("p2").capital == 20
