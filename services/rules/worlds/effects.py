"""The effect interpreter: targets of an effect and what each primitive does to the board."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.rules.worlds import moves
from services.rules.worlds.board import Board, of_type, with_card
from services.rules.worlds.cards import Effect
from services.rules.worlds.vocab import SINGLE_TARGETS


def target_kind(effects: Sequence[Effect]) -> str:
    """The single target the player must choose for these effects ("" if none)."""
    kinds = {e.target for e in effects if e.target in SINGLE_TARGETS and e.target != "bearer"}
    if len(kinds) > 1:
        raise ValueError(f"effects need more than one chosen target: {sorted(kinds)}")
    return next(iter(kinds), "")


def options(board: Board, seat: str, kind: str) -> list[str]:
    """The uids a single target of this kind may be."""
    enemy = board.other(seat)
    if kind == "enemy_creature":
        return [p.uid for p in of_type(board, enemy, "creature")]
    if kind == "own_creature":
        return [p.uid for p in of_type(board, seat, "creature")]
    if kind == "any_creature":
        return [p.uid for p in board.play if p.uid in _creatures(board)]
    if kind == "enemy_scenario":
        return [p.uid for p in of_type(board, enemy, "scenario")]
    return []


def _creatures(board: Board) -> set[str]:
    return {p.uid for s in board.sides for p in of_type(board, s.seat, "creature")}


def _group(board: Board, seat: str, kind: str) -> list[str]:
    enemy = board.other(seat)
    if kind == "all_enemy_creatures":
        return [p.uid for p in of_type(board, enemy, "creature")]
    if kind == "all_own_creatures":
        return [p.uid for p in of_type(board, seat, "creature")]
    return sorted(_creatures(board))


def targets_of(board: Board, seat: str, effect: Effect, chosen: str, source: str) -> list[str]:
    """The uids one effect acts on, given the chosen target and the source card."""
    if effect.target == "bearer":
        return [source] if board.has(source) else []
    if effect.target in SINGLE_TARGETS:
        return [chosen] if board.has(chosen) else []
    if effect.target:
        return _group(board, seat, effect.target)
    return []


def apply(
    board: Board, seat: str, effect: Effect, chosen: str = "", source: str = ""
) -> tuple[Board, int]:
    """Apply one primitive; return the board and how many cards the seat must now draw."""
    uids = targets_of(board, seat, effect, chosen, source)
    if effect.op == "deal_damage":
        for uid in uids:
            board = moves.damage(board, uid, effect.n)
        return moves.remove_dead(board)[0], 0
    if effect.op == "heal":
        for uid in uids:
            board = moves.heal(board, uid, effect.n)
        return board, 0
    if effect.op == "modify":
        for uid in uids:
            p = board.get(uid)
            if effect.until == "turn":
                board = with_card(board, replace(p, temp=p.temp + effect.mods))
            else:
                board = with_card(board, replace(p, perm=p.perm + effect.mods))
        return moves.remove_dead(board)[0], 0
    if effect.op == "draw":
        return board, min(effect.n, board.side(seat).library)
    if effect.op == "gain_resources":
        return moves.change_pool(board, seat, effect.n), 0
    if effect.op == "capital":
        who = seat if effect.seat == "self" else board.other(seat)
        return moves.change_capital(board, who, effect.n), 0
    if effect.op == "destroy":
        for uid in uids:
            board = moves.destroy(board, uid)
        return board, 0
    if effect.op == "lock":
        return moves.lock(board, uids), 0
    raise ValueError(f"unknown primitive {effect.op}")


def apply_all(
    board: Board, seat: str, effects: Sequence[Effect], chosen: str = "", source: str = ""
) -> tuple[Board, int]:
    """Apply effects in order; return the board and the total cards to draw."""
    draws = 0
    for effect in effects:
        board, n = apply(board, seat, effect, chosen, source)
        draws += n
    return board, draws
