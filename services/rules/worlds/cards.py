"""Card data: loads services/rules/worlds/cards/*.yaml into frozen, validated card records.

Every released card-data set stays loadable (docs/games/worlds.md, "Card-data versions"):
version 1 is the data in cards/*.yaml; version N's directory cards/vN/ holds only the files
changed in that release, the others come from the newest earlier version. A game records
its version (option ``card_data``, absent = 1); the engine activates it (``using``) while it
decides, folds, lists legal commands or builds a view, so ``catalog()`` answers from the
game's own data.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml

from services.rules.worlds import vocab

CARD_DIR = Path(__file__).with_name("cards")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
FIRST_DATA: Final = 1
LATEST_DATA: Final = 2
DATA_VERSIONS: Final = tuple(range(FIRST_DATA, LATEST_DATA + 1))
_ACTIVE: Final[ContextVar[int]] = ContextVar("worlds_card_data", default=LATEST_DATA)


class CardDataError(ValueError):
    """The card files break the schema (names the card and the field)."""


@dataclass(frozen=True)
class Stats:
    """Damage, attack, defence and health (or modifiers to them)."""

    dmg: int = 0
    atk: int = 0
    defence: int = 0
    hp: int = 0

    def __add__(self, other: Stats) -> Stats:
        return Stats(
            self.dmg + other.dmg,
            self.atk + other.atk,
            self.defence + other.defence,
            self.hp + other.hp,
        )


@dataclass(frozen=True)
class Effect:
    """One effect primitive with its arguments (unused arguments keep their defaults)."""

    op: str
    n: int = 0
    target: str = ""
    seat: str = ""
    mods: Stats = Stats()
    until: str = "turn"


@dataclass(frozen=True)
class Ability:
    """A paid card effect: extra Resource cost, effects, phase limit and uses per turn."""

    cost: int
    effects: tuple[Effect, ...]
    phase: str = ""  # "" = any phase of either player's turn
    per_turn: int = 1


def heals(effects: tuple[Effect, ...]) -> bool:
    """Whether effects heal: "cards that will also provide additional healing ... can only be
    used during this phase" (Phase 2, Healing)."""
    return any(e.op == "heal" for e in effects)


@dataclass(frozen=True)
class Card:
    """One card definition."""

    id: str
    name: str
    faction: str
    type: str
    res: int
    subtype: str = ""
    special: bool = False
    logo: str = ""
    stats: Stats = Stats()
    keywords: frozenset[str] = frozenset()
    guard: int = 1
    abilities: tuple[Ability, ...] = ()
    effects: tuple[Effect, ...] = ()
    mods: Stats = Stats()
    grants: frozenset[str] = frozenset()
    aura: Stats = Stats()
    on_upkeep: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class Catalog:
    """Every card by id, the factions' card lists and the starter decks."""

    cards: Mapping[str, Card]
    starters: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def __getitem__(self, card_id: str) -> Card:
        return self.cards[card_id]

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def faction(self, name: str) -> list[Card]:
        """Return one faction's cards in file order."""
        return [c for c in self.cards.values() if c.faction == name]


def _fail(card_id: str, msg: str) -> CardDataError:
    return CardDataError(f"card {card_id}: {msg}")


def _int(raw: Mapping[str, Any], key: str, cid: str, default: int | None = None) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(cid, f"{key} must be an integer")
    return value


def _stats(raw: Mapping[str, Any], cid: str) -> Stats:
    unknown = set(raw) - set(vocab.STATS)
    if unknown:
        raise _fail(cid, f"unknown stats {sorted(unknown)}")
    return Stats(*(_int(raw, k, cid, 0) for k in vocab.STATS))


def parse_effect(raw: Mapping[str, Any], cid: str) -> Effect:
    """Parse one `{primitive: {args}}` entry, checking the vocabulary."""
    if len(raw) != 1:
        raise _fail(cid, "an effect has exactly one primitive")
    ((op, args),) = raw.items()
    if op not in vocab.PRIMITIVES:
        raise _fail(cid, f"unknown effect primitive {op!r}")
    args = dict(args or {})
    unknown = set(args) - set(vocab.PRIMITIVES[op])
    if unknown:
        raise _fail(cid, f"{op} has unknown arguments {sorted(unknown)}")
    target = args.get("target", "")
    if target and target not in vocab.TARGETS:
        raise _fail(cid, f"unknown target {target!r}")
    seat = args.get("seat", "")
    if seat and seat not in vocab.SEATS:
        raise _fail(cid, f"unknown seat {seat!r}")
    until = args.get("until", "turn")
    if until not in vocab.DURATIONS:
        raise _fail(cid, f"unknown duration {until!r}")
    mods = _stats({k: v for k, v in args.items() if k in vocab.STATS}, cid)
    return Effect(op, _int(args, "n", cid, 0), target, seat, mods, until)


def _effects(raw: Any, cid: str) -> tuple[Effect, ...]:
    return tuple(parse_effect(e, cid) for e in raw or ())


