"""The rules of each phase as pure functions from the table to the events they cause."""

from __future__ import annotations

from collections.abc import Sequence

from services.rules.engine.api import Event
from services.rules.worlds import moves
from services.rules.worlds.board import card_of, keywords, stats
from services.rules.worlds.cards import catalog
from services.rules.worlds.combat import CombatPlan, Strike, is_hit, strikes, to_hit
from services.rules.worlds.effects import dead_facts, resolve_all, run
from services.rules.worlds.facts import fact
from services.rules.worlds.plan import default_orders
from services.rules.worlds.table import Table
from services.rules.worlds.turn import discards_needed, has_lost, resources_gained


def begin_turn(table: Table, seat: str) -> list[Event]:
    """A new turn for a seat starts in Phase 1."""
    return [fact("turn_started", seat=seat, turn=table.turn.number + 1)]


def _upkeep(table: Table, out: list[Event], healing: bool) -> list[Event]:
    """The active seat's Scenario upkeep effects: the healing ones (or the others) only."""
    seat = table.turn.active
    for p in moves.of_type(table.board, seat, "scenario"):
        effects = tuple(e for e in catalog()[p.card].on_upkeep if (e.op == "heal") == healing)
        if effects:
            events, _ = resolve_all(run(table, out), seat, effects, source=p.uid)
            out = [*out, *events]
    return out


def resources_phase(table: Table, faces: Sequence[int]) -> list[Event]:
    """Phase 1: empty the pool, add the higher die, Scenario upkeep, unlock every card
    (rules version 4 on: a Scenario's healing waits for Phase 2, Healing)."""
    seat = table.turn.active
    gained = resources_gained(faces)
    out = [fact("resources_rolled", seat=seat, faces=list(faces), gained=gained, pool=gained)]
    if table.phased:
        out = _upkeep(table, out, healing=False)
    else:
        for p in moves.of_type(table.board, seat, "scenario"):
            on_upkeep = catalog()[p.card].on_upkeep
            events, _ = resolve_all(run(table, out), seat, on_upkeep, source=p.uid)
            out += events
    return [*out, fact("cards_unlocked", seat=seat)]


def healing_phase(table: Table) -> list[Event]:
    """Phase 2: every damaged card of the active seat heals 1 (Regenerate: all), then its
    Scenarios' healing upkeep (rules version 4 on)."""
    seat = table.turn.active
    out = [fact("phase_started", seat=seat, phase="healing")]
    for p in table.board.play:
        if p.owner == seat and p.damage:
            amount = p.damage if "regenerate" in keywords(table.board, p.uid) else 1
            out.append(fact("card_healed", uid=p.uid, amount=amount))
    return _upkeep(table, out, healing=True) if table.phased else out


def empty_library_cost(table: Table) -> list[Event]:
    """Phase 3 with an empty library: one Capital instead of a card."""
    seat = table.turn.active
    capital = table.board.side(seat).capital - 1
    return [fact("capital_changed", seat=seat, delta=-1, capital=capital, reason="empty_library")]


def drawn(seat: str, card: str, library_after: int) -> list[Event]:
    """A card drawn: the card for its drawer, the count for everyone."""
    return [
        fact("card_drawn", (seat,), seat=seat, card=card),
        fact("cards_drawn", seat=seat, count=1, library_size=library_after),
    ]


def plan_of(table: Table) -> CombatPlan:
    """The combat declared this turn, with unchallenged attackers raiding by default; a card
    removed since it was declared (an ability in the window before the rolls) takes no part."""
    on = table.board.has
    attackers = tuple(a for a in table.turn.attackers if on(a))
    blocks = {
        d: tuple(a for a in against if on(a))
        for d, against in table.turn.blocks
        if on(d) and any(on(a) for a in against)
    }
    orders = {
        a: order for a, order in table.turn.orders if on(a) and (order[0] == "raid" or on(order[1]))
    }
    plan = CombatPlan(attackers, blocks, orders)
    return CombatPlan(plan.attackers, plan.blocks, default_orders(plan))


def strike_list(table: Table) -> list[Strike]:
    """Every roll the combat needs (sides with Attack 0 roll nothing)."""
    board = table.board
    plan = plan_of(table)
    scen = {
        p.uid: stats(board, p.uid).atk
        for p in board.play
        if card_of(board, p.uid).type == "scenario"
    }
    fighters = moves.fighters(board, plan)
    return [s for s in strikes(plan, scen) if fighters[s.striker].atk > 0]


def strike_fact(table: Table, strike: Strike, roll: int) -> Event:
    """One combat roll and what it does."""
    attackers = set(table.turn.attackers)
    me = stats(table.board, strike.striker, strike.striker in attackers)
    foe = stats(table.board, strike.target, strike.target in attackers)
    hit = is_hit(roll, me.atk, foe.defence)
    return fact(
        "strike_rolled",
        striker=strike.striker,
        target=strike.target,
        needed=to_hit(me.atk, foe.defence),
        roll=roll,
        hit=hit,
        damage=me.dmg if hit else 0,
    )


def raid_facts(table: Table) -> list[Event]:
    """Unchallenged attackers on a Raid break through."""
    plan = plan_of(table)
    defender = table.board.other(table.turn.active)
    return [
        fact("raid", attacker=a, seat=defender, damage=stats(table.board, a, True).dmg)
        for a in plan.attackers
        if plan.orders.get(a, ("", ""))[0] == "raid" and table.board.has(a)
    ]


def resolution_phase(table: Table) -> list[Event]:
    """Phase 6: all damage at once, raids cost Capital, the dead leave play."""
    seat = table.turn.active
    out = [fact("phase_started", seat=seat, phase="resolution")]
    for uid, n in table.turn.damage:
        if table.board.has(uid):
            out.append(fact("card_damaged", uid=uid, amount=n, source="combat"))
    if table.turn.raid:
        foe = table.board.other(seat)
        capital = table.board.side(foe).capital - table.turn.raid
        out.append(
            fact(
                "capital_changed", seat=foe, delta=-table.turn.raid, capital=capital, reason="raid"
            )
        )
    return out + dead_facts(run(table, out))


def discards_owed(table: Table) -> int:
    """Cards the active seat must discard down to seven."""
    return discards_needed(len(table.board.side(table.turn.active).hand))


def end_turn(table: Table) -> list[Event]:
    """Temporary modifiers end with the turn."""
    return [fact("turn_ended", seat=table.turn.active, turn=table.turn.number)]


def ending(table: Table) -> list[Event]:
    """A seat at 0 Capital loses at once (the active seat's opponent is checked first)."""
    if table.winner:
        return []
    active = table.turn.active or table.board.sides[0].seat
    for seat in (table.board.other(active), active):
        if has_lost(table.board.side(seat).capital):
            return [fact("game_ended", winner=table.board.other(seat), reason="capital")]
    return []
