"""The one thing every runner calls: apply a batch of events, write it, remember the games.

Runners only fetch events and keep a checkpoint; the Projector applies the pure projection
(core.apply), recovers what it lacks from the event store (a game's engine state after a
restart, events a feed skipped), and commits views, audit records and game records to the
view store in one batch.

With view_every_s > 0 (the faust runner) a game's views are written at most once per
view_every_s: a batch that finds a game's views written less than that ago applies its
events and leaves the game in ``deferred``; ``flush()`` writes the views of deferred games
whose time has come (the runner calls it when ``next_flush_in()`` says). A game whose events
arrive further apart than that is viewed at once, as before; one that gets events in
every batch (a busy worker's small batches) costs one set of views per interval instead of
one per batch. With view_every_busy_s above view_every_s the interval is that longer one
while the runner was busy (applying and writing) at least BUSY_SHARE of the last second:
a busy worker builds fewer views per event, an idle one keeps the short interval. The
runner acknowledges a deferred game's events only after its views are written, so
delivery stays at least once. Lag is measured when an event's views are written.
"""

from __future__ import annotations

import datetime as dt
import importlib
import logging
import os
import time
from collections import OrderedDict, deque
from collections.abc import Mapping, Sequence
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from services.platform.canonical import canonical_json
from services.platform.envelope import Envelope, stream_game
from services.platform.store.base import EventStore
from services.projections import core
from services.projections.busy import BusyShare
from services.projections.core import GameProjection, Gap, NeedsState
from services.projections.records import audit_record
from services.projections.stages import Received, Stages, quantiles
from services.projections.viewstore import Batch, ViewStore
from services.projections.viewtext import ViewText
from services.rules.engine.api import GameRules, Setup, seal_options
from services.rules.registry import ENGINES, load

log = logging.getLogger("fallen.projections")

