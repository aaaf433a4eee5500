"""Run commands against a game's stream: fold, decide, append, answer chance."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Concatenate, ParamSpec, TypeVar

from services.deck.engine import DeckEngine
from services.dice.engine import dice_stream
from services.dice.ledger import Ledger
from services.dice.ledger import fold as fold_dice
from services.dice.port import DicePort
from services.dice.seeds import WAITING, SeedsPending, now_utc, pending_message, ready
from services.platform.boundedjson import loads_bounded
from services.platform.canonical import canonical_json
from services.platform.decision import decision_key, parse_key
from services.platform.envelope import Envelope, NewEvent, normalize_visibility
from services.platform.errors import (
    DomainError,
    InvalidArgument,
    NotFound,
    RuleViolation,
    VersionConflict,
    quote,
)
from services.platform.games import (
    GAME_CREATED,
    GAME_ENDED,
    KERNEL_EVENTS,
    SEAT_EVENTS,
    check_game_id,
    forfeit_outcome,
    game_stream,
    seat_status,
)
from services.platform.store.base import ANY_VERSION, CommandKey, EventStore, one_fsync
from services.platform.upcast import for_rules
from services.rules.bot_seats import (
    BotCoverage,
    check_bot_options,
    engine_options,
    require_played,
)
from services.rules.engine.api import (
    CHANCE,
    DECK_KINDS,
    ChanceRequest,
    Command,
    Event,
    GameRules,
    Pending,
    Setup,
    seal_options,
)
from services.rules.engine.deck import DeckPort, DeckServicePort
from services.rules.pools import PoolSpec, admits, describe, pool_for
from services.rules.registry import load
from services.rules.solo_records import note_game_end

P = ParamSpec("P")
R = TypeVar("R")


def _one_fsync(
    method: Callable[Concatenate[GameRunner, P], Awaitable[R]],
) -> Callable[Concatenate[GameRunner, P], Awaitable[R]]:
    """Run a runner method's appends (a command's events, the draws, chance's answers) as
    one group commit: one fsync before it returns (services/platform/store/sqlite_sync.py)."""

    @functools.wraps(method)
    async def wrapper(self: GameRunner, *args: P.args, **kwargs: P.kwargs) -> R:
        async with one_fsync(self.store):
            return await method(self, *args, **kwargs)

    return wrapper


MAX_CHANCE_STEPS = 500
MAX_CACHED_GAMES = 5000
MAX_OPEN_GATES = 10_000
RETRIES = 5
BOT_PLAYER_PREFIX = "bot:"  # the matchmaker seats bots as bot:<...> players


@dataclass(frozen=True)
class Loaded:
    """A game folded from its stream at a version."""

    game_id: str
    game: str
    rules: GameRules
    seats: Mapping[str, str]
    state: Any
    version: int
    ended: bool
    outcome: Mapping[str, Any] | None = None
    seat_status: Mapping[str, str] = field(default_factory=dict)


def to_new_event(ev: Event, causation: str = "") -> NewEvent:
    """Return the store form of a rules event."""
    vis = ev.visibility if isinstance(ev.visibility, str) else sorted(set(ev.visibility))
    return NewEvent(
        ev.type, dict(ev.data), vis, schema_version=ev.schema_version, causation_id=causation
    )


def to_rules_event(env: Envelope) -> Event:
    """Return the rules form of a stored event."""
    vis = env.visibility if isinstance(env.visibility, str) else tuple(env.visibility)
    return Event(env.type, env.data, vis, env.schema_version)


def fold(rules: GameRules, envelopes: list[Envelope], state: Any = None) -> Any:
    """Return the engine state after the game events of envelopes (old payloads upcast)."""
    state = rules.initial_state() if state is None else state
    up = for_rules(rules)
    for env in envelopes:
        if env.type not in KERNEL_EVENTS:
            state = rules.evolve(state, to_rules_event(up.upcast(env)))
    return state


def command_key(loaded: Loaded, command: Command, command_id: str) -> CommandKey | None:
    """Return the dedupe key of a seat's command: scoped to its player and seat."""
    if not command_id:
        return None
    content = canonical_json({"seat": command.seat, "kind": command.kind, "args": command.args})
    return CommandKey(
        command_id,
        sender=f"{loaded.seats.get(command.seat, '')}/{command.seat}",
        digest=hashlib.sha256(content.encode()).hexdigest(),
    )


