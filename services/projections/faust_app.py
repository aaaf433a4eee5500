"""The Kafka runner: a faust-streaming app over the relayed fallen.events.<family> topics.

The relay keys every event by its game id (``record_key``), so a game's game, dice, deck
and dispute events sit in the same partition number of their topics; faust co-partitions
topics with equal partition counts that the same agents subscribe to, so the ``project``
agent reads the source topics directly and each worker sees all of its games' events
(one broker hop from the relay to the views). Processing is at least once: an event is
acknowledged after its game's views are committed; duplicates are skipped by
(stream, version).

Topics written by an older relay (keyed by stream id, so one game's streams may sit on
different partitions) need the old layout: with ``route`` (``--route``,
``FALLEN_FAUST_ROUTE=1``) a ``route`` agent re-keys every event by its game id onto
``<app id>.by-game`` and ``project`` reads that topic instead (two hops).

Run a worker: ``fallenctl projections faust --kafka HOST:PORT --store URL --views URL``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import faust

from services.platform import heartbeat
from services.platform.envelope import Envelope, stream_game
from services.platform.gcpolicy import freeze_startup
from services.platform.store.base import EventStore
from services.platform.store.factory import open_store
from services.platform.stream.base import TOPIC_PREFIX, record_key, topic_for
from services.projections.open_views import open_view_store
from services.projections.projector import Projector, extra_games_from_env
from services.projections.records import GAME_FAMILIES
from services.projections.stages import Received
from services.projections.viewstore import ViewStore

log = logging.getLogger("fallen.projections.faust")

TAKE = 200
WITHIN_S = 0.02  # a route batch waits at most this long to fill
# The project agent takes batches within PROJECT_WITHIN_S and writes a game's views at most
# every VIEW_EVERY_S (Projector.view_every_s): short batches no longer mean more views per
# event (each was a set of views per game per batch), so the hop waits less.
PROJECT_WITHIN_S = 0.005
VIEW_EVERY_S = 0.025
# While the worker was busy half of the last second or more, views wait up to this instead
# (fewer views per event when it matters; an idle worker keeps the short interval).
VIEW_EVERY_BUSY_S = 0.05
# How long a fetch may wait at the broker for data. faust asks aiokafka for 1500 ms, and
# the Kafka-protocol broker we run (Tansu) holds a fetch over several partitions for
# about that long even when data arrives: measured 450 ms p50 per hop at 150 events/s,
# so the two hops (route, project) lagged 1.1 s at p50. 10 ms keeps each hop short; an
# idle consumer sends a fetch every 10 ms instead (a small cost on a busy stream).
FETCH_MAX_WAIT_MS = 10


def producer_batch_bytes() -> int:
    """Return the route agent's producer batch size in bytes (FALLEN_FAUST_BATCH_BYTES).

    1 (one record per batch) by default: Tansu reports a partition's end offset wrong when
    a batch holds several records (shared notes on Kafka here), which the lag report
    reads. On real Kafka set 16384 or more: measured on Tansu, the route hop's p50 fell
    from about 150 ms to 55 ms at 150 events/s (docs/performance.md)."""
    return max(1, int(os.environ.get("FALLEN_FAUST_BATCH_BYTES", "1")))


def _seconds(var: str, default: float) -> float:
    """Return a duration set in milliseconds in the environment (default in seconds)."""
    raw = os.environ.get(var, "")
    return max(0.0, float(raw) / 1000) if raw.strip() else default


def _short_fetch_waits() -> None:
    """Make faust's aiokafka consumers fetch with FETCH_MAX_WAIT_MS (faust hard-codes
    1500 ms; aiokafka reads the value when the consumer starts, after this)."""
    from faust.transport.drivers import aiokafka as driver

    thread = driver.AIOKafkaConsumerThread
    if getattr(thread, "_fallen_short_fetch", False):
        return
    create = thread._create_worker_consumer

    def create_worker_consumer(self: Any, transport: Any) -> Any:
        consumer = create(self, transport)
        consumer._fetch_max_wait_ms = int(
            1000 * _seconds("FALLEN_FAUST_FETCH_WAIT_MS", FETCH_MAX_WAIT_MS / 1000)
        )
        return consumer

    thread._create_worker_consumer = create_worker_consumer  # type: ignore[method-assign]
    thread._fallen_short_fetch = True  # type: ignore[attr-defined]


def _game_of(value: bytes) -> bytes:
    """Return the game id of a relayed event from its envelope (the key of an old-layout
    record is its stream id, of a new one its game id: only the envelope tells which)."""
    return record_key(str(json.loads(value)["stream"]))


def route_from_env() -> bool:
    """Return whether FALLEN_FAUST_ROUTE asks for the by-game re-keying hop (old topics)."""
    return os.environ.get("FALLEN_FAUST_ROUTE", "").strip().lower() in ("1", "true", "yes")


def _router(by_game: Any) -> Any:
    """Return the route agent's function: re-key each event by its game id onto by_game
    (a batch is acked once its copies are acknowledged by the broker)."""

    async def route(stream: Any) -> None:
        """Re-key each event by its game id (acked once the copies are acknowledged)."""
        async for events in stream.take_events(TAKE, within=WITHIN_S):
            sent = []
            for event in events:
                value: bytes = event.value
                sent.append(await by_game.send(key=_game_of(value), value=value))
            await asyncio.gather(*sent)

    return route


def _received(events: list[Any]) -> Received:
    """Return when a batch was received, with each record's Kafka timestamp (the relay's
    producer sets it when it sends)."""
    produced = []
    for event in events:
        stamp = getattr(event.message, "timestamp", None)
        produced.append(float(stamp) if stamp else None)
    return Received(time.time(), produced)


@dataclass(frozen=True)
class FaustConfig:
    """Where the worker reads and writes."""

    bootstrap: str
    store_url: str
    views_url: str
    app_id: str = "fallen-projections"
    topic_prefix: str = TOPIC_PREFIX
    families: tuple[str, ...] = GAME_FAMILIES
    partitions: int = 4
    route: bool = False  # re-key onto <app id>.by-game first (topics of an older relay)

    @staticmethod
    def from_env() -> FaustConfig:
        """Return the configuration in FALLEN_KAFKA, FALLEN_STORE, FALLEN_VIEWS, ..."""
        return FaustConfig(
            bootstrap=os.environ["FALLEN_KAFKA"].removeprefix("kafka://"),
            store_url=os.environ["FALLEN_STORE"],
            views_url=os.environ["FALLEN_VIEWS"],
            app_id=os.environ.get("FALLEN_PROJECTIONS_APP", "fallen-projections"),
            topic_prefix=os.environ.get("FALLEN_TOPIC_PREFIX", TOPIC_PREFIX),
            route=route_from_env(),
        )


@dataclass
class _Parts:
    """What the worker opens lazily inside its own event loop."""

    store: EventStore | None = None
    views: ViewStore | None = None
    projector: Projector | None = None
    processed: dict[Any, int] = field(default_factory=dict)
    held: dict[str, list[Any]] = field(default_factory=dict)  # deferred game -> unacked events
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wake: asyncio.Event = field(default_factory=asyncio.Event)


def make_app(cfg: FaustConfig) -> faust.App:
    """Return the faust app with the project agent (and route, cfg.route) and a status timer."""
    _short_fetch_waits()
    app = faust.App(
        cfg.app_id,
        broker=f"kafka://{cfg.bootstrap}",
        store="memory://",
        topic_partitions=cfg.partitions,
        topic_replication_factor=1,
        processing_guarantee="at_least_once",
        broker_session_timeout=4,
        broker_rebalance_timeout=10,
        broker_heartbeat_interval=1,
        producer_max_batch_size=producer_batch_bytes(),
        consumer_auto_offset_reset="earliest",
        web_enabled=False,
        autodiscover=False,
    )
    topics = [topic_for(f, cfg.topic_prefix) for f in cfg.families]
    # internal: the worker creates the relayed topics it lacks when it subscribes (with
    # cfg.partitions, as the relay does), so a family's first event (say a dispute's,
    # long after the start) does not add a topic and rebalance the group then.
    source = app.topic(
        *topics,
        key_serializer="raw",
        value_serializer="raw",
        partitions=cfg.partitions,
        internal=True,
    )
    projected = source
    if cfg.route:
        by_game = app.topic(
            f"{cfg.app_id}.by-game",
            key_serializer="raw",
            value_serializer="raw",
            partitions=cfg.partitions,
        )
        app.agent(source)(_router(by_game))
        projected = by_game
    parts = _Parts()

    def projector() -> Projector:
        if parts.projector is None:
            parts.store = open_store(cfg.store_url)
            parts.views = open_view_store(cfg.views_url)
            parts.projector = Projector(
                parts.store,
                parts.views,
                extra_games_from_env(),
                runner=f"faust:{socket.gethostname()}:{os.getpid()}",
                view_every_s=_seconds("FALLEN_FAUST_VIEW_EVERY_MS", VIEW_EVERY_S),
                view_every_busy_s=_seconds("FALLEN_FAUST_VIEW_EVERY_BUSY_MS", VIEW_EVERY_BUSY_S),
            )
        return parts.projector

    async def ack(stream: Any, events: list[Any]) -> None:
        """Acknowledge events whose views are written (the offsets may then be committed)."""
        for event in events:
            await stream.ack(event)
            tp = event.message.tp
            parts.processed[tp] = max(parts.processed.get(tp, -1), event.message.offset)

    async def settle(stream: Any, batch: list[Any], envs: list[Envelope]) -> None:
        """Ack the batch's and held events of games whose views are written; hold the rest."""
        deferred = projector().deferred
        ready = []
        for event, env in zip(batch, envs, strict=True):
            game_id = stream_game(env.stream)
            if game_id in deferred:
                parts.held.setdefault(game_id, []).append(event)
            else:
                ready.append(event)
        for game_id in [g for g in parts.held if g not in deferred]:
            ready += parts.held.pop(game_id)
        await ack(stream, ready)

    async def flush_views(stream: Any) -> None:
        """Write deferred games' views when their interval has passed, then ack their events."""
        while True:
            wait = projector().next_flush_in()
            if wait is None:
                parts.wake.clear()
                await parts.wake.wait()
                continue
            await asyncio.sleep(wait)
            try:
                async with parts.lock:
                    for game_id in await projector().flush():
                        await ack(stream, parts.held.pop(game_id, []))
            except Exception:
                log.exception("could not write deferred views; retrying")
                await asyncio.sleep(0.5)

    @app.agent(projected)
    async def project(stream: Any) -> None:
        """Apply the partitions' events in batches; each event is acknowledged once its
        game's views are committed (at once, or by the flusher for a deferred game)."""
        projector().warm()  # before the first events, not while they wait
        freeze_startup()  # the warmed heap stays out of full collections (gcpolicy.py)
        flusher = asyncio.ensure_future(flush_views(stream))
        within = _seconds("FALLEN_FAUST_WITHIN_MS", PROJECT_WITHIN_S)
        try:
            async for events in stream.noack_take(TAKE, within=within):
                received = _received(events)
                envs = [Envelope.from_dict(json.loads(e.value)) for e in events]
                async with parts.lock:
                    await projector().process(envs, received=received)
                    await settle(stream, events, envs)
                parts.wake.set()
        finally:
            flusher.cancel()

    @app.timer(1.0)
    async def report() -> None:
        """Write lag (messages of the projected topics not yet applied on this worker's
        partitions)."""
        heartbeat.beat()
        if parts.projector is None:
            return
        lag = 0
        names = set(projected.topics)
        for tp in app.consumer.assignment():
            if tp.topic not in names:
                continue
            high = app.consumer.highwater(tp)
            done = parts.processed.get(tp, -1) + 1
            if high is not None:
                lag += max(0, int(high) - done)
        try:
            await parts.projector.report(lag)
        except Exception:
            log.exception("could not write the projection status")

    app.fallen_projector = projector  # type: ignore[attr-defined]  # tests reach the projector
    return app


class QuietWorker(faust.Worker):
    """faust's worker without its terminal spinner. faust turns the spinner by sending
    every log record to it, so it sets the root logger to DEBUG whatever the level asked
    for: every debug call of aiokafka, faust and mode then builds a record (it looks up its
    caller's frame) for a spinner that nobody sees in a container. That was about 6% of the
    worker's CPU under load (py-spy, docs/performance.md, stop 26)."""

    def on_setup_root_logger(self, logger: logging.Logger, level: int) -> None:
        """Set up the root logger at the level asked for, with no spinner."""
        self.spinner = None
        super().on_setup_root_logger(logger, level)


def run_worker(cfg: FaustConfig, loglevel: str = "WARNING") -> None:
    """Run one faust worker until it is stopped (blocks)."""
    app = make_app(cfg)
    worker = QuietWorker(app, loglevel=loglevel, quiet=True)
    worker.execute_from_commandline()


if __name__ == "__main__":
    run_worker(FaustConfig.from_env(), os.environ.get("FALLEN_LOG_LEVEL", "WARNING"))
