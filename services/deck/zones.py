"""The zones of one game folded from its deck stream, and pure deciders (docs/deck.md)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.platform.envelope import NOBODY, PUBLIC, Envelope, NewEvent, Visibility, seats
from services.platform.errors import AlreadyExists, InvalidArgument, NotFound, RuleViolation

DECK, PILE, HAND = "deck", "pile", "hand"
KINDS = (DECK, PILE, HAND)
TOP, BOTTOM = "top", "bottom"
POSITIONS = (TOP, BOTTOM)

ZONE_CREATED = "ZoneCreated"
ZONE_CONTENTS_SET = "ZoneContentsSet"
DECK_SHUFFLED = "DeckShuffled"
DECK_SHUFFLE_NOTICED = "DeckShuffleNoticed"
CARDS_DRAWN = "CardsDrawn"
CARDS_DRAWN_NOTICED = "CardsDrawnNoticed"
CARD_MOVED = "CardMoved"
CARD_MOVE_NOTICED = "CardMoveNoticed"
CARD_DISCARDED = "CardDiscarded"
DISCARD_RESHUFFLED = "DiscardReshuffled"
CARDS_SEARCHED = "CardsSearched"
CARDS_SEARCH_NOTICED = "CardsSearchNoticed"

ZONE_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
CARD_RE = re.compile(r"^[!-~]{1,128}$")
MAX_CARDS = 10_000


class LogMismatch(ValueError):
    """The deck stream contradicts itself (an event does not fit the folded state)."""


@dataclass(frozen=True)
class Zone:
    """One zone: name, kind (deck, pile or hand), owning seat and cards, top first."""

    name: str
    kind: str
    owner: str = ""
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class Zones:
    """Every zone of one game and the deck stream version they were folded at."""

    version: int = 0
    zones: Mapping[str, Zone] = field(default_factory=dict)

    def get(self, name: str) -> Zone:
        """Return the zone called name, or raise NotFound."""
        zone = self.zones.get(name)
        if zone is None:
            raise NotFound(f"there is no zone {name!r} in this game")
        return zone

    def hand_of(self, seat: str) -> Zone | None:
        """Return the seat's hand, or None."""
        for zone in self.zones.values():
            if zone.kind == HAND and zone.owner == seat:
                return zone
        return None


@dataclass(frozen=True)
class Shuffle:
    """Chance for one shuffle: the dice nonce and the order (indexes into the old order)."""

    nonce: int
    order: tuple[int, ...]


def shuffle_purpose(zone: str) -> str:
    """Return the dice purpose recorded for shuffling a zone."""
    return f"deck:{zone}"


# ---------------------------------------------------------------- folding


def _without(cards: tuple[str, ...], card: str, zone: str) -> tuple[str, ...]:
    """Return cards without the first (topmost) copy of card."""
    if card not in cards:
        raise LogMismatch(f"card {card!r} is not in zone {zone!r}")
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _put(zones: dict[str, Zone], name: str, cards: tuple[str, ...]) -> None:
    z = zones[name]  # built directly: dataclasses.replace was a third of folding a deck
    zones[name] = Zone(z.name, z.kind, z.owner, cards)


def _known(zones: Mapping[str, Zone], *names: str) -> None:
    for name in names:
        if name not in zones:
            raise LogMismatch(f"zone {name!r} is used before it is created")


