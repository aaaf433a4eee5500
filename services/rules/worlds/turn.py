"""Turn rules outside combat: resources, healing, drawing, hand limit, Capital and auras."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from services.rules.worlds.cards import Card, Stats
from services.rules.worlds.vocab import BEAST_FORBIDS

RESOURCE_FACES = (1, 1, 1, 2, 2, 3)
RESOURCE_DICE = 2
START_CAPITAL = 20
START_HAND = 5
HAND_LIMIT = 7
HEAL_PER_TURN = 1


def resources_gained(faces: Iterable[int]) -> int:
    """Phase 1: the higher of the two resource dice (each showing 1, 1, 1, 2, 2 or 3)."""
    rolled = list(faces)
    if len(rolled) != RESOURCE_DICE or any(f not in RESOURCE_FACES for f in rolled):
        raise ValueError(f"two resource dice showing 1..3, not {rolled}")
    return max(rolled)


def pool_after_roll(pool: int, faces: Iterable[int]) -> int:
    """Phase 1 empties the pool first, so what is left from last turn is lost."""
    del pool
    return resources_gained(faces)


def healed(damage: int, regenerate: bool) -> int:
    """Phase 2: a damaged card heals 1 Hp; a Regenerate card heals all its damage."""
    return 0 if regenerate else max(0, damage - HEAL_PER_TURN)


def draw_or_pay(library_size: int, capital: int) -> tuple[bool, int]:
    """Phase 3: draw one card, or lose one Capital when the library is empty."""
    return (True, capital) if library_size > 0 else (False, capital - 1)


def discards_needed(hand_size: int) -> int:
    """Phase 6: cards to discard to bring the hand down to seven."""
    return max(0, hand_size - HAND_LIMIT)


def has_lost(capital: int) -> bool:
    """Capital reduced to zero (or below) loses the game."""
    return capital <= 0


def can_attach(creature: Card, carried: Collection[Card], attachment: Card) -> bool:
    """One attachment of each sub-type per creature; a Beast takes no Weapon, Armour or Artefact."""
    if creature.type != "creature" or attachment.type != "attachment":
        return False
    if "beast" in creature.keywords and attachment.subtype in BEAST_FORBIDS:
        return False
    return all(c.subtype != attachment.subtype for c in carried)


def effective(
    card: Card,
    carried: Iterable[Card] = (),
    auras: Iterable[Stats] = (),
    temporary: Iterable[Stats] = (),
    attacking: bool = False,
) -> Stats:
    """A creature's stats with attachments, scenario auras, temporary mods and Frenzy applied."""
    carried = list(carried)
    total = card.stats
    for extra in [c.mods for c in carried] + list(auras) + list(temporary):
        total = total + extra
    frenzy = "frenzy" in keywords_of(card, carried)
    if attacking and frenzy:
        total = total + Stats(dmg=1, atk=1)
    return Stats(max(0, total.dmg), max(0, total.atk), max(0, total.defence), total.hp)


def keywords_of(card: Card, carried: Iterable[Card]) -> frozenset[str]:
    """A card's keywords plus those its attachments grant."""
    granted: frozenset[str] = frozenset().union(*(c.grants for c in carried))
    return card.keywords | granted
