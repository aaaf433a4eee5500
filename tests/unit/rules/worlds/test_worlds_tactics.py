"""The heuristic's judgement: exact hit chances, board value, attacks and blocks."""

from __future__ import annotations

from fractions import Fraction

from services.rules.worlds import moves, tactics
from services.rules.worlds.board import Board, new_board


def _table(p1: tuple[str, ...], p2: tuple[str, ...]) -> tuple[Board, list[str], list[str]]:
    board = new_board(("p1", "p2"), (5, 5))
    uids: dict[str, list[str]] = {"p1": [], "p2": []}
    for seat, cards in (("p1", p1), ("p2", p2)):
        board = moves.change_pool(board, seat, 20)
        for card in cards:
            board = moves.draw(board, seat, card) if board.side(seat).library else board
            board, uid = moves.deploy(board, seat, card)
            uids[seat].append(uid)
    for seat in ("p1", "p2"):
        board = moves.start_turn(board, seat, [1, 1])
    return board, uids["p1"], uids["p2"]


def test_hit_chances_follow_the_table() -> None:
    assert tactics.hit_chance(3, 4) == Fraction(2, 6)
    assert tactics.hit_chance(10, 1) == Fraction(5, 6)
    assert tactics.hit_chance(1, 10) == Fraction(1, 6)
    assert tactics.hit_chance(0, 1) == 0


def test_score_prefers_more_capital_and_wins_outright_at_zero() -> None:
    board, _, _ = _table((), ())
    assert tactics.score(board, "p1") == 0
    hurt = moves.change_capital(board, "p2", -5)
    assert tactics.score(hurt, "p1") > 0 > tactics.score(hurt, "p2")
    assert tactics.score(moves.change_capital(board, "p2", -20), "p1") == 1e6


def test_with_no_defenders_every_available_creature_attacks() -> None:
    board, mine, _ = _table(("uea_marine", "uea_rifleman"), ())
    assert tactics.choose_attackers(board, "p1", mine) == mine


def test_a_weak_attacker_stays_home_against_a_wall() -> None:
    board, mine, _ = _table(("kee_tinker",), ("dae_gate_colossus",))
    assert tactics.choose_attackers(board, "p1", mine) == []


def test_a_sturdy_defender_blocks_a_big_raider() -> None:
    board, mine, theirs = _table(("dae_horned_tyrant",), ("kee_rootwall",))
    assert tactics.choose_blocks(board, "p2", mine) == {theirs[0]: (mine[0],)}