def apply(state: Zones, type_: str, data: Mapping[str, Any]) -> Zones:
    """Return the zones after one event (type and payload); unknown types change nothing."""
    zones = dict(state.zones)
    if type_ == ZONE_CREATED:
        zones[data["zone"]] = Zone(data["zone"], data["kind"], data.get("owner", ""))
    elif type_ == ZONE_CONTENTS_SET:
        _known(zones, data["zone"])
        _put(zones, data["zone"], tuple(data["cards"]))
    elif type_ == DECK_SHUFFLED:
        _known(zones, data["zone"])
        if tuple(data["before"]) != zones[data["zone"]].cards:
            raise LogMismatch(f"DeckShuffled of {data['zone']!r}: before differs from the deck")
        _put(zones, data["zone"], tuple(data["after"]))
    elif type_ in (CARDS_DRAWN, CARDS_SEARCHED):
        _known(zones, data["zone"], data["hand"])
        deck, cards = zones[data["zone"]].cards, tuple(data["cards"])
        if type_ == CARDS_DRAWN:
            if deck[: len(cards)] != cards:
                raise LogMismatch(f"CardsDrawn from {data['zone']!r}: not the top of the deck")
            deck = deck[len(cards) :]
        else:
            for card in cards:
                deck = _without(deck, card, data["zone"])
        _put(zones, data["zone"], deck)
        _put(zones, data["hand"], zones[data["hand"]].cards + cards)
    elif type_ in (CARD_MOVED, CARD_DISCARDED):
        to = data["to_zone"] if type_ == CARD_MOVED else data["pile"]
        top = type_ == CARD_DISCARDED or data["position"] == TOP
        _known(zones, data["from_zone"], to)
        _put(
            zones,
            data["from_zone"],
            _without(zones[data["from_zone"]].cards, data["card"], data["from_zone"]),
        )
        dest = zones[to].cards
        _put(zones, to, (data["card"], *dest) if top else (*dest, data["card"]))
    elif type_ == DISCARD_RESHUFFLED:
        _known(zones, data["pile"], data["zone"])
        if tuple(data["cards"]) != zones[data["pile"]].cards:
            raise LogMismatch(f"DiscardReshuffled of {data['pile']!r}: cards differ from the pile")
        _put(zones, data["zone"], zones[data["zone"]].cards + zones[data["pile"]].cards)
        _put(zones, data["pile"], ())
    else:
        return state
    return Zones(state.version, zones)


def evolve(state: Zones, env: Envelope) -> Zones:
    """Return the zones after one stored event."""
    return Zones(env.version, apply(state, env.type, env.data).zones)


def fold(envelopes: Iterable[Envelope]) -> Zones:
    """Return the zones of a whole deck stream (every event, hidden ones included)."""
    state = Zones()
    for env in envelopes:
        state = evolve(state, env)
    return state


def apply_new(state: Zones, events: Iterable[NewEvent]) -> Zones:
    """Return the zones after events not yet stored (version unchanged)."""
    for ev in events:
        state = apply(state, ev.type, ev.data)
    return state


def find_draw(
    envelopes: Iterable[Envelope], command_id: str, seat: str | None = None
) -> tuple[tuple[str, ...], int] | None:
    """Return (cards, version after the command) of the seat's earlier draw with command_id."""
    cards: tuple[str, ...] | None = None
    version = 0
    for env in envelopes:
        if (
            env.type in (CARDS_DRAWN, CARDS_DRAWN_NOTICED)
            and env.data.get("command_id") == command_id
            and (seat is None or env.data.get("seat") == seat)
        ):
            version = env.version
            if env.type == CARDS_DRAWN:
                cards = tuple(env.data["cards"])
    return None if cards is None else (cards, version)


# ---------------------------------------------------------------- validation


def check_zone_name(name: str, field_name: str = "zone") -> str:
    """Return name if it is a well-formed zone name, else raise InvalidArgument."""
    if not name:
        raise InvalidArgument(field_name, "is required")
    if not ZONE_RE.match(name):
        raise InvalidArgument(field_name, "must be 1-64 characters of letters, digits, _ . : -")
    return name


def check_card(card: str, field_name: str = "card") -> str:
    """Return card if it is a well-formed card id, else raise InvalidArgument."""
    if not card:
        raise InvalidArgument(field_name, "is required")
    if not CARD_RE.match(card):
        raise InvalidArgument(field_name, "must be 1-128 printable ASCII characters, no spaces")
    return card


def check_count(n: int, field_name: str = "count") -> int:
    """Return n if it is between 1 and MAX_CARDS, else raise InvalidArgument."""
    if not 1 <= n <= MAX_CARDS:
        raise InvalidArgument(field_name, f"must be 1 to {MAX_CARDS}, not {n}")
    return n


def _check_seat(seat: str, field_name: str = "seat") -> str:
    if not seat:
        raise InvalidArgument(field_name, "is required")
    return seat


def _of_kind(zone: Zone, kind: str) -> Zone:
    if zone.kind != kind:
        raise RuleViolation(f"zone {zone.name!r} is a {zone.kind}, not a {kind}")
    return zone


def _hand(state: Zones, seat: str) -> Zone:
    hand = state.hand_of(seat)
    if hand is None:
        raise NotFound(f"seat {seat!r} has no hand; create one with kind HAND and owner {seat!r}")
    return hand


def _room(zone: Zone, adding: int) -> None:
    if len(zone.cards) + adding > MAX_CARDS:
        raise RuleViolation(f"zone {zone.name!r} would hold more than {MAX_CARDS} cards")


