"""The pure projection of one game: apply(projection, event) -> projection, and its views.

A game's projection holds the engine state folded from its game stream and, for every
stream of the game (game, dice, deck, dispute), the last applied version and hash. An event
whose version is not above the last applied one is skipped (at-least-once delivery never
applies twice); one that skips a version raises Gap so the runner can fetch what is
missing. Views are the engine's own redaction, rules.view(state, seat), for every seat and
for the spectator (seat ""); a projection remembers the game-stream version its views were
last written at (viewed), so views that lag the state are written by whatever batch comes
next, whether or not it holds a new game event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from services.platform.canonical import GENESIS_HASH
from services.platform.envelope import Envelope, stream_family
from services.platform.games import GAME_CREATED, GAME_ENDED, is_seat_event
from services.platform.upcast import REGISTRY, Upcasters, for_rules
from services.rules.engine.api import Event, GameRules

SPECTATOR = ""
RulesOf = Callable[[str], GameRules | None]


class Gap(Exception):
    """An event arrived whose predecessors in its stream were not applied yet."""

    def __init__(self, stream: str, have: int, got: int) -> None:
        super().__init__(f"{stream}: have version {have}, got {got}")
        self.stream = stream
        self.have = have
        self.got = got


class NeedsState(Exception):
    """A game event arrived for a projection whose engine state is not loaded."""


@dataclass(frozen=True)
class Head:
    """The last applied version of a stream and that event's hash."""

    version: int
    hash: str


@dataclass(frozen=True)
class GameProjection:
    """Everything the projections know about one game."""

    game_id: str
    game: str = ""
    seats: Mapping[str, str] = field(default_factory=dict)
    heads: Mapping[str, Head] = field(default_factory=dict)
    chain_break: str = ""
    ended: bool = False
    events: int = 0
    error: str = ""
    state: Any = None
    state_loaded: bool = True
    viewed: int = 0

    @property
    def game_stream(self) -> str:
        """Return the id of the game's own stream."""
        return f"game-{self.game_id}"

    @property
    def version(self) -> int:
        """Return the game-stream version the views reflect."""
        return self.applied(self.game_stream)

    def applied(self, stream: str) -> int:
        """Return the last applied version of a stream (0: none)."""
        head = self.heads.get(stream)
        return head.version if head else 0

    def to_record(self) -> dict[str, Any]:
        """Return the persisted form (everything but the engine state)."""
        return {
            "game_id": self.game_id,
            "game": self.game,
            "seats": dict(self.seats),
            "heads": {s: [h.version, h.hash] for s, h in sorted(self.heads.items())},
            "chain_break": self.chain_break,
            "ended": self.ended,
            "events": self.events,
            "error": self.error,
            "viewed": self.viewed,
        }

    @staticmethod
    def from_record(rec: Mapping[str, Any]) -> GameProjection:
        """Return the projection persisted as rec, its engine state still to be loaded."""
        heads = {s: Head(int(v), str(h)) for s, (v, h) in rec.get("heads", {}).items()}
        proj = GameProjection(
            game_id=rec["game_id"],
            game=rec.get("game", ""),
            seats=dict(rec.get("seats", {})),
            heads=heads,
            chain_break=rec.get("chain_break", ""),
            ended=bool(rec.get("ended", False)),
            events=int(rec.get("events", 0)),
            error=rec.get("error", ""),
            viewed=int(rec.get("viewed", 0)),
        )
        return replace(proj, state_loaded=proj.version == 0)


def to_rules_event(env: Envelope) -> Event:
    """Return the engine form of a stored (already upcast) event."""
    vis = env.visibility if isinstance(env.visibility, str) else tuple(env.visibility)
    return Event(env.type, env.data, vis)


def _chain_problem(head: Head | None, env: Envelope) -> str:
    """Return what is wrong with env's place in its hash chain ('' when nothing is)."""
    expected_prev = head.hash if head else GENESIS_HASH
    if env.prev_hash != expected_prev:
        return f"{env.stream} version {env.version}: prev_hash is not the previous event's hash"
    if env.hash != env.expected_hash():
        return f"{env.stream} version {env.version}: hash differs from its record"
    return ""