APPLIED = Counter("fallen_projection_events_total", "Events applied by projections", ["runner"])
LAG_SECONDS = Histogram(
    "fallen_projection_lag_seconds",
    "Seconds from an event's append to its view being written",
    ["runner"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
LAG_EVENTS = Gauge(
    "fallen_projection_lag_events", "Stored events a runner has not applied yet", ["runner"]
)
MAX_CACHED = 2000
MAX_RECOVERIES = 8
NEVER = float("-inf")
BUSY_SHARE = 0.5  # busier than this (share of the last second): view_every_busy_s applies
SAMPLES = 200_000
STATUS_SAMPLES = 10_000


def extra_games_from_env(var: str = "FALLEN_EXTRA_GAMES") -> dict[str, GameRules]:
    """Return engines named in the environment as 'game=module:attr,...' (tests, plugins)."""
    out: dict[str, GameRules] = {}
    for part in filter(None, os.environ.get(var, "").split(",")):
        name, _, target = part.partition("=")
        module, _, attr = target.partition(":")
        out[name.strip()] = getattr(
            importlib.import_module(module.strip()), attr.strip() or "RULES"
        )
    return out


def occurred_seconds(env: Envelope) -> float | None:
    """Return an event's append time as a Unix timestamp (None if unreadable)."""
    try:
        return dt.datetime.fromisoformat(env.occurred_at).timestamp()
    except ValueError:
        return None


def _new_game(rules: GameRules) -> Any:
    """Return the state of a new game with default options (so the card data a new game
    uses is the one loaded), or the empty state when the engine cannot set one up alone."""
    state = rules.initial_state()
    try:
        pin = getattr(rules, "new_game_options", None)
        public, _ = seal_options(rules, pin({}) if pin is not None else {})
        seats = {seat: f"warm-{seat}" for seat in rules.seats}
        for event in rules.initial_events("warm", Setup(seats, public)):
            state = rules.evolve(state, event)
    except Exception:  # e.g. an engine whose games need options: its empty state will do
        return rules.initial_state()
    return state


class Projector:
    """Applies events to game projections and commits the result to a view store."""

    def __init__(
        self,
        store: EventStore,
        views: ViewStore,
        games: Mapping[str, GameRules] | None = None,
        runner: str = "projections",
        max_cached: int = MAX_CACHED,
        view_every_s: float = 0.0,
        view_every_busy_s: float = 0.0,
    ) -> None:
        self.store = store
        self.views = views
        self.extra = dict(games or {})
        self.runner = runner
        self.max_cached = max_cached
        self._cache: OrderedDict[str, GameProjection] = OrderedDict()
        self._rules: dict[str, GameRules | None] = {}
        self.applied = 0
        self.last_position = 0
        self.last_lag = 0.0
        self.lag_samples: deque[float] = deque(maxlen=SAMPLES)
        self._text = ViewText()
        self.view_every = view_every_s
        self.view_every_busy = max(view_every_s, view_every_busy_s)
        self.busy = BusyShare()
        self.deferred: set[str] = set()  # games whose views wait for flush()
        self._viewed_at: dict[str, float] = {}  # game -> monotonic time its views were written
        # deferred game -> its events' (append time, receipt time or None)
        self._waiting: dict[str, list[tuple[float, float | None]]] = {}
        self.stages = Stages()  # where the lag goes, for runners that know (faust_app.py)

    def rules_of(self, game: str) -> GameRules | None:
        """Return the engine of a game kind, or None when this deployment has none."""
        if game not in self._rules:
            try:
                self._rules[game] = load(game, self.extra)
            except Exception as exc:
                log.warning("no engine for game kind", extra={"game": game, "error": str(exc)})
                self._rules[game] = None
        return self._rules[game]

    def warm(self) -> list[str]:
        """Load every engine this deployment knows and build a view of its initial state
        (imports, card data, served texts), so the first events after a start do not wait
        for them; return the game kinds loaded."""
        loaded = []
        for game in sorted({*ENGINES, *self.extra}):
            rules = self.rules_of(game)
            if rules is None:
                continue
            loaded.append(game)
            try:
                state = _new_game(rules)
                for seat in (*rules.seats, None):
                    self._text.encode(rules.view(state, seat))
            except Exception:  # an engine need not describe its initial state
                continue
        return loaded

    async def _get(self, game_id: str) -> GameProjection:
        """Return a game's projection from the cache or the view store (state unloaded)."""
        proj = self._cache.get(game_id)
        if proj is not None:
            self._cache.move_to_end(game_id)
            return proj
        rec = await self.views.load_game(game_id)
        return GameProjection(game_id) if rec is None else GameProjection.from_record(rec)

    async def _load_state(self, proj: GameProjection) -> GameProjection:
        """Return proj with its engine state refolded from the event store."""
        return core.load_state(proj, await self.store.read(proj.game_stream, 1), self.rules_of)

    async def _fill(self, proj: GameProjection, gap: Gap, batch: Batch) -> GameProjection:
        """Return proj with the events a feed skipped applied, read from the event store."""
        for env in await self.store.read(gap.stream, gap.have + 1):
            if env.version >= gap.got:
                break
            proj = await self._apply(proj, env, batch)
        return proj

    async def _apply(self, proj: GameProjection, env: Envelope, batch: Batch) -> GameProjection:
        """Return proj after env, recovering state or skipped events as needed."""
        for _ in range(MAX_RECOVERIES):
            try:
                new = core.apply(proj, env, self.rules_of)
            except NeedsState:
                proj = await self._load_state(proj)
                continue
            except Gap as gap:
                proj = await self._fill(proj, gap, batch)
                continue
            if new is not proj:
                batch.audit.append((proj.game_id, audit_record(env)))
                self.applied += 1
            return new
        raise RuntimeError(f"could not apply {env.stream} version {env.version}")

    async def _write_views(self, proj: GameProjection, batch: Batch) -> GameProjection:
        """Return proj after adding its views to batch if they lag its state (state loaded)."""
        if not core.views_due(proj):
            return proj
        if not proj.state_loaded:
            proj = await self._load_state(proj)
        seat_views = core.views(proj, self.rules_of)
        if seat_views:
            batch.views[proj.game_id] = {s: self._text.encode(v) for s, v in seat_views.items()}
        elif not core.viewless(proj, self.rules_of):
            return proj  # mid-append, the engine need not describe the state: stay due
        return core.mark_viewed(proj)

    async def process(
        self,
        envs: Sequence[Envelope],
        checkpoint: tuple[str, str] | None = None,
        received: Received | None = None,
    ) -> int:
        """Apply events and commit views, audit records and checkpoint; return events applied
        (received: when and from what record the runner received them, to time the stages)."""
        started = time.monotonic()
        batch = Batch(checkpoint=checkpoint)
        touched: dict[str, GameProjection] = {}
        before = self.applied
        for env in envs:
            game_id = stream_game(env.stream)
            proj = touched.get(game_id) or await self._get(game_id)
            touched[game_id] = await self._apply(proj, env, batch)
        now = time.monotonic()
        viewed: set[str] = set()
        for game_id in touched:
            proj = touched[game_id]
            if core.views_due(proj):
                if self._too_soon(game_id, now):
                    self.deferred.add(game_id)
                else:
                    proj = touched[game_id] = await self._write_views(proj, batch)
                    if not core.views_due(proj):
                        viewed.add(game_id)
            if proj.events or proj.heads:
                batch.games[game_id] = proj.to_record()
        try:
            await self.views.commit(batch)
        except BaseException:
            for game_id in touched:
                self._cache.pop(game_id, None)
            raise
        for game_id, proj in touched.items():
            self._remember(game_id, proj)
        self._viewed(viewed, now)
        self._measure(envs, self.applied - before, received)
        self.busy.add(started, time.monotonic())
        return self.applied - before

    def interval(self, now: float) -> float:
        """Return the views interval in force: view_every_busy_s while busy, else view_every_s."""
        if self.view_every_busy > self.view_every and self.busy.share(now) >= BUSY_SHARE:
            return self.view_every_busy
        return self.view_every

    def _too_soon(self, game_id: str, now: float) -> bool:
        """Return whether a game's views were written less than the interval ago."""
        if self.view_every <= 0:
            return False
        if game_id in self.deferred:
            return True
        return now - self._viewed_at.get(game_id, NEVER) < self.interval(now)

    def _viewed(self, game_ids: set[str], now: float) -> None:
        """Note that games' views are written (as of now); measure their waiting events."""
        for game_id in game_ids:
            self.deferred.discard(game_id)
            if self.view_every > 0:
                self._viewed_at[game_id] = now
            self._observe(self._waiting.pop(game_id, ()))
        if len(self._viewed_at) > self.max_cached:
            for game_id in list(self._viewed_at)[: len(self._viewed_at) - self.max_cached]:
                if game_id not in self.deferred:
                    del self._viewed_at[game_id]

    def next_flush_in(self) -> float | None:
        """Return seconds until the first deferred game's views are due (None: none waits)."""
        if not self.deferred:
            return None
        now = time.monotonic()
        due = min(self._viewed_at.get(g, NEVER) for g in self.deferred) + self.interval(now)
        return max(0.0, due - now)

    async def flush(self) -> set[str]:
        """Write the views of deferred games whose interval has passed; return those games."""
        now = time.monotonic()
        every = self.interval(now)
        ready = [g for g in self.deferred if now - self._viewed_at.get(g, NEVER) >= every]
        if not ready:
            return set()
        batch = Batch()
        done: dict[str, GameProjection] = {}
        for game_id in ready:
            proj = await self._write_views(await self._get(game_id), batch)
            done[game_id] = proj
            if proj.events or proj.heads:
                batch.games[game_id] = proj.to_record()
        try:
            await self.views.commit(batch)
        except BaseException:
            for game_id in done:
                self._cache.pop(game_id, None)
            raise
        for game_id, proj in done.items():
            self._remember(game_id, proj)
        self._viewed(set(done), now)
        self.busy.add(now, time.monotonic())
        return set(done)

    def _remember(self, game_id: str, proj: GameProjection) -> None:
        """Cache a projection (ended games drop their engine state once their last views
        are written: a deferred game keeps it, or flush() would refold the whole game from
        the store), evicting the oldest."""
        if proj.ended and proj.state_loaded and proj.version and not core.views_due(proj):
            proj = GameProjection.from_record(proj.to_record())
        self._cache[game_id] = proj
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.max_cached:
            self._cache.popitem(last=False)

    def _measure(
        self, envs: Sequence[Envelope], applied: int, received: Received | None = None
    ) -> None:
        """Record append-to-view lag of the batch's events (and, when received tells, the
        relay and broker stages of each)."""
        if not envs:
            return
        APPLIED.labels(self.runner).inc(applied)
        self.last_position = max(self.last_position, max(e.position for e in envs))
        now: list[tuple[float, float | None]] = []
        received_at = received.at if received is not None else None
        for i, env in enumerate(envs):
            at = occurred_seconds(env)
            if at is None:
                continue
            if received is not None:
                self.stages.record_hops(at, received.produced[i], received.at)
            game_id = stream_game(env.stream)
            if game_id in self.deferred:
                self._waiting.setdefault(game_id, []).append((at, received_at))
            else:
                now.append((at, received_at))
        self._observe(now)

    def _observe(self, times: Sequence[tuple[float, float | None]]) -> None:
        """Record the lag of events (append time, receipt time) whose views are written now."""
        now = time.time()
        for at, received in times:
            lag = max(0.0, now - at)
            self.lag_samples.append(lag)
            LAG_SECONDS.labels(self.runner).observe(lag)
            self.last_lag = lag
            if received is not None:
                self.stages.add("worker", now - received)

    def forget(self) -> None:
        """Drop every cached projection (the next events reload them)."""
        self._cache.clear()

    def lag_quantiles(self, last: int = STATUS_SAMPLES) -> tuple[float, float]:
        """Return (p50, p99) in seconds of the last append-to-view lags (0 when none)."""
        return quantiles(list(self.lag_samples)[-last:])

    def status(self, lag_events: int, position: int | None = None) -> dict[str, Any]:
        """Return this runner's status record."""
        p50, p99 = self.lag_quantiles()
        return {
            "runner": self.runner,
            "lag_events": int(lag_events),
            "lag_seconds": round(self.last_lag, 6),
            "lag_p50_s": round(p50, 6),
            "lag_p99_s": round(p99, 6),
            "position": int(self.last_position if position is None else position),
            "applied": self.applied,
            **({"stages": self.stages.status()} if self.stages.samples else {}),
            "updated_at": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
        }

    async def report(self, lag_events: int, position: int | None = None) -> dict[str, Any]:
        """Write this runner's status to the view store; return it."""
        status = self.status(lag_events, position)
        LAG_EVENTS.labels(self.runner).set(lag_events)
        await self.views.set_meta(f"status:{self.runner}", canonical_json(status))
        return status
