"""Deck commands over the event store: read the deck stream, decide, append (docs/deck.md)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from services.deck import zones
from services.deck.zones import Shuffle, Zones
from services.dice.port import DicePort
from services.platform.canonical import canonical_json
from services.platform.decision import check_key
from services.platform.envelope import Envelope, NewEvent
from services.platform.errors import NotFound, VersionConflict
from services.platform.games import check_game_id, game_info
from services.platform.store.base import AppendResult, CommandKey, EventStore, validate_command

RETRIES = 10
MAX_CACHED_LOGS = 2000
T = TypeVar("T")


def deck_stream(game_id: str) -> str:
    """Return the deck stream id of a game."""
    return f"deck-{game_id}"


@dataclass(frozen=True)
class Plan:
    """What a command appends: its events, then optionally the shuffle of one deck."""

    events: Sequence[NewEvent]
    shuffle_zone: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What executing a plan did: the zones after it, the stream version and the shuffle."""

    state: Zones
    version: int
    events: tuple[NewEvent, ...] = ()
    shuffle: Shuffle | None = None
    prior: tuple[tuple[str, ...], int] | None = None


@dataclass(frozen=True)
class CountResult:
    """A zone's size and the deck stream version after the command."""

    count: int
    version: int


@dataclass(frozen=True)
class ShuffleResult:
    """The dice nonce a shuffle used, the deck size and the stream version after it."""

    nonce: int
    count: int
    version: int


@dataclass(frozen=True)
class CardsResult:
    """Cards that went to a seat's hand, and the stream version after the command."""

    cards: tuple[str, ...]
    version: int
    nonce: int | None = None


@dataclass(frozen=True)
class DeckLog:
    """A deck stream as read so far: its events (index i holds version i + 1), their fold,
    and where each decision key appears, so no command refolds or rescans the stream."""

    envelopes: tuple[Envelope, ...] = ()
    state: Zones = field(default_factory=Zones)
    keyed: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    first_part: Mapping[str, int] = field(default_factory=dict)

    def extended(self, new: Sequence[Envelope]) -> DeckLog:
        """Return the log with the events that follow it folded in and indexed."""
        state = self.state
        keyed = dict(self.keyed)
        first_part = dict(self.first_part)
        for i, env in enumerate(new, start=len(self.envelopes)):
            state = zones.evolve(state, env)
            key = env.data.get("key")
            if isinstance(key, str):
                keyed[key] = (*keyed.get(key, ()), i)
                decision, sep, _ = key.partition("/")
                if sep:
                    first_part.setdefault(decision, i)
        return DeckLog((*self.envelopes, *new), state, keyed, first_part)

    def before_parts_of(self, decision: str) -> Zones:
        """Return the zones before the first event keyed by a part of decision (the zones
        now when there is none)."""
        i = self.first_part.get(decision)
        return self.state if i is None else zones.fold(self.envelopes[:i])


def draw_key(zone: str, seat: str, count: int, command_id: str) -> CommandKey | None:
    """Return the dedupe key of a draw: scoped to the seat, digest of zone and count."""
    if not command_id:
        return None
    content = canonical_json({"zone": zone, "seat": seat, "count": count})
    return CommandKey(
        command_id, sender=f"draw/{seat}", digest=hashlib.sha256(content.encode()).hexdigest()
    )


def _prior(envelopes: list[Envelope], key: CommandKey) -> Outcome:
    """Return the outcome of the seat's earlier draw with the key's command id."""
    seat = key.sender.removeprefix("draw/")
    prior = zones.find_draw(envelopes, key.command_id, seat)
    assert prior is not None, "a recorded command must be in the stream"
    return Outcome(zones.fold(envelopes), prior[1], prior=prior)


