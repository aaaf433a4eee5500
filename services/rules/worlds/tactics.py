"""Pure judgement for the heuristic bot: hit chances, board value, whom to attack and block with."""

from __future__ import annotations

from fractions import Fraction

from services.rules.worlds.board import Board, health_left, of_type, stats
from services.rules.worlds.combat import is_hit

CAPITAL_WEIGHT = 3


def hit_chance(attack: int, defence: int) -> Fraction:
    """Chance that one d6 hits (exact)."""
    return Fraction(sum(is_hit(r, attack, defence) for r in range(1, 7)), 6)


def unit_value(board: Board, uid: str) -> float:
    """A card's worth on the table: its stats with health scaled by what is left."""
    s = stats(board, uid)
    left = max(0, health_left(board, uid))
    return s.dmg * 1.5 + s.atk + s.defence + left


def score(board: Board, seat: str) -> float:
    """How good the board is for a seat: Capital, cards in play, cards in hand, pool."""
    foe = board.other(seat)

    def side_value(who: str) -> float:
        side = board.side(who)
        table = sum(unit_value(board, p.uid) for p in board.play if p.owner == who)
        return CAPITAL_WEIGHT * side.capital + table + 1.5 * len(side.hand) + 0.2 * side.pool

    if board.side(foe).capital <= 0:
        return 1e6
    if board.side(seat).capital <= 0:
        return -1e6
    return side_value(seat) - side_value(foe)


def duel_value(board: Board, attacker: str, defender: str) -> float:
    """Expected gain for the attacker's side of one duel (damage dealt minus damage taken)."""
    a, d = stats(board, attacker, True), stats(board, defender)
    dealt = float(hit_chance(a.atk, d.defence)) * a.dmg
    taken = float(hit_chance(d.atk, a.defence)) * d.dmg
    kill = dealt >= health_left(board, defender)
    die = taken >= health_left(board, attacker)
    return (
        dealt
        - taken
        + (unit_value(board, defender) if kill else 0)
        - (unit_value(board, attacker) if die else 0)
    )


def choose_blocks(board: Board, seat: str, attackers: list[str]) -> dict[str, tuple[str, ...]]:
    """Line each free defender up against the attacker where it trades best (or not at all)."""
    blocks: dict[str, tuple[str, ...]] = {}
    danger = sorted(attackers, key=lambda a: -stats(board, a, True).dmg)
    free = [p.uid for p in of_type(board, seat, "creature") if not p.locked]
    capital = board.side(seat).capital
    raid_total = sum(stats(board, a, True).dmg for a in attackers)
    for attacker in danger:
        if not free:
            break
        best = max(free, key=lambda d: -duel_value(board, attacker, d))
        must = raid_total >= capital
        raid_cost = CAPITAL_WEIGHT * stats(board, attacker, True).dmg
        if must or -duel_value(board, attacker, best) > -raid_cost:
            blocks[best] = (attacker,)
            free.remove(best)
            raid_total -= stats(board, attacker, True).dmg
    return blocks


def choose_attackers(board: Board, seat: str, available: list[str]) -> list[str]:
    """Attack with creatures that win their likely duel or would raid for real damage."""
    foe = board.other(seat)
    defenders = [p.uid for p in of_type(board, foe, "creature") if not p.locked]
    chosen = []
    for uid in available:
        if not defenders:
            chosen.append(uid)
            continue
        worst = min(duel_value(board, uid, d) for d in defenders)
        if worst >= 0 or stats(board, uid, True).dmg >= board.side(foe).capital:
            chosen.append(uid)
    return chosen
