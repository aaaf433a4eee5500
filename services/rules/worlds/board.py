"""The table as frozen data: both sides (Capital, pool, hand, graveyard) and the cards in play."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from services.rules.worlds.cards import Card, Stats, active_data, catalog
from services.rules.worlds.frozen import renew
from services.rules.worlds.turn import START_CAPITAL, effective, keywords_of

NO_AURA = Stats()


@dataclass(frozen=True)
class InPlay:
    """A creature or Scenario in play, with its attachments and what happened to it."""

    uid: str
    card: str
    owner: str
    damage: int = 0
    locked: bool = False
    fresh: bool = False  # deployed this turn
    attached: tuple[str, ...] = ()
    temp: Stats = field(default_factory=Stats)  # until the end of this turn
    perm: Stats = field(default_factory=Stats)
    used: tuple[int, ...] = ()  # indexes of the abilities used this turn


@dataclass(frozen=True)
class Side:
    """One player's public numbers and private hand."""

    seat: str
    capital: int = START_CAPITAL
    pool: int = 0
    hand: tuple[str, ...] = ()
    library: int = 0
    graveyard: tuple[str, ...] = ()
    scenario_deployed: bool = False


@dataclass(frozen=True)
class Board:
    """Both sides and every card in play, in deployment order."""

    sides: tuple[Side, Side]
    play: tuple[InPlay, ...] = ()
    next_uid: int = 1

    def side(self, seat: str) -> Side:
        """Return a seat's side."""
        return next(s for s in self.sides if s.seat == seat)

    def other(self, seat: str) -> str:
        """Return the opponent's seat."""
        return next(s.seat for s in self.sides if s.seat != seat)

    def get(self, uid: str) -> InPlay:
        """Return a card in play by uid."""
        return next(p for p in self.play if p.uid == uid)

    def has(self, uid: str) -> bool:
        """Is this uid in play?"""
        return any(p.uid == uid for p in self.play)


def new_board(seats: tuple[str, str], libraries: tuple[int, int]) -> Board:
    """The table before the opening hands: full Capital, empty pools and hands."""
    return Board((Side(seats[0], library=libraries[0]), Side(seats[1], library=libraries[1])))


def with_side(board: Board, side: Side) -> Board:
    """Replace one side."""
    sides = tuple(side if s.seat == side.seat else s for s in board.sides)
    return renew(board, sides=(sides[0], sides[1]))


def with_card(board: Board, card: InPlay) -> Board:
    """Replace one card in play."""
    return renew(board, play=tuple(card if p.uid == card.uid else p for p in board.play))


def card_of(board: Board, uid: str) -> Card:
    """The card definition of a card in play."""
    return catalog()[board.get(uid).card]


def of_type(board: Board, seat: str, kind: str) -> list[InPlay]:
    """A seat's creatures or Scenarios in play."""
    return [p for p in board.play if p.owner == seat and catalog()[p.card].type == kind]


def auras(board: Board, seat: str) -> list[Stats]:
    """The stat auras of a seat's Scenarios (they modify its creatures)."""
    cards = catalog()
    out = []
    for p in board.play:
        if p.owner == seat and cards[p.card].type == "scenario" and cards[p.card].aura != NO_AURA:
            out.append(cards[p.card].aura)
    return out


@lru_cache(maxsize=1 << 16)
def _stats(data: int, p: InPlay, extra: tuple[Stats, ...], attacking: bool) -> Stats:
    """(data: the active card data version, so one version's stats never serve another)"""
    carried = [catalog()[a] for a in p.attached]
    return effective(catalog()[p.card], carried, extra, [p.temp, p.perm], attacking)


def stats(board: Board, uid: str, attacking: bool = False) -> Stats:
    """Effective stats of a card in play (attachments, auras, modifiers, Frenzy)."""
    p = board.get(uid)
    creature = catalog()[p.card].type == "creature"
    return _stats(active_data(), p, tuple(auras(board, p.owner)) if creature else (), attacking)


@lru_cache(maxsize=1 << 12)
def _keywords(data: int, card: str, attached: tuple[str, ...]) -> frozenset[str]:
    return keywords_of(catalog()[card], [catalog()[a] for a in attached])


def keywords(board: Board, uid: str) -> frozenset[str]:
    """Keywords of a card in play, with those its attachments grant."""
    p = board.get(uid)
    return _keywords(active_data(), p.card, p.attached)


def health_left(board: Board, uid: str) -> int:
    """Full health minus damage."""
    return stats(board, uid).hp - board.get(uid).damage