def contents_visibility(zone: Zone) -> Visibility:
    """Return who may see the cards of a zone: nobody (deck), everyone (pile), the owner (hand)."""
    if zone.kind == PILE:
        return PUBLIC
    if zone.kind == HAND:
        return seats(zone.owner)
    return NOBODY


def card_visibility(src: Zone, dst: Zone) -> Visibility:
    """Return who may see a card moved from src to dst: everyone if a pile is involved."""
    if PILE in (src.kind, dst.kind):
        return PUBLIC
    owners = [z.owner for z in (src, dst) if z.kind == HAND]
    return seats(*owners) if owners else NOBODY


# ---------------------------------------------------------------- deciders


def create_zone(
    state: Zones,
    zone: str,
    kind: str,
    owner: str,
    cards: Sequence[str],
    game_seats: Collection[str],
    shuffle: bool = False,
) -> list[NewEvent]:
    """Return the events creating a zone (ZoneCreated, then ZoneContentsSet if it has cards)."""
    check_zone_name(zone)
    if kind not in KINDS:
        raise InvalidArgument("kind", f"must be one of {', '.join(KINDS)}")
    for i, card in enumerate(cards):
        check_card(card, f"cards[{i}]")
    if len(cards) > MAX_CARDS:
        raise InvalidArgument("cards", f"at most {MAX_CARDS} cards")
    if kind == HAND and not owner:
        raise InvalidArgument("owner", "is required for a hand")
    if owner and owner not in game_seats:
        raise InvalidArgument("owner", f"is not a seat of this game; seats: {sorted(game_seats)}")
    if shuffle and kind != DECK:
        raise InvalidArgument("shuffle", "only a deck can be shuffled")
    if zone in state.zones:
        raise AlreadyExists(f"zone {zone!r} exists already")
    if kind == HAND and (other := state.hand_of(owner)) is not None:
        raise AlreadyExists(f"seat {owner!r} has a hand already: {other.name!r}")
    new = Zone(zone, kind, owner)
    events = [
        NewEvent(ZONE_CREATED, {"zone": zone, "kind": kind, "owner": owner, "count": len(cards)})
    ]
    if cards:
        events.append(
            NewEvent(
                ZONE_CONTENTS_SET, {"zone": zone, "cards": list(cards)}, contents_visibility(new)
            )
        )
    return events


def shuffle_count(state: Zones, zone: str) -> int:
    """Return how many cards shuffling the deck will permute (raise unless it is a deck)."""
    check_zone_name(zone)
    return len(_of_kind(state.get(zone), DECK).cards)


def check_shuffle(state: Zones, zone: str) -> int:
    """Return the size of a deck that may be shuffled now (raise if it is empty)."""
    n = shuffle_count(state, zone)
    if n == 0:
        raise RuleViolation(f"deck {zone!r} is empty; there is nothing to shuffle")
    return n


def shuffle_events(state: Zones, zone: str, chance: Shuffle) -> list[NewEvent]:
    """Return DeckShuffled (audit only: before, after, order) and its public notice."""
    before = list(_of_kind(state.get(zone), DECK).cards)
    if sorted(chance.order) != list(range(len(before))):
        raise ValueError(f"order is not a permutation of {len(before)} cards")
    after = [before[i] for i in chance.order]
    return [
        NewEvent(
            DECK_SHUFFLED,
            {
                "zone": zone,
                "nonce": chance.nonce,
                "before": before,
                "after": after,
                "order": list(chance.order),
            },
            NOBODY,
        ),
        NewEvent(DECK_SHUFFLE_NOTICED, {"zone": zone, "nonce": chance.nonce, "count": len(before)}),
    ]


def with_shuffle(
    state: Zones, events: Sequence[NewEvent], zone: str, chance: Shuffle
) -> list[NewEvent]:
    """Return events followed by the shuffle of zone as it stands after them."""
    return [*events, *shuffle_events(apply_new(state, events), zone, chance)]


def draw(state: Zones, zone: str, seat: str, count: int, command_id: str = "") -> list[NewEvent]:
    """Return CardsDrawn (to the seat only) and its public notice for the top count cards."""
    check_zone_name(zone)
    _check_seat(seat)
    check_count(count)
    deck = _of_kind(state.get(zone), DECK)
    hand = _hand(state, seat)
    if count > len(deck.cards):
        raise RuleViolation(f"deck {zone!r} holds {len(deck.cards)} cards; cannot draw {count}")
    _room(hand, count)
    cards = list(deck.cards[:count])
    base = {"zone": zone, "seat": seat, "hand": hand.name}
    if command_id:
        base["command_id"] = command_id
    return [
        NewEvent(CARDS_DRAWN, {**base, "cards": cards}, seats(seat)),
        NewEvent(CARDS_DRAWN_NOTICED, {**base, "count": count}),
    ]