class DeckEngine:
    """Decks, piles and hands of every game, kept in per-game deck streams."""

    def __init__(self, store: EventStore, dice: DicePort, retries: int = RETRIES) -> None:
        self.store = store
        self.dice = dice
        self.retries = retries
        self._seats: dict[str, frozenset[str]] = {}
        self._logs: OrderedDict[str, DeckLog] = OrderedDict()

    async def log(self, game_id: str) -> DeckLog:
        """Return the game's deck stream as it is now: the cached log plus the events
        appended since (one read of those only; any writer, any process)."""
        cached = self._logs.pop(game_id, None) or DeckLog()
        new = await self.store.read(deck_stream(game_id), len(cached.envelopes) + 1)
        if new and new[0].version != len(cached.envelopes) + 1:
            cached, new = DeckLog(), await self.store.read(deck_stream(game_id))
        log = cached.extended(new) if new else cached
        self._logs[game_id] = log
        while len(self._logs) > MAX_CACHED_LOGS:
            self._logs.popitem(last=False)
        return log

    async def state(self, game_id: str) -> Zones:
        """Return the game's zones folded from its deck stream."""
        check_game_id(game_id)
        return (await self.log(game_id)).state

    async def seats(self, game_id: str) -> frozenset[str]:
        """Return the seats of a game from its GameCreated event (raise NotFound if none)."""
        if game_id not in self._seats:
            info = await game_info(self.store, game_id)
            self._seats[game_id] = frozenset(info.get("seats", {}))
        return self._seats[game_id]

    async def _execute(
        self,
        game_id: str,
        plan: Callable[[Zones], Plan],
        key: CommandKey | None = None,
        decision: str = "",
    ) -> Outcome:
        """Decide against the latest state and append; retry on a version conflict.

        A permutation drawn from dice is reused by the retries while the deck size is the
        same, so a conflict does not burn dice nonces. A decision key (docs/fairness.md) is
        recorded in every event; a decision key seen before returns what it did then.
        """
        check_key(decision, game_id)
        stream = deck_stream(game_id)
        drawn: Shuffle | None = None
        conflict: VersionConflict | None = None
        for _ in range(self.retries):
            if key and await self.store.command_result(stream, key):
                return _prior(list((await self.log(game_id)).envelopes), key)
            log = await self.log(game_id)
            if decision and (done := _keyed(log, decision)) is not None:
                return done
            state = log.state
            decided = _unknown_game_guard(game_id, state, plan)
            events = list(decided.events)
            chance: Shuffle | None = None
            if decided.shuffle_zone is not None:
                zone = decided.shuffle_zone
                n = zones.shuffle_count(zones.apply_new(state, events), zone)
                if n:
                    if drawn is None or len(drawn.order) != n:
                        purpose = zones.shuffle_purpose(zone)
                        perm = await self.dice.shuffle(game_id, purpose, n, decision)
                        drawn = Shuffle(perm.nonce, tuple(perm.order))
                    chance = drawn
                    events = zones.with_shuffle(state, events, zone, chance)
            if decision:
                events = [replace(e, data={**e.data, "key": decision}) for e in events]
            try:
                res: AppendResult = await self.store.append(stream, state.version, events, key)
            except VersionConflict as exc:
                conflict = exc
                continue
            if res.deduplicated and key:  # a concurrent retry of the same command won
                return _prior(list((await self.log(game_id)).envelopes), key)
            return Outcome(zones.apply_new(state, events), res.version, tuple(events), chance)
        assert conflict is not None
        raise conflict

    async def create_zone(
        self,
        game_id: str,
        zone: str,
        kind: str,
        owner: str = "",
        cards: Sequence[str] = (),
        shuffle: bool = False,
        key: str = "",
    ) -> CountResult:
        """Create a deck, pile or hand with its cards (top first), shuffling a deck if asked."""
        check_game_id(game_id)
        game_seats = await self.seats(game_id)

        def plan(state: Zones) -> Plan:
            events = zones.create_zone(state, zone, kind, owner, cards, game_seats, shuffle)
            return Plan(events, zone if shuffle else None)

        out = await self._execute(game_id, plan, decision=key)
        return CountResult(len(out.state.get(zone).cards), out.version)

    async def seal(self, game_id: str, zone: str, cards: Sequence[str]) -> CountResult:
        """Place a face-down deck before its game exists (a player's library, whose cards
        nobody may see: ZoneContentsSet has visibility nobody, ZoneCreated shows the count)."""
        check_game_id(game_id)

        def plan(state: Zones) -> Plan:
            return Plan(zones.create_zone(state, zone, zones.DECK, "", cards, ()), None)

        out = await self._execute(game_id, plan)
        return CountResult(len(out.state.get(zone).cards), out.version)

    async def shuffle(self, game_id: str, zone: str, key: str = "") -> ShuffleResult:
        """Shuffle a non-empty deck with the game's next dice nonce."""
        check_game_id(game_id)

        def plan(state: Zones) -> Plan:
            zones.check_shuffle(state, zone)
            return Plan([], zone)

        out = await self._execute(game_id, plan, decision=key)
        assert out.shuffle is not None
        return ShuffleResult(out.shuffle.nonce, len(out.shuffle.order), out.version)

    async def draw(
        self, game_id: str, zone: str, seat: str, count: int, command_id: str = "", key: str = ""
    ) -> CardsResult:
        """Move the top count cards of a deck to the seat's hand (a retried command_id
        returns the first result)."""
        check_game_id(game_id)
        ckey = draw_key(zone, seat, count, command_id)
        validate_command(ckey)

        def plan(state: Zones) -> Plan:
            return Plan(zones.draw(state, zone, seat, count, command_id))

        out = await self._execute(game_id, plan, ckey, key)
        if out.prior is not None:
            return CardsResult(out.prior[0], out.prior[1])
        return CardsResult(_moved_cards(out.events, zones.CARDS_DRAWN), out.version)

    async def put_card(
        self, game_id: str, card: str, from_zone: str, to_zone: str, position: str, key: str = ""
    ) -> CountResult:
        """Move a card onto the top or bottom of a zone; return the destination's size."""
        check_game_id(game_id)

        def plan(state: Zones) -> Plan:
            return Plan(zones.put_card(state, card, from_zone, to_zone, position))

        out = await self._execute(game_id, plan, decision=key)
        return CountResult(len(out.state.get(to_zone).cards), out.version)

    async def discard(
        self, game_id: str, card: str, from_zone: str, pile: str, key: str = ""
    ) -> CountResult:
        """Move a card face up onto a pile; return the pile's size."""
        check_game_id(game_id)

        def plan(state: Zones) -> Plan:
            return Plan(zones.discard(state, card, from_zone, pile))

        out = await self._execute(game_id, plan, decision=key)
        return CountResult(len(out.state.get(pile).cards), out.version)

    async def reshuffle_discard(
        self, game_id: str, pile: str, zone: str, key: str = ""
    ) -> ShuffleResult:
        """Put a pile's cards under a deck and shuffle the deck; return nonce and deck size."""
        check_game_id(game_id)

        def plan(state: Zones) -> Plan:
            return Plan(zones.reshuffle_discard(state, pile, zone), zone)

        out = await self._execute(game_id, plan, decision=key)
        assert out.shuffle is not None
        return ShuffleResult(out.shuffle.nonce, len(out.state.get(zone).cards), out.version)

    async def count(self, game_id: str, zone: str) -> int:
        """Return how many cards a zone holds."""
        state = await self.state(game_id)
        return _unknown_game_guard(game_id, state, lambda st: zones.count(st, zone))

    async def search(
        self,
        game_id: str,
        zone: str,
        seat: str,
        id_prefix: str = "",
        ids: Sequence[str] = (),
        limit: int = 1,
        shuffle_after: bool = False,
        key: str = "",
    ) -> CardsResult:
        """Move up to limit matching cards (topmost first) from a deck to the seat's hand,
        then shuffle the deck if asked and it is not empty."""
        check_game_id(game_id)

        def plan(state: Zones) -> Plan:
            events = zones.search(state, zone, seat, id_prefix, ids, limit)
            return Plan(events, zone if shuffle_after else None)

        out = await self._execute(game_id, plan, decision=key)
        nonce = out.shuffle.nonce if out.shuffle is not None else None
        return CardsResult(_moved_cards(out.events, zones.CARDS_SEARCHED), out.version, nonce)

    async def hand(self, game_id: str, seat: str) -> tuple[str, ...]:
        """Return the cards in a seat's hand (empty if it has none)."""
        return zones.hand(await self.state(game_id), seat)


