"""Pure moves on the board: draw, deploy, destroy, turn start, healing, combat, end of turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from services.rules.worlds.board import (
    Board,
    InPlay,
    card_of,
    health_left,
    keywords,
    of_type,
    stats,
    with_card,
    with_side,
)
from services.rules.worlds.cards import Stats, catalog
from services.rules.worlds.combat import CombatPlan, Fighter, Outcome
from services.rules.worlds.plan import may_attack
from services.rules.worlds.turn import can_attach, draw_or_pay, healed, pool_after_roll


class MoveError(ValueError):
    """A move the rules do not allow now (the reason names the card)."""


def draw(board: Board, seat: str, card: str) -> Board:
    """A card comes from the top of the seat's library into its hand."""
    side = board.side(seat)
    if side.library <= 0:
        raise MoveError(f"{seat} has no library to draw from")
    return with_side(board, replace(side, hand=(*side.hand, card), library=side.library - 1))


def draw_phase_cost(board: Board, seat: str) -> tuple[bool, Board]:
    """Phase 3: (draws a card?, board) — an empty library costs one Capital instead."""
    side = board.side(seat)
    drawn, capital = draw_or_pay(side.library, side.capital)
    return drawn, with_side(board, replace(side, capital=capital))


def change_pool(board: Board, seat: str, delta: int) -> Board:
    """Pay (negative) or gain Resources; the pool never goes below zero."""
    side = board.side(seat)
    if side.pool + delta < 0:
        raise MoveError(f"{seat} has {side.pool} Resources, needs {-delta}")
    return with_side(board, replace(side, pool=side.pool + delta))


def change_capital(board: Board, seat: str, delta: int) -> Board:
    """Gain or lose Capital."""
    side = board.side(seat)
    return with_side(board, replace(side, capital=side.capital + delta))


def _from_hand(board: Board, seat: str, card: str) -> Board:
    side = board.side(seat)
    if card not in side.hand:
        raise MoveError(f"{card} is not in {seat}'s hand")
    hand = list(side.hand)
    hand.remove(card)
    return with_side(board, replace(side, hand=tuple(hand)))


def to_graveyard(board: Board, seat: str, cards: Iterable[str]) -> Board:
    """Cards go face up onto a seat's graveyard."""
    side = board.side(seat)
    return with_side(board, replace(side, graveyard=(*side.graveyard, *cards)))


def attach_targets(board: Board, seat: str, card: str) -> list[str]:
    """The seat's creatures that may take this attachment."""
    attachment = catalog()[card]
    return [
        p.uid
        for p in of_type(board, seat, "creature")
        if can_attach(catalog()[p.card], [catalog()[a] for a in p.attached], attachment)
    ]


def deploy(board: Board, seat: str, card: str, on: str = "") -> tuple[Board, str]:
    """Pay for and put a Creature, Scenario or Attachment into play; return (board, uid)."""
    definition = catalog()[card]
    if definition.type == "event":
        raise MoveError(f"{card} is an Event: play it, do not deploy it")
    side = board.side(seat)
    if definition.type == "scenario" and side.scenario_deployed:
        raise MoveError(f"{card}: only one Scenario can be deployed each turn")
    if definition.type == "attachment" and on not in attach_targets(board, seat, card):
        raise MoveError(f"{card} cannot be attached to {on or 'nothing'}")
    board = change_pool(_from_hand(board, seat, card), seat, -definition.res)
    if definition.type == "attachment":
        target = board.get(on)
        return with_card(board, replace(target, attached=(*target.attached, card))), on
    uid = f"{seat}.{board.next_uid}"
    placed = InPlay(uid, card, seat, fresh=True)
    board = replace(board, play=(*board.play, placed), next_uid=board.next_uid + 1)
    if definition.type == "scenario":
        board = with_side(board, replace(board.side(seat), scenario_deployed=True))
    return board, uid


def play_event(board: Board, seat: str, card: str) -> Board:
    """Pay for an Event and put it in the graveyard (its effects are applied by the caller)."""
    if catalog()[card].type != "event":
        raise MoveError(f"{card} is not an Event")
    board = change_pool(_from_hand(board, seat, card), seat, -catalog()[card].res)
    return to_graveyard(board, seat, [card])


