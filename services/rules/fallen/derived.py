"""Values derived from the state: dice faces, modifiers, limits, costs, creatures."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, Final

from services.rules.engine.state import Reads
from services.rules.fallen.cards import card, catalog_of, data_version
from services.rules.fallen.state import DL, HERO, other

SWORDS: Final = {"sword": 1, "two_swords": 2, "sword_symbol": 1}
COLOUR_SYMBOL: Final = {
    "white": "charge",
    "black": "wound",
    "red": "charge_or_wound",
    "blue": "charge_or_wound",
}
SLOTS: Final = (0, 1, 2, 3)


def kind_name(colour: str) -> str:
    """Return the dice-service kind of a Fallen die colour."""
    return f"fallen_{colour}"


def colour_of(kind: str) -> str:
    """Return the colour of a dice-service kind (fallen_red -> red)."""
    return kind.removeprefix("fallen_")


def face_swords(face: str) -> int:
    """Return the swords a face shows."""
    return SWORDS.get(face, 0)


def face_symbol(colour: str, face: str) -> str | None:
    """Return the symbol a face shows (charge, wound, charge_or_wound) or None."""
    if face in ("charge", "wound", "charge_or_wound"):
        return face
    if face == "sword_symbol":
        return COLOUR_SYMBOL[colour]
    return None


# --- seats and characters ----------------------------------------------------
def character(state: Reads, seat: str) -> dict[str, Any]:
    """Return the seat's character card."""
    return card(state.peek(f"char.{seat}"))


def is_light(state: Reads) -> bool:
    """Return True when the Shadow Track is in the Light."""
    return state.count("shadow") <= 2


def in_challenge(state: Reads) -> bool:
    """Return True while a challenge is being resolved."""
    return state.peek("ch.attribute") is not None


# --- modifiers -----------------------------------------------------------------
def _card_sources(state: Reads) -> Iterator[tuple[str, dict[str, Any]]]:
    for cid in state.zone("hero.skills") + state.zone("hero.equipment"):
        yield HERO, card(cid)
    for cid in state.zone("crit.hero"):
        yield HERO, card(cid)
    for cid in state.zone("crit.dl"):
        yield DL, card(cid)
    for cid in state.zone("bound.hero"):
        c = card(cid)
        yield c.get("side", HERO), c


# key, sources, then the zones, vars, data version and challenge vars they were checked for
_LAST: Final[list[Any]] = [None, (), None, None, None, None]
_CH_VARS: Final = ("ch.slot", "ch.ability", "ch.creature", "ch.mods")
# the zones holding cards whose mods and triggers apply (_card_sources), and a slot's
_SOURCE_ZONES: Final = ("hero.skills", "hero.equipment", "crit.hero", "crit.dl", "bound.hero")
_SLOT_SOURCE_ZONES: Final = {s: (f"augment.{s}", f"curse.{s}", f"slot.{s}") for s in SLOTS}


def _sources_key(state: Reads, ch: tuple[Any, ...]) -> tuple[Any, ...]:
    """Return everything the sources depend on, given the values of the challenge vars they
    read (_CH_VARS); unchanged parts are the same objects from state to state (zones and
    vars are shared, never edited), so comparing is cheap."""
    zones = state.zones
    key = (data_version(), *ch, *map(zones.get, _SOURCE_ZONES))  # None for an empty zone
    slot = ch[0]
    if slot is None:
        return key
    names = _SLOT_SOURCE_ZONES.get(slot) or (f"augment.{slot}", f"curse.{slot}", f"slot.{slot}")
    return (*key, *map(zones.get, names))


def sources(state: Reads) -> tuple[tuple[str, dict[str, Any]], ...]:
    """Return (owner, data) for every card whose passive mods and triggers apply now.

    Rules ask many times per decision while computing options and modifiers, and most
    events change none of the inputs: the answer is kept for the last inputs seen. With
    the same zones object (never edited) only the challenge vars it reads can differ.
    """
    zones, vars_, version = state.zones, state.vars, data_version()
    last = _LAST
    same_zones = zones is last[2] and version == last[4]
    if same_zones and vars_ is last[3]:
        same: tuple[tuple[str, dict[str, Any]], ...] = last[1]
        return same  # the same zones and vars objects: the same inputs
    ch = tuple(map(vars_.get, _CH_VARS))
    if same_zones and ch == last[5]:
        last[3] = vars_
        kept: tuple[tuple[str, dict[str, Any]], ...] = last[1]
        return kept
    key = _sources_key(state, ch)
    if last[0] != key:
        last[1] = tuple(_sources(state))
        last[0] = key
    last[2:] = [zones, vars_, version, ch]
    found: tuple[tuple[str, dict[str, Any]], ...] = last[1]
    return found


