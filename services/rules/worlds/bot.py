"""The heuristic bot: a greedy one-step look-ahead over the seat's information set.

It sees only what its seat sees (`mask`): the opponent's hand is a count. Deploys and
abilities are scored by folding their events into a copy of the table and valuing the
board (`tactics.score`); attacks and blocks follow `tactics`; raids are the default order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from services.rules.worlds import choices, tactics
from services.rules.worlds.board import Board, InPlay, Side, with_side
from services.rules.worlds.cards import FIRST_DATA, catalog, using
from services.rules.worlds.effects import run
from services.rules.worlds.table import Table, Turn

Option = tuple[str, dict[str, Any]]
DRAW_VALUE = 1.5
HIDDEN = "?"


def mask(table: Table, seat: str) -> Table:
    """The seat's information set: the opponent's hand becomes unknown cards."""
    foe = table.board.other(seat)
    side = table.board.side(foe)
    board = with_side(table.board, replace(side, hand=(HIDDEN,) * len(side.hand)))
    return replace(table, board=board)


def value_after(table: Table, seat: str, option: Option) -> float:
    """Board value for the seat after an option (drawn cards counted at a flat value)."""
    kind, args = option
    handler = choices.deploy_events if kind == "deploy" else choices.ability_events
    events, draws = handler(table, seat, args)
    return tactics.score(run(table, events).board, seat) + DRAW_VALUE * draws


def _discard(table: Table, options: Sequence[Option]) -> int:
    return min(range(len(options)), key=lambda i: catalog()[options[i][1]["card"]].res)


def choose(table: Table, seat: str, options: Sequence[Option]) -> int:
    """Index of the option to take; options hold ("done", {}) when the seat may stop."""
    kinds = {k for k, _ in options}
    done = next((i for i, (k, _) in enumerate(options) if k == "done"), None)
    if "discard" in kinds:
        return _discard(table, options)
    if "attack" in kinds:
        wanted = tactics.choose_attackers(
            table.board, seat, [a["uid"] for k, a in options if k == "attack"]
        )
        return next(
            (i for i, (k, a) in enumerate(options) if k == "attack" and a["uid"] in wanted),
            done or 0,
        )
    if "block" in kinds:
        attackers = [a for a in table.turn.attackers if table.board.has(a)]
        plan = tactics.choose_blocks(table.board, seat, attackers)
        for i, (k, a) in enumerate(options):
            if k == "block" and plan.get(a["defender"], ())[:1] == (a["attacker"],):
                return i
        return done if done is not None else 0
    if "order" in kinds:
        return next(i for i, (k, a) in enumerate(options) if k == "order" and a["order"] == "raid")
    base = tactics.score(table.board, seat)
    best, best_gain = done if done is not None else 0, 0.01
    for i, option in enumerate(options):
        if option[0] in ("deploy", "use"):
            gain = value_after(table, seat, option) - base
            if gain > best_gain:
                best, best_gain = i, gain
    return best


def table_of(view: Mapping[str, Any]) -> Table:
    """Rebuild a seat's information set from its view (unseen cards stay unknown)."""
    sides = []
    for seat, s in view["sides"].items():
        hand = tuple(s["hand"]) if isinstance(s["hand"], list) else (HIDDEN,) * int(s["hand"])
        sides.append(
            Side(
                seat,
                int(s["capital"]),
                int(s["pool"]),
                hand,
                int(s["library"]),
                tuple(s["graveyard"]),
                bool(s.get("scenario_deployed", False)),
            )
        )
    play = tuple(
        InPlay(
            c["uid"],
            c["card"],
            c["owner"],
            int(c["damage"]),
            bool(c["locked"]),
            bool(c["fresh"]),
            tuple(c["attached"]),
            used=tuple(int(u) for u in c.get("used", ())),
        )
        for c in view["play"]
    )
    turn = view["turn"]
    blocks = tuple((d, tuple(a)) for d, a in turn.get("blocks", {}).items())
    board = Board((sides[0], sides[1]), play, int(view.get("next_uid", 1)))
    t = Turn(turn["active"], int(turn["number"]), turn["phase"], tuple(turn["attackers"]), blocks)
    return Table(board=board, turn=t, winner=view.get("winner", ""))


def service_policy(turn: Any) -> int:
    """The heuristic for a bot seat served through the API (a Turn of services.bots)."""
    options = [(c.kind, dict(c.args)) for c in turn.legal]
    with using(int(turn.view.get("card_data", FIRST_DATA))):  # the game's own card numbers
        return choose(table_of(turn.view), turn.seat, options)