def _ability(raw: Mapping[str, Any], cid: str) -> Ability:
    phase = raw.get("phase", "")
    if phase and phase not in vocab.PHASES:
        raise _fail(cid, f"unknown phase {phase!r}")
    return Ability(
        _int(raw, "cost", cid),
        _effects(raw.get("effects"), cid),
        phase,
        _int(raw, "per_turn", cid, 1),
    )


def _keywords(raw: Any, cid: str) -> tuple[frozenset[str], int, tuple[Ability, ...]]:
    """Return (keyword names, guard count, abilities the keywords add)."""
    names: set[str] = set()
    guard, extra = 1, []
    for entry in raw or ():
        name, arg = (entry, None) if isinstance(entry, str) else next(iter(dict(entry).items()))
        if name not in vocab.KEYWORDS:
            raise _fail(cid, f"unknown keyword {name!r}")
        names.add(name)
        if name == "guard":
            guard = _int({"guard": arg}, "guard", cid)
        elif name == "heal":
            if not isinstance(arg, dict):
                raise _fail(cid, "heal needs {n, cost}")
            heal = {"heal": {"n": _int(arg, "n", cid), "target": "own_creature"}}
            extra.append(Ability(_int(arg, "cost", cid), (parse_effect(heal, cid),), "healing"))
    return frozenset(names), guard, tuple(extra)


def parse_card(raw: Mapping[str, Any], faction: str) -> Card:
    """Build and check one card from its YAML mapping."""
    cid = str(raw.get("id", "?"))
    kind = raw.get("type")
    if kind not in vocab.TYPES:
        raise _fail(cid, f"unknown type {kind!r}")
    subtype = raw.get("subtype", "")
    if (kind == "attachment") != bool(subtype) or (subtype and subtype not in vocab.SUBTYPES):
        raise _fail(cid, f"bad subtype {subtype!r} for a {kind}")
    keywords, guard, heal_abilities = _keywords(raw.get("keywords"), cid)
    grants = frozenset(raw.get("grants", ()))
    if grants - set(vocab.FLAG_KEYWORDS):
        raise _fail(cid, f"can only grant {vocab.FLAG_KEYWORDS}")
    stats = _stats({k: raw[k] for k in vocab.STATS if k in raw}, cid)
    if kind in ("creature", "scenario") and stats.hp <= 0:
        raise _fail(cid, "creatures and scenarios need health")
    return Card(
        id=cid,
        name=str(raw["name"]),
        faction=faction,
        type=kind,
        res=_int(raw, "res", cid),
        subtype=subtype,
        special=bool(raw.get("special", False)),
        logo=str(raw.get("logo", "")),
        stats=stats,
        keywords=keywords,
        guard=guard,
        abilities=tuple(_ability(a, cid) for a in raw.get("abilities", ())) + heal_abilities,
        effects=_effects(raw.get("effects"), cid),
        mods=_stats(raw.get("mods", {}), cid),
        grants=grants,
        aura=_stats(raw.get("aura", {}), cid),
        on_upkeep=_effects(raw.get("on_upkeep"), cid),
    )


def data_file(version: int, name: str) -> Path:
    """The file a data version reads for one faction (its own, else an earlier version's)."""
    for v in range(version, FIRST_DATA, -1):
        path = CARD_DIR / f"v{v}" / f"{name}.yaml"
        if path.exists():
            return path
    return CARD_DIR / f"{name}.yaml"


def active_data() -> int:
    """The card-data version active now (the game's own inside the engine)."""
    return _ACTIVE.get()


class using:
    """Make ``version`` the active card data for the duration of the block."""

    __slots__ = ("_token", "_version")

    def __init__(self, version: int) -> None:
        self._version = version

    def __enter__(self) -> None:
        self._token = _ACTIVE.set(self._version)

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.reset(self._token)


def catalog() -> Catalog:
    """Return the catalog of the active card-data version (the newest outside a game)."""
    return catalog_of(_ACTIVE.get())


@cache
def catalog_of(version: int) -> Catalog:
    """Return the catalog of one released card-data version (loaded and checked once)."""
    if version not in DATA_VERSIONS:
        raise ValueError(
            f"unknown Fallen Worlds card-data version {version}; known: {DATA_VERSIONS}"
        )

    def _load(name: str) -> Any:
        return yaml.load(data_file(version, name).read_text(), Loader=_LOADER)

    cards: dict[str, Card] = {}
    for faction in vocab.FACTIONS:
        data = _load(faction)
        if data["faction"] != faction:
            raise CardDataError(f"{faction}.yaml declares faction {data['faction']!r}")
        for raw in data["cards"]:
            card = parse_card(raw, faction)
            if card.id in cards:
                raise _fail(card.id, "duplicate id")
            cards[card.id] = card
    starters = {name: dict(deck["cards"]) for name, deck in _load("starters")["starters"].items()}
    return Catalog(cards, starters)