def _sources(state: Reads) -> Iterator[tuple[str, dict[str, Any]]]:
    yield from _card_sources(state)
    slot = state.peek("ch.slot")
    if slot is not None:
        for cid in state.zone(f"augment.{slot}"):
            yield DL, card(cid)
        for cid in state.zone(f"curse.{slot}"):
            yield HERO, card(cid)
        ab = active_ability(state)
        if ab is not None:
            yield DL, ab
    temp = state.peek("ch.mods", ())
    if temp:
        yield HERO, {"mods": [m for m in temp if m.get("seat") == HERO]}
        yield DL, {"mods": [m for m in temp if m.get("seat") == DL]}


Mod = tuple[Any, Any, dict[str, Any]]  # the seat a modifier applies to, its attribute, the mod


def _whom(mod: dict[str, Any], owner: str) -> Any:
    target = mod.get("seat", "self")
    return owner if target == "self" else other(owner) if target == "opponent" else target


def index_mods(found: tuple[tuple[str, dict[str, Any]], ...]) -> dict[str, tuple[Mod, ...]]:
    """Return the passive modifiers of some sources by name, in source order, each with the
    seat it applies to and the attribute it wants ("any" for every challenge)."""
    index: dict[str, list[Mod]] = {}
    for owner, src in found:
        for m in src.get("mods", ()):
            index.setdefault(m["mod"], []).append((_whom(m, owner), m.get("attribute", "any"), m))
    return {name: tuple(mods) for name, mods in index.items()}


Trigger = tuple[str, int, dict[str, Any], dict[str, Any]]  # owner, index, trigger, its card


def index_triggers(found: tuple[tuple[str, dict[str, Any]], ...]) -> dict[str, tuple[Trigger, ...]]:
    """Return the triggered abilities of some sources by event, in source order."""
    index: dict[str, list[Trigger]] = {}
    for owner, src in found:
        for i, trig in enumerate(src.get("triggers", ())):
            index.setdefault(trig["when"], []).append((owner, i, trig, src))
    return {event: tuple(trigs) for event, trigs in index.items()}


# the sources tuple indexed last (kept alive here, so its id is not reused), its indexes
_INDEX: Final[list[Any]] = [None, {}, {}]


def _indexes(state: Reads) -> list[Any]:
    """Return [sources, modifiers by name, triggers by event] for the sources that apply now;
    rebuilt only when `sources` returns another tuple (the same object while its inputs are
    unchanged)."""
    found = sources(state)
    if found is not _INDEX[0]:
        _INDEX[:] = [found, index_mods(found), index_triggers(found)]
    return _INDEX


def mods_of(state: Reads, name: str) -> tuple[Mod, ...]:
    """Return the modifiers of one name from the sources that apply now, in source order."""
    found: tuple[Mod, ...] = _indexes(state)[1].get(name, ())
    return found


def triggers_of(state: Reads, event: str) -> tuple[Trigger, ...]:
    """Return the triggers of one event from the sources that apply now, in source order."""
    found: tuple[Trigger, ...] = _indexes(state)[2].get(event, ())
    return found


def mod_total(state: Reads, seat: str, name: str, attribute: str | None = None) -> int:
    """Return the sum of a numeric modifier that applies to a seat."""
    total = 0
    for whom, want, m in mods_of(state, name):
        if whom == seat and (want == "any" or want == attribute):
            total += int(m.get("n", 0))
    return total


def mod_dice(state: Reads, seat: str, name: str, attribute: str | None) -> list[str]:
    """Return the dice colours granted to a seat by modifiers of one name."""
    dice: list[str] = []
    for whom, want, m in mods_of(state, name):
        if whom == seat and (want == "any" or want == attribute):
            dice.extend(m.get("dice", ()))
    return dice


def fortune_limit(state: Reads, seat: str) -> int:
    """Return how much Fortune a seat may spend on dice in one challenge."""
    base = int(character(state, seat)["fortune_limit"])
    return max(0, base + mod_total(state, seat, "fortune_limit"))


def hand_size(state: Reads, seat: str) -> int:
    """Return a seat's hand size."""
    return max(1, int(character(state, seat)["hand_size"]) + mod_total(state, seat, "hand_size"))


def charge_slots(state: Reads, seat: str) -> int:
    """Return how many Charges fill a seat's Ultimate ability."""
    base = int(character(state, seat)["charge_slots"])
    return max(1, base + mod_total(state, seat, "charge_slots"))