def _move_check(
    state: Zones, card: str, from_zone: str, to_zone: str, to_field: str
) -> tuple[Zone, Zone]:
    check_card(card)
    check_zone_name(from_zone, "from_zone")
    check_zone_name(to_zone, to_field)
    src, dst = state.get(from_zone), state.get(to_zone)
    if card not in src.cards:
        raise NotFound(f"card {card!r} is not in zone {from_zone!r}")
    if src.name != dst.name:
        _room(dst, 1)
    return src, dst


def put_card(
    state: Zones, card: str, from_zone: str, to_zone: str, position: str
) -> list[NewEvent]:
    """Return CardMoved (seen by whoever may see the card) and, if hidden, a public notice."""
    if position not in POSITIONS:
        raise InvalidArgument("position", "must be top or bottom")
    src, dst = _move_check(state, card, from_zone, to_zone, "to_zone")
    vis = card_visibility(src, dst)
    where = {"from_zone": from_zone, "to_zone": to_zone, "position": position}
    events = [NewEvent(CARD_MOVED, {**where, "card": card}, vis)]
    if vis != PUBLIC:
        events.append(NewEvent(CARD_MOVE_NOTICED, where))
    return events


def discard(state: Zones, card: str, from_zone: str, pile: str) -> list[NewEvent]:
    """Return CardDiscarded (public: the card lands face up on top of the pile)."""
    src, dst = _move_check(state, card, from_zone, pile, "pile")
    _of_kind(dst, PILE)
    if src.name == dst.name:
        raise RuleViolation(f"card {card!r} is on pile {pile!r} already")
    return [NewEvent(CARD_DISCARDED, {"card": card, "from_zone": from_zone, "pile": pile})]


def reshuffle_discard(state: Zones, pile: str, zone: str) -> list[NewEvent]:
    """Return DiscardReshuffled (public); the caller appends the deck's shuffle after it."""
    check_zone_name(pile, "pile")
    check_zone_name(zone)
    src = _of_kind(state.get(pile), PILE)
    deck = _of_kind(state.get(zone), DECK)
    if not src.cards and not deck.cards:
        raise RuleViolation(f"pile {pile!r} and deck {zone!r} are both empty")
    _room(deck, len(src.cards))
    return [
        NewEvent(
            DISCARD_RESHUFFLED,
            {"pile": pile, "zone": zone, "cards": list(src.cards), "count": len(src.cards)},
        )
    ]


def search(
    state: Zones,
    zone: str,
    seat: str,
    id_prefix: str,
    ids: Sequence[str],
    limit: int,
) -> list[NewEvent]:
    """Return CardsSearched (to the seat only: the first matches by card id) and a notice."""
    check_zone_name(zone)
    _check_seat(seat)
    if id_prefix:
        check_card(id_prefix, "id_prefix")
    for i, card in enumerate(ids):
        check_card(card, f"ids[{i}]")
    if not id_prefix and not ids:
        raise InvalidArgument("id_prefix", "give id_prefix or ids to match")
    check_count(limit, "limit")
    deck = _of_kind(state.get(zone), DECK)
    hand = _hand(state, seat)
    wanted = set(ids)
    # Matches are taken and listed in card-id order, so the answer says nothing of deck order.
    found = sorted(c for c in deck.cards if c in wanted or (id_prefix and c.startswith(id_prefix)))
    found = found[:limit]
    _room(hand, len(found))
    base = {"zone": zone, "seat": seat, "hand": hand.name}
    return [
        NewEvent(
            CARDS_SEARCHED,
            {**base, "id_prefix": id_prefix, "ids": list(ids), "cards": found},
            seats(seat),
        ),
        NewEvent(CARDS_SEARCH_NOTICED, {**base, "count": len(found)}),
    ]


def count(state: Zones, zone: str) -> int:
    """Return how many cards a zone holds."""
    check_zone_name(zone)
    return len(state.get(zone).cards)


def hand(state: Zones, seat: str) -> tuple[str, ...]:
    """Return the cards in a seat's hand (empty if it has none)."""
    _check_seat(seat)
    zone = state.hand_of(seat)
    return () if zone is None else zone.cards