def seated(req: ChanceRequest, seats: Mapping[str, str]) -> ChanceRequest:
    """Return a chance request whose visible_to names only the game's own seats.

    An engine's public rolls are visible to every seat it knows (Fallen Land: p1-p6), but a
    5-seat game has no p6, and the dice service refuses a stranger in visible_to.
    """
    kept = tuple(s for s in req.visible_to if s in seats)
    return req if kept == req.visible_to else replace(req, visible_to=kept)


def new_game_id(seed: str) -> str:
    """Return a short game id derived from a unique seed string."""
    return "g" + hashlib.sha256(seed.encode()).hexdigest()[:16]


class GameRunner:
    """Applies commands to games stored in an EventStore, answering chance via dice."""

    def __init__(
        self,
        store: EventStore,
        dice: DicePort,
        extra: dict[str, GameRules] | None = None,
        only: tuple[str, ...] | PoolSpec | None = None,
        deck: DeckPort | None = None,
        bots: BotCoverage | None = None,
    ) -> None:
        self.store = store
        self.bots = bots  # who plays bot seats (None: not checked, e.g. a library caller)
        self.dice: DicePort = dice
        self.deck: DeckPort = deck or DeckServicePort(DeckEngine(store, dice))
        self.extra = extra or {}
        self.only: PoolSpec | None = dict.fromkeys(only) if isinstance(only, tuple) else only
        self._cache: dict[str, Loaded] = {}
        self._gates_open: set[str] = set()  # games whose seed gate is known to be open

    def engine(self, game: str, seat_count: int | None = None, field: str = "game") -> GameRules:
        """Return the engine of a game kind (and seat count) this runner serves, or raise."""
        if not admits(self.only, game, seat_count):
            assert self.only is not None
            where = f"{seat_count}-seat {game[:32]!r}" if seat_count else repr(game[:32])
            pool = pool_for(game, seat_count) if seat_count else "its own pool"
            raise InvalidArgument(
                field, f"this rules pool serves {describe(self.only)}, not {where}; use {pool}"
            )
        return load(game, self.extra)

    def games(self) -> list[str]:
        """Return the game kinds this runner serves."""
        from services.rules.registry import ENGINES

        return sorted(self.only or {*ENGINES, *self.extra})

    async def load(self, game_id: str) -> Loaded:
        """Return the game folded to its latest version (cached by version: one read of the
        events after the cached version)."""
        check_game_id(game_id)
        cached = self._cache.get(game_id)
        start = cached.version + 1 if cached else 1
        envs = await self.store.read(game_stream(game_id), start)
        if cached is None:
            if not envs or envs[0].type != GAME_CREATED:
                raise NotFound(f"game {game_id!r} does not exist")
            info = envs[0].data
            rules = self.engine(info["game"], len(info["seats"]), "game_id")
            cached = Loaded(
                game_id, info["game"], rules, info["seats"], rules.initial_state(), 0, False
            )
        return self._remember(_apply(cached, envs) if envs else cached)

    async def latest(self, game_id: str) -> Loaded:
        """Return the cached game without reading the store (loading it when not cached).

        Only for writes: the cache may be behind another writer, and the append's
        expected-version check catches that (the caller then reloads with load()).
        """
        check_game_id(game_id)
        return self._cache.get(game_id) or await self.load(game_id)

    def _remember(self, loaded: Loaded) -> Loaded:
        """Cache the game at its version (bounded: the oldest-cached game goes first)."""
        if loaded.game_id not in self._cache and len(self._cache) >= MAX_CACHED_GAMES:
            self._cache.pop(next(iter(self._cache)))
        self._cache[loaded.game_id] = loaded
        return loaded

    def _appended(self, loaded: Loaded, events: list[NewEvent], version: int) -> Loaded:
        """Return (and cache) the game after events this runner appended right after loaded.

        Payloads go through one JSON round trip so the state equals what a reload from
        the store would fold (tuples become lists, as they do on disk)."""
        first = version - len(events) + 1
        assert first == loaded.version + 1, (first, loaded.version)
        envs = [_as_stored(game_stream(loaded.game_id), first + i, e) for i, e in enumerate(events)]
        return self._remember(_apply(loaded, envs))

    @_one_fsync
    async def create(
        self,
        game: str,
        game_id: str,
        seats: Mapping[str, str],
        options: Mapping[str, Any],
        client_seed: str = "",
        client_seeds: Mapping[str, str] | None = None,
    ) -> tuple[Loaded, str]:
        """Create a game, commit its dice seed, run opening chance; return it and the commitment.

        Chance waits for every human seat's client seed (docs/fairness.md): client_seeds
        gives some now (seat -> seed), client_seed every human seat not in client_seeds;
        bot seats' seeds are derived by the dice service."""
        rules = self.engine(game, len(seats), "seats" if admits(self.only, game, None) else "game")
        check_game_id(game_id)
        unknown = sorted(set(seats) - set(rules.seats))
        if unknown:
            raise InvalidArgument(
                "seats", f"{game} has no seat(s) {unknown}; seats: {list(rules.seats)}"
            )
        for seat, player in seats.items():
            if not player:
                raise InvalidArgument("seats", f"seat {quote(seat)} needs a player id")
        check_bot_options(game, list(seats), options)
        pin = getattr(rules, "new_game_options", None)
        options = pin(options) if pin is not None else dict(options)
        public, sealed = seal_options(rules, options)
        await require_played(self.bots, game, seats, public)
        setup = Setup(seats=dict(seats), options=engine_options(rules, public))
        events = rules.initial_events(game_id, setup)
        bots = bot_seats(seats, public)
        given = {s: client_seed for s in seats if s not in bots} if client_seed else {}
        given |= {s: v for s, v in (client_seeds or {}).items() if v and s not in bots}
        commitment = await self.dice.commit_seed(
            game_id, "", tuple(sorted(seats)), tuple(sorted(bots)), given
        )
        for deck, cards in sealed.items():  # face down in the deck service, never in GameCreated
            await self.deck.seal(game_id, deck, cards)
        created = NewEvent(GAME_CREATED, {"game": game, "seats": dict(seats), "options": public})
        try:
            await self.store.append(
                game_stream(game_id), 0, [created, *(to_new_event(e) for e in events)]
            )
        except VersionConflict as exc:
            from services.platform.errors import AlreadyExists

            raise AlreadyExists(f"game {game_id!r} exists already") from exc
        loaded = await self.run_chance(game_id)
        return loaded, commitment

    async def current(self, game_id: str) -> Loaded:
        """Return the game at its latest version, answering chance first if it waits for it."""
        loaded = await self.load(game_id)
        if not loaded.ended and _waits_for_chance(loaded):
            return await self.run_chance(game_id)
        return loaded

    @_one_fsync
    async def submit(
        self,
        game_id: str,
        command: Command,
        command_id: str = "",
        expected: int | None = None,
        check: Callable[[Loaded], None] | None = None,
    ) -> tuple[Loaded, bool]:
        """Decide and append a seat's command; return the game after chance and dedupe flag.

        The game comes from the cache (one store read only when it is not cached); the
        conditional append catches a stale cache, which is then reloaded and the command
        decided again; so is a refusal (only a refusal judged on the stream as read now is
        answered). check (e.g. "the seat is not taken over") runs on every state the
        command is decided on. A command id the seat already used answers its first result
        (the version after its events and the chance they caused) before the version and
        "game over" checks: the append dedupes it atomically when the checks pass, and a
        failed check looks the id up before it raises; the same id with other content is
        AlreadyExists.
        """
        stream = game_stream(game_id)
        fresh = False
        for _ in range(RETRIES):
            loaded = await (self.load(game_id) if fresh else self.latest(game_id))
            if not loaded.ended and _waits_for_chance(loaded):
                loaded = await self.run_chance(game_id, loaded)
                if _waits_for_chance(loaded) and (gate := await self.seed_gate(game_id)):
                    raise SeedsPending(pending_message(gate))
            key = command_key(loaded, command, command_id)
            try:
                if check is not None:
                    check(loaded)
                if expected is not None and expected != loaded.version:
                    raise VersionConflict(stream, expected, loaded.version)
                if loaded.ended:
                    raise RuleViolation(f"game {game_id!r} is over")
                events = [
                    to_new_event(e, command_id) for e in loaded.rules.decide(loaded.state, command)
                ]
            except DomainError:
                if not fresh:
                    fresh = True  # judged on the cache: judge again on the stream as it is
                    continue
                if key and (prior := await self.store.command_result(stream, key)):
                    return await self.first_result(game_id, prior.version), True
                raise
            try:
                res = await self.store.append(stream, loaded.version, events, key)
            except VersionConflict:
                fresh = True  # another writer got there first: reload and decide again
                continue
            if res.deduplicated:
                return await self.first_result(game_id, res.version), True
            return await self.run_chance(
                game_id, self._appended(loaded, events, res.version)
            ), False
        raise RuleViolation("the game is busy; retry the command")

    @_one_fsync
    async def record_seat(
        self, game_id: str, seat: str, kind: str, expected: int | None = None
    ) -> Loaded:
        """Append a seat fact (warned, forfeited, taken_over, reclaimed); a forfeit ends it."""
        if kind not in SEAT_EVENTS:
            raise InvalidArgument("kind", f"must be one of {sorted(SEAT_EVENTS)}")
        loaded = await self.load(game_id)
        if seat not in loaded.seats:
            raise InvalidArgument("seat", f"game {game_id!r} has no seat {seat[:32]!r}")
        if loaded.ended:
            raise RuleViolation(f"game {game_id!r} is over")
        if expected is not None and expected != loaded.version:
            raise VersionConflict(game_stream(game_id), expected, loaded.version)
        events = [NewEvent(SEAT_EVENTS[kind], {"seat": seat})]
        if kind == "forfeited":
            outcome = forfeit_outcome(list(loaded.seats), seat)
            state_hash = loaded.rules.state_hash(loaded.state)
            events.append(NewEvent(GAME_ENDED, {"outcome": outcome, "state_hash": state_hash}))
        await self.store.append(game_stream(game_id), loaded.version, events)
        if kind == "forfeited":
            await self.dice.reveal(game_id)
        return await self.load(game_id)

    async def first_result(self, game_id: str, version: int) -> Loaded:
        """Return the game as first answered to a command that ended at version: after the
        chance and game end that followed it (events no seat's command caused: no causation,
        or a decision key)."""
        now = await self.current(game_id)
        for env in await self.store.read(game_stream(game_id), version + 1):
            if env.causation_id and parse_key(env.causation_id) is None:
                break
            version = env.version
        return replace(now, version=version)

    @_one_fsync
    async def run_chance(self, game_id: str, loaded: Loaded | None = None) -> Loaded:
        """Answer every pending chance decision once (keyed by the decision), then close the
        game if it is over; another runner answering the same decision is not an error.

        Starts from loaded (a state this runner just appended) or the cache; a conflicting
        append means another runner moved on, so the stream is read again."""
        current = loaded or await self.latest(game_id)
        for _ in range(MAX_CHANCE_STEPS):
            pending: Pending | None = current.rules.pending(current.state)
            if pending is None or pending.seat != CHANCE:
                if pending is None and not current.ended:
                    return await self._end(current)
                return current
            assert pending.chance is not None
            if await self.seed_gate(game_id):
                return current  # chance waits until every seat has given its client seed
            key = decision_key(game_id, current.version)
            try:
                cmd = await self.draw(game_id, seated(pending.chance, current.seats), key)
            except DomainError as exc:  # the dice service's clock says it is not time yet
                if WAITING in str(exc):
                    return current
                raise
            events = [to_new_event(e, key) for e in current.rules.decide(current.state, cmd)]
            try:
                res = await self.store.append(game_stream(game_id), current.version, events)
            except VersionConflict:
                current = await self.load(game_id)  # answered meanwhile (same keyed draw)
                continue
            current = self._appended(current, events, res.version)
        raise RuleViolation("chance did not settle; the engine keeps asking for dice")

    async def seed_gate(self, game_id: str) -> Ledger | None:
        """Return the game's dice ledger while chance waits for client seeds, else None.

        The dice stream is read until the gate opens; then the game is remembered as open.
        """
        if game_id in self._gates_open:
            return None
        ledger = fold_dice(await self.store.read(dice_stream(game_id)), keep_draws=False)
        if not ready(ledger, now_utc()):
            return ledger
        if len(self._gates_open) >= MAX_OPEN_GATES:
            self._gates_open.clear()
        self._gates_open.add(game_id)
        return None

    async def draw(self, game_id: str, req: ChanceRequest, key: str) -> Command:
        """Return chance's answer to a request, drawn once per decision key."""
        if req.kind in DECK_KINDS:
            return await self.deck.answer(game_id, req, key)
        if req.kind == "roll":
            roll = await self.dice.roll(
                game_id, req.purpose, list(req.dice), list(req.visible_to), key
            )
            faces = [d.face for d in roll.results]
            return Command(CHANCE, "roll", {"faces": faces, "nonce": roll.nonce})
        perm = await self.dice.shuffle(game_id, req.purpose, req.count, key)
        return Command(CHANCE, "shuffle", {"order": list(perm.order), "nonce": perm.nonce})

    async def _end(self, loaded: Loaded) -> Loaded:
        """Append GameEnded (once), reveal the dice seed and return the ended game."""
        outcome = loaded.rules.outcome(loaded.state) or {}
        data = {"outcome": outcome, "state_hash": loaded.rules.state_hash(loaded.state)}
        key = decision_key(loaded.game_id, loaded.version)
        events = [NewEvent(GAME_ENDED, data, causation_id=key)]
        try:
            res = await self.store.append(game_stream(loaded.game_id), loaded.version, events)
            ended = self._appended(loaded, events, res.version)
        except VersionConflict:
            # another instance ended it (and noted its solo record)
            ended = await self.load(loaded.game_id)
        else:
            solo_key = getattr(loaded.rules, "solo_key", None)
            if solo_key is not None:
                await note_game_end(
                    self.store,
                    loaded.game,
                    loaded.game_id,
                    loaded.seats,
                    solo_key(loaded.state),
                    outcome,
                )
        await self.dice.reveal(loaded.game_id)
        return ended