def armor_card(state: Reads) -> str | None:
    """Return the hero's Armor card in play, if any."""
    for cid in state.zone("hero.equipment"):
        if card(cid)["slot"] == "armor":
            return cid
    return None


def armor_rating(state: Reads) -> int:
    """Return the hero's armor rating (at least 1)."""
    arm = armor_card(state)
    base = int(card(arm).get("armor", 8)) if arm else 8
    return max(1, base + mod_total(state, HERO, "armor"))


def power_cost(state: Reads, seat: str, cid: str) -> int:
    """Return the Fortune a seat pays to play a card now (Light or Dark cost)."""
    return card_cost(state, seat, card(cid))


def card_cost(state: Reads, seat: str, c: dict[str, Any]) -> int:
    """Return the Fortune a seat pays to play a card (its data) now."""
    if c["type"] != "power":
        return 0
    light, dark = c["cost"]
    cost = int(light if is_light(state) else dark)
    for whom, want, m in mods_of(state, "power_cost"):
        if whom == seat and (want == "any" or want is None) and cost >= m.get("min", 0):
            cost += int(m.get("n", 0))
    return max(0, cost)


# --- creatures -----------------------------------------------------------------
_SLOT_ZONES: Final = tuple((s, f"slot.{s}") for s in SLOTS)
_SLOT_NAMES: Final = dict(_SLOT_ZONES)  # slot -> its zone, without formatting the name each time


def creature_in(state: Reads, slot: int) -> str | None:
    """Return the live Creature in a slot (None if empty or killed)."""
    cards = state.zone(_SLOT_NAMES.get(slot) or f"slot.{slot}")
    return cards[0] if cards else None


def live_slots(state: Reads) -> list[int]:
    """Return the slots holding a live Creature (creature_in of each, one read each)."""
    zones = state.zones
    return [s for s, zone in _SLOT_ZONES if zones.get(zone)]


def slot_bound(state: Reads, slot: int) -> Iterator[dict[str, Any]]:
    """Yield the cards bound to a Creature slot: Augments, then the Hero's Curses."""
    for zone in (f"augment.{slot}", f"curse.{slot}"):
        for cid in state.zone(zone):
            yield card(cid)


def creature_armor(state: Reads, slot: int) -> int:
    """Return the armor rating of the Creature in a slot, with Augments and Curses."""
    cid = creature_in(state, slot)
    base = int(card(cid)["armor"]) if cid else 0
    for c in slot_bound(state, slot):
        for m in c.get("mods", ()):
            if m["mod"] == "creature_armor":
                base += int(m.get("n", 0))
    return max(1, base)


def active_ability(state: Reads) -> dict[str, Any] | None:
    """Return the active Creature's ability if it applies this challenge."""
    if not state.peek("ch.ability", False):
        return None
    slot = state.peek("ch.slot")
    cid = creature_in(state, slot) if slot is not None else None
    if cid is None or cid != state.peek("ch.creature"):
        return None
    return card(cid).get("ability")


def slot_dice(state: Reads, slot: int) -> list[str]:
    """Return the dice the cards bound to a slot add to the Creature there."""
    dice: list[str] = []
    for c in slot_bound(state, slot):
        for m in c.get("mods", ()):
            if m["mod"] == "creature_dice":
                dice.extend(m.get("dice", ()))
    return dice


def adjacent(slot: int) -> list[int]:
    """Return the slots next to a slot (no wrap-around)."""
    return [s for s in (slot - 1, slot + 1) if s in SLOTS]


# --- dice in a challenge ---------------------------------------------------------
def dice_of(state: Reads, seat: str) -> list[list[Any]]:
    """Return a seat's dice this challenge as [colour, face, cancelled, resolved]: a new
    list whose dice are shared with the state (replace a die, never edit one in place)."""
    return list(state.peek(f"ch.dice.{seat}", ()))


def swords(state: Reads, seat: str) -> int:
    """Return a seat's sword total this challenge."""
    total = sum(face_swords(d[1]) for d in dice_of(state, seat) if not d[2])
    total += int(state.peek(f"ch.swords.{seat}", 0))
    total += mod_total(state, seat, "swords", state.peek("ch.attribute"))
    return max(0, total)


def skills_of(hero: str) -> list[str]:
    """Return a hero's skill card ids (a fresh list; the scan of the catalog is cached)."""
    return list(_skills_of(data_version(), hero))


@cache
def _skills_of(version: int, hero: str) -> tuple[str, ...]:
    return tuple(catalog_of(version).ids("skill", hero=hero))