def destroy(board: Board, uid: str) -> Board:
    """A card leaves play for its owner's graveyard, with its attachments."""
    p = board.get(uid)
    board = replace(board, play=tuple(q for q in board.play if q.uid != uid))
    return to_graveyard(board, p.owner, [p.card, *p.attached])


def remove_dead(board: Board) -> tuple[Board, list[InPlay]]:
    """Every card at 0 Hp or less goes to the graveyard; return the board and the dead."""
    dead = [p for p in board.play if health_left(board, p.uid) <= 0]
    for p in dead:
        board = destroy(board, p.uid)
    return board, dead


def damage(board: Board, uid: str, n: int) -> Board:
    """Add damage to a card in play."""
    p = board.get(uid)
    return with_card(board, replace(p, damage=p.damage + max(0, n)))


def heal(board: Board, uid: str, n: int) -> Board:
    """Remove up to n damage."""
    p = board.get(uid)
    return with_card(board, replace(p, damage=max(0, p.damage - n)))


def start_turn(board: Board, seat: str, faces: Iterable[int]) -> Board:
    """Phase 1: empty the pool, add the higher resource die, unlock; new turn for every card."""
    side = board.side(seat)
    board = with_side(
        board, replace(side, pool=pool_after_roll(side.pool, faces), scenario_deployed=False)
    )
    return replace(
        board,
        play=tuple(
            replace(p, locked=False, fresh=False) if p.owner == seat else p for p in board.play
        ),
    )


def healing_phase(board: Board, seat: str) -> tuple[Board, list[tuple[str, int]]]:
    """Phase 2: each damaged card of the seat heals 1, or all with Regenerate."""
    healed_cards: list[tuple[str, int]] = []
    for p in board.play:
        if p.owner != seat or p.damage == 0:
            continue
        after = healed(p.damage, "regenerate" in keywords(board, p.uid))
        healed_cards.append((p.uid, p.damage - after))
        board = with_card(board, replace(p, damage=after))
    return board, healed_cards


def attackers_available(board: Board, seat: str) -> list[str]:
    """Creatures of the seat that may be declared as attackers now."""
    return [
        p.uid
        for p in of_type(board, seat, "creature")
        if may_attack(
            stats(board, p.uid, True).atk, p.fresh, "swift" in keywords(board, p.uid), p.locked
        )
    ]


def defenders_available(board: Board, seat: str) -> list[str]:
    """Unlocked creatures of the seat (they may defend even with Attack 0)."""
    return [p.uid for p in of_type(board, seat, "creature") if not p.locked]


def fighters(board: Board, plan: CombatPlan) -> dict[str, Fighter]:
    """Combat numbers of every card in the plan (attackers count as attacking)."""
    out: dict[str, Fighter] = {}
    for p in board.play:
        attacking = p.uid in plan.attackers
        s = stats(board, p.uid, attacking)
        out[p.uid] = Fighter(p.uid, s.dmg, s.atk, s.defence)
    return out


def lock(board: Board, uids: Iterable[str]) -> Board:
    """Lock cards (attackers when declared, targets of a Lock effect)."""
    for uid in uids:
        board = with_card(board, replace(board.get(uid), locked=True))
    return board


def apply_outcome(board: Board, outcome: Outcome, defender: str) -> tuple[Board, list[InPlay]]:
    """Phase 6: all combat damage at once, raids cost Capital, the dead leave play."""
    for uid, n in outcome.damage.items():
        if board.has(uid):
            board = damage(board, uid, n)
    board = change_capital(board, defender, -outcome.raid)
    return remove_dead(board)


def end_turn(board: Board) -> Board:
    """Temporary modifiers end and every card's once-per-turn uses reset."""
    return replace(board, play=tuple(replace(p, temp=Stats(), used=()) for p in board.play))


def discard(board: Board, seat: str, card: str) -> Board:
    """Discard a card from hand to the graveyard."""
    return to_graveyard(_from_hand(board, seat, card), seat, [card])


def guard_of(board: Board, uids: Iterable[str]) -> Mapping[str, int]:
    """How many attackers each defender may line up against."""
    return {uid: card_of(board, uid).guard for uid in uids}
