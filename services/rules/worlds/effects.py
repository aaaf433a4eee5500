"""The effect interpreter: targets of an effect and what each primitive does to the board."""

from __future__ import annotations

from collections.abc import Sequence

from services.rules.engine.api import Event
from services.rules.worlds.board import Board, health_left, of_type
from services.rules.worlds.cards import Effect
from services.rules.worlds.facts import fact, fold
from services.rules.worlds.table import Table
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


def _mods(effect: Effect) -> dict[str, int]:
    m = effect.mods
    raw = {"dmg": m.dmg, "atk": m.atk, "def": m.defence, "hp": m.hp}
    return {k: v for k, v in raw.items() if v}


def facts_for(
    table: Table, seat: str, effect: Effect, chosen: str = "", source: str = ""
) -> tuple[list[Event], int]:
    """The events one primitive causes, and how many cards the seat must now draw."""
    board = table.board
    uids = targets_of(board, seat, effect, chosen, source)
    out: list[Event] = []
    if effect.op == "deal_damage":
        out = [fact("card_damaged", uid=u, amount=effect.n, source=source) for u in uids]
    elif effect.op == "heal":
        out = [
            fact("card_healed", uid=u, amount=min(effect.n, board.get(u).damage))
            for u in uids
            if board.get(u).damage
        ]
    elif effect.op == "modify":
        out = [fact("card_modified", uid=u, mods=_mods(effect), until=effect.until) for u in uids]
    elif effect.op == "draw":
        return [], min(effect.n, board.side(seat).library)
    elif effect.op == "gain_resources":
        out = [fact("resources_changed", seat=seat, delta=effect.n, reason="card")]
    elif effect.op == "capital":
        who = seat if effect.seat == "self" else board.other(seat)
        out = [fact("capital_changed", seat=who, delta=effect.n, reason="card")]
    elif effect.op == "destroy":
        out = [
            fact("card_destroyed", uid=u, card=board.get(u).card, owner=board.get(u).owner)
            for u in uids
        ]
    elif effect.op == "lock":
        out = [fact("card_locked", uid=u) for u in uids]
    return out, 0


def dead_facts(table: Table) -> list[Event]:
    """Cards at 0 Hp or less go to their owners' graveyards."""
    return [
        fact("card_destroyed", uid=p.uid, card=p.card, owner=p.owner)
        for p in table.board.play
        if health_left(table.board, p.uid) <= 0
    ]


def run(table: Table, events: Sequence[Event]) -> Table:
    """Fold events into a table."""
    for event in events:
        table = fold(table, event)
    return table


def resolve_all(
    table: Table, seat: str, effects: Sequence[Effect], chosen: str = "", source: str = ""
) -> tuple[list[Event], int]:
    """The events of a card's effects in order, then the cards they killed; plus draws owed."""
    out: list[Event] = []
    draws = 0
    for effect in effects:
        events, n = facts_for(run(table, out), seat, effect, chosen, source)
        out += events
        draws += n
    return out + dead_facts(run(table, out)), draws