def _evolve(
    proj: GameProjection, env: Envelope, rules: GameRules | None, upcasters: Upcasters
) -> GameProjection:
    """Return proj with one game-stream event folded into the engine state."""
    if env.type == GAME_CREATED:
        state = rules.initial_state() if rules is not None else None
        return replace(
            proj,
            game=str(env.data.get("game", "")),
            seats=dict(env.data.get("seats", {})),
            state=state,
            state_loaded=True,
        )
    if env.type == GAME_ENDED:
        return replace(proj, ended=True)
    if is_seat_event(env.type):
        return proj  # seat facts (docs/matchmaking.md) are not engine events
    if not proj.state_loaded:
        raise NeedsState(proj.game_id)
    if rules is None or proj.error or proj.state is None:
        return proj
    try:
        state = rules.evolve(proj.state, to_rules_event(upcasters.upcast(env)))
    except Exception as exc:  # a broken event freezes this game's views, not the runner
        return replace(proj, error=f"{env.stream} version {env.version}: {type(exc).__name__}")
    return replace(proj, state=state)


def apply(proj: GameProjection, env: Envelope, rules_of: RulesOf) -> GameProjection:
    """Return the projection after one event; skip it if already applied, raise Gap if early."""
    have = proj.applied(env.stream)
    if env.version <= have:
        return proj
    if env.version != have + 1:
        raise Gap(env.stream, have, env.version)
    chain_break = proj.chain_break or _chain_problem(proj.heads.get(env.stream), env)
    if stream_family(env.stream) == "game":
        kind = str(env.data.get("game", "")) if env.type == GAME_CREATED else proj.game
        rules = rules_of(kind) if kind else None
        proj = _evolve(proj, env, rules, for_rules(rules, REGISTRY))
    heads = {**proj.heads, env.stream: Head(env.version, env.hash)}
    return replace(proj, heads=heads, chain_break=chain_break, events=proj.events + 1)


def load_state(
    proj: GameProjection, game_events: Iterable[Envelope], rules_of: RulesOf
) -> GameProjection:
    """Return proj with its engine state refolded from game-stream events 1..proj.version."""
    fresh = GameProjection(proj.game_id)
    for env in game_events:
        if env.version > proj.version:
            break
        fresh = apply(fresh, env, rules_of)
    if fresh.version != proj.version:
        raise Gap(proj.game_stream, fresh.version, proj.version)
    return replace(proj, state=fresh.state, state_loaded=True, error=proj.error or fresh.error)


def views_due(proj: GameProjection) -> bool:
    """Return whether the game's state moved past the views last written for it."""
    return proj.version > proj.viewed


def viewless(proj: GameProjection, rules_of: RulesOf) -> bool:
    """Return whether a loaded projection can have no views (no game or engine, broken)."""
    return not proj.game or bool(proj.error) or proj.state is None or rules_of(proj.game) is None


def mark_viewed(proj: GameProjection) -> GameProjection:
    """Return proj noting that its views are written for its current version."""
    return replace(proj, viewed=proj.version)


def views(proj: GameProjection, rules_of: RulesOf) -> dict[str, dict[str, Any]]:
    """Return every seat's view and the spectator's ('' key); {} when there is none (no
    game or engine yet, a broken game, or a state the engine cannot describe)."""
    if not proj.state_loaded or viewless(proj, rules_of):
        return {}
    rules = rules_of(proj.game)
    if rules is None:
        return {}
    try:
        out = {seat: rules.view(proj.state, seat) for seat in sorted(proj.seats)}
        out[SPECTATOR] = rules.view(proj.state, None)
    except Exception:
        # A batch may end inside one append (a command's events), where the engine need not
        # be able to describe the state; the rest of the append follows, and views with it.
        return {}
    return out


def fold_game(game_id: str, envs: Iterable[Envelope], rules_of: RulesOf) -> GameProjection:
    """Return the projection of a game rebuilt from scratch from its events (any streams)."""
    proj = GameProjection(game_id)
    for env in envs:
        proj = apply(proj, env, rules_of)
    return proj
