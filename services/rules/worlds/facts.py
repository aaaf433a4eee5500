"""The event vocabulary of Fallen Worlds: constructors, and how each fact folds into the table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from services.rules.engine.api import Event
from services.rules.worlds import moves
from services.rules.worlds.board import Board, new_board, with_card
from services.rules.worlds.cards import Stats
from services.rules.worlds.frozen import renew
from services.rules.worlds.table import BEFORE_PHASED, Table, Turn

Fold = Callable[[Table, Mapping[str, Any]], Table]


def fact(kind: str, visibility: str | tuple[str, ...] = "public", **data: Any) -> Event:
    """Build one event of the vocabulary (docs/games/worlds.md, "Events")."""
    if kind not in FOLDS:
        raise ValueError(f"{kind} is not a Fallen Worlds event")
    return Event(kind, data, visibility)


def _board(fn: Callable[[Board, Mapping[str, Any]], Board]) -> Fold:
    return lambda t, d: renew(t, board=fn(t.board, d))


def _started(t: Table, d: Mapping[str, Any]) -> Table:
    seats, sizes = d["seats"], d["library_sizes"]
    board = new_board((seats[0], seats[1]), (sizes[0], sizes[1]))
    rules = int(d.get("rules", BEFORE_PHASED))
    data = int(d.get("card_data", 1))
    return Table(board=board, bots=tuple(d.get("bots", ())), rules=rules, card_data=data)


def _turn(t: Table, d: Mapping[str, Any]) -> Table:
    return renew(t, turn=Turn(active=d["seat"], number=d["turn"], phase="resources"))


def _phase(t: Table, d: Mapping[str, Any]) -> Table:
    return renew(t, turn=renew(t.turn, phase=d["phase"]))


def _rolled(b: Board, d: Mapping[str, Any]) -> Board:
    return moves.change_pool(b, d["seat"], d["pool"] - b.side(d["seat"]).pool)


def _unlocked(b: Board, d: Mapping[str, Any]) -> Board:
    seat = d["seat"]
    side = renew(b.side(seat), scenario_deployed=False)
    play = tuple(renew(p, locked=False, fresh=False) if p.owner == seat else p for p in b.play)
    return renew(moves.with_side(b, side), play=play)


def _deployed(b: Board, d: Mapping[str, Any]) -> Board:
    board, uid = moves.deploy(b, d["seat"], d["card"], d.get("on", ""))
    if uid != d["uid"]:
        raise ValueError(f"deployed as {uid}, recorded as {d['uid']}")
    return board


def _ability(b: Board, d: Mapping[str, Any]) -> Board:
    b = moves.change_pool(b, d["seat"], -d["paid"])
    p = b.get(d["uid"])
    return with_card(b, renew(p, used=(*p.used, d["ability"])))


def _modified(b: Board, d: Mapping[str, Any]) -> Board:
    p = b.get(d["uid"])
    mods = Stats(**{("defence" if k == "def" else k): v for k, v in d["mods"].items()})
    if d["until"] == "turn":
        return with_card(b, renew(p, temp=p.temp + mods))
    return with_card(b, renew(p, perm=p.perm + mods))


def _attacker(t: Table, d: Mapping[str, Any]) -> Table:
    board = moves.lock(t.board, [d["uid"]])
    return renew(t, board=board, turn=renew(t.turn, attackers=(*t.turn.attackers, d["uid"])))


def _lined_up(t: Table, d: Mapping[str, Any]) -> Table:
    blocks = dict(t.turn.blocks)
    blocks[d["defender"]] = (*blocks.get(d["defender"], ()), d["attacker"])
    return renew(t, turn=renew(t.turn, blocks=tuple(blocks.items())))


def _order(t: Table, d: Mapping[str, Any]) -> Table:
    orders = (*t.turn.orders, (d["uid"], (d["order"], d.get("target", ""))))
    return renew(t, turn=renew(t.turn, orders=orders))


def _strike(t: Table, d: Mapping[str, Any]) -> Table:
    if not d["hit"] or d["damage"] <= 0:
        return t
    pending = dict(t.turn.damage)
    pending[d["target"]] = pending.get(d["target"], 0) + d["damage"]
    return renew(t, turn=renew(t.turn, damage=tuple(pending.items())))


def _raid(t: Table, d: Mapping[str, Any]) -> Table:
    return renew(t, turn=renew(t.turn, raid=t.turn.raid + d["damage"]))


def _ended(t: Table, d: Mapping[str, Any]) -> Table:
    return renew(t, board=moves.end_turn(t.board), turn=renew(t.turn, phase="ended"))


def _over(t: Table, d: Mapping[str, Any]) -> Table:
    return renew(t, winner=d["winner"], turn=renew(t.turn, phase="over"))


def _note(t: Table, d: Mapping[str, Any]) -> Table:
    return t


FOLDS: dict[str, Fold] = {
    "game_started": _started,
    "first_player_chosen": _note,
    "cards_drawn": _note,
    "card_drawn": _board(lambda b, d: moves.draw(b, d["seat"], d["card"])),
    "turn_started": _turn,
    "phase_started": _phase,
    "resources_rolled": _board(_rolled),
    "resources_changed": _board(lambda b, d: moves.change_pool(b, d["seat"], d["delta"])),
    "cards_unlocked": _board(_unlocked),
    "card_healed": _board(lambda b, d: moves.heal(b, d["uid"], d["amount"])),
    "capital_changed": _board(lambda b, d: moves.change_capital(b, d["seat"], d["delta"])),
    "card_deployed": _board(_deployed),
    "event_played": _board(lambda b, d: moves.play_event(b, d["seat"], d["card"])),
    "ability_used": _board(_ability),
    "card_damaged": _board(lambda b, d: moves.damage(b, d["uid"], d["amount"])),
    "card_modified": _board(_modified),
    "card_locked": _board(lambda b, d: moves.lock(b, [d["uid"]])),
    "attacker_declared": _attacker,
    "defender_lined_up": _lined_up,
    "order_given": _order,
    "strike_rolled": _strike,
    "raid": _raid,
    "card_destroyed": _board(lambda b, d: moves.destroy(b, d["uid"])),
    "priority_passed": _note,
    "card_discarded": _board(lambda b, d: moves.discard(b, d["seat"], d["card"])),
    "turn_ended": _ended,
    "game_ended": _over,
}


def fold(table: Table, event: Event) -> Table:
    """Return the table after one event (informational notes change nothing)."""
    return FOLDS[event.type](table, event.data)