def _keyed(log: DeckLog, key: str) -> Outcome | None:
    """Return what the command keyed key did (zones as it left them), or None if none was."""
    mine = [log.envelopes[i] for i in log.keyed.get(key, ())]
    if not mine:
        return None
    last = mine[-1].version
    events = tuple(NewEvent(e.type, dict(e.data), e.visibility) for e in mine)
    shuffled = next((e.data for e in mine if e.type == zones.DECK_SHUFFLED), None)
    chance = Shuffle(shuffled["nonce"], tuple(shuffled["order"])) if shuffled else None
    state = log.state if last == len(log.envelopes) else zones.fold(log.envelopes[:last])
    return Outcome(state, last, events, chance)


def _unknown_game_guard(game_id: str, state: Zones, decide: Callable[[Zones], T]) -> T:
    """Return decide(state), saying so when a NotFound comes from a game without zones."""
    try:
        return decide(state)
    except NotFound as exc:
        if state.version == 0:
            raise NotFound(
                f"game {game_id!r} has no zones (unknown game, or none created)"
            ) from exc
        raise


def _moved_cards(events: Sequence[NewEvent], type_: str) -> tuple[str, ...]:
    """Return the cards of the first event of type_ among events."""
    return next(tuple(ev.data["cards"]) for ev in events if ev.type == type_)