def _as_stored(stream: str, version: int, ev: NewEvent) -> Envelope:
    """Return a just-appended event as a read from the store would (no position/hashes)."""
    return Envelope(
        event_id=ev.event_id,
        stream=stream,
        version=version,
        position=0,
        type=ev.type,
        schema_version=ev.schema_version,
        occurred_at="",
        correlation_id=ev.correlation_id,
        causation_id=ev.causation_id,
        visibility=normalize_visibility(ev.visibility),
        data=json.loads(canonical_json(ev.data)),
        prev_hash="",
        hash="",
    )


def _apply(cached: Loaded, envs: list[Envelope]) -> Loaded:
    """Return the game after stored events that follow its version."""
    state = fold(cached.rules, envs, cached.state)
    ended = cached.ended or any(e.type == GAME_ENDED for e in envs)
    outcome = next((e.data.get("outcome") for e in envs if e.type == GAME_ENDED), None)
    status = dict(cached.seat_status)
    for e in envs:
        status = seat_status(status, e.type, dict(e.data))
    return Loaded(
        cached.game_id,
        cached.game,
        cached.rules,
        cached.seats,
        state,
        envs[-1].version,
        ended,
        outcome if outcome is not None else cached.outcome,
        status,
    )


def bot_seats(seats: Mapping[str, str], options: Mapping[str, Any]) -> list[str]:
    """Return the seats bots play: those the options list (`bots`) and `bot:` players."""
    listed = options.get("bots") or []
    named = [str(s) for s in listed if str(s) in seats] if isinstance(listed, list) else []
    return sorted({*named, *(s for s, p in seats.items() if p.startswith(BOT_PLAYER_PREFIX))})


def _waits_for_chance(loaded: Loaded) -> bool:
    """Return whether a game waits for chance (or is over without GameEnded yet)."""
    pending = loaded.rules.pending(loaded.state)
    return pending is None or pending.seat == CHANCE


def parse_args(args_json: str, field: str = "args_json") -> dict[str, Any]:
    """Return a JSON object argument, or raise InvalidArgument naming the field."""
    if not args_json:
        return {}
    value = loads_bounded(args_json, field)
    if not isinstance(value, dict):
        raise InvalidArgument(field, "must be a JSON object")
    return value


__all__ = ["ANY_VERSION", "GameRunner", "Loaded", "parse_args"]
