"""Relay of a store's global feed to Kafka topics, at least once, from a checkpoint."""

from __future__ import annotations

import asyncio
import logging

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from services.platform.canonical import canonical_json
from services.platform.envelope import Envelope, stream_family
from services.platform.store.base import EventStore
from services.platform.stream.base import TOPIC_PREFIX, record_key, topic_for
from services.platform.stream.kafka_topics import ensure_topics
from services.platform.stream.relay_acks import RelayAcks

IDLE_SECONDS = 0.2
BATCH = 500
IN_FLIGHT = 8  # batches sent by run_forever before the oldest must be acknowledged
CHECKPOINT_EVERY_S = 0.1  # run_forever writes its checkpoint at most this often
RETRY_FIRST_S = 0.1  # first wait after a retriable broker error, doubled up to RETRY_MAX_S
RETRY_MAX_S = 5.0

log = logging.getLogger(__name__)


class KafkaRelay:
    """Produce every stored event to fallen.events.<family>, keyed by game id.

    The key (``record_key``: the game id of the stream) puts a game's game, dice, deck and
    dispute events in the same partition number of their topics (all have PARTITIONS), so
    a consumer group that co-partitions the topics (the faust projection app) sees all of
    a game on one worker, in order per stream.

    The checkpoint (last relayed position, in store meta) is written only after the
    broker acknowledged every event up to it, so a crash re-sends what was sent after
    it (``run_forever``: the batches in flight and at most CHECKPOINT_EVERY_S of
    acknowledged ones): consumers must dedupe by (stream, version). With a sharded Redis
    store, run one relay per shard (shard=N); each keeps its own checkpoint key.
    """

    def __init__(
        self,
        store: EventStore,
        bootstrap: str,
        checkpoint_key: str = "relay:kafka",
        topic_prefix: str = TOPIC_PREFIX,
        shard: int = 0,
    ) -> None:
        self._store = store
        self._bootstrap = bootstrap
        self._shard = shard
        self._checkpoint_key = checkpoint_key if shard == 0 else f"{checkpoint_key}:s{shard}"
        self._prefix = topic_prefix
        self._producer: AIOKafkaProducer | None = None
        self._topics: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        add = getattr(store, "add_listener", None)
        if callable(add):  # appends in this process wake the relay (SqliteEventStore)
            add(self._on_append)

    def _on_append(self, _written: object) -> None:
        """Wake the relay (from any thread) after an append in this process."""
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    async def _idle(self, stop_event: asyncio.Event, seconds: float, after: int) -> None:
        """Wait until the feed may hold more (an append woke us), stop, or seconds pass.

        A Redis feed is waited on with a blocking read, so the relay forwards an event
        as it is appended instead of at its next poll."""
        wait_feed = getattr(self._store, "wait_feed", None)
        waits: list[asyncio.Future[object]] = [asyncio.ensure_future(stop_event.wait())]
        if callable(wait_feed):
            waits.append(asyncio.ensure_future(wait_feed(after, seconds, shard=self._shard)))
        elif self._wake is not None:
            waits.append(asyncio.ensure_future(self._wake.wait()))
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
                w.add_done_callback(_retrieved)

    async def _started(self) -> AIOKafkaProducer:
        """Return the producer, starting it on first use."""
        if self._producer is None:
            producer = AIOKafkaProducer(
                bootstrap_servers=self._bootstrap,
                acks="all",
                enable_idempotence=False,  # Tansu rejects InitProducerId; dedupe downstream
                linger_ms=0,  # a batch's records are all sent at once; no wait for more
            )
            await producer.start()
            self._producer = producer
        return self._producer

    async def checkpoint(self) -> int:
        """Return the last position known to be acknowledged by Kafka (0: none)."""
        raw = await self._store.get_meta(self._checkpoint_key)
        return int(raw or 0)

    async def _read(self, start: int, limit: int) -> list[Envelope]:
        """Return the relayed shard's feed from start (shard 0: the store's default feed)."""
        if self._shard == 0:
            return await self._store.read_all(start, limit)
        return await self._store.read_all(start, limit, shard=self._shard)  # type: ignore[call-arg]

    def _topic(self, env: Envelope) -> str:
        return topic_for(stream_family(env.stream), self._prefix)

    async def _send(self, batch: list[Envelope]) -> asyncio.Future[list[object]]:
        """Send a batch (its topics created first); return its acknowledgements."""
        new_topics = {self._topic(env) for env in batch} - self._topics
        if new_topics:
            await ensure_topics(self._bootstrap, new_topics)
            self._topics |= new_topics
        producer = await self._started()
        pending = [
            await producer.send(
                self._topic(env),
                value=canonical_json(env.to_dict()).encode("utf-8"),
                key=record_key(env.stream),
            )
            for env in batch
        ]
        return asyncio.gather(*pending)

    async def _save(self, position: int) -> None:
        await self._store.set_meta(self._checkpoint_key, str(position))

    async def run_once(self, max_events: int = BATCH) -> int:
        """Relay up to max_events events after the checkpoint, wait for the broker's
        acknowledgement and write the checkpoint; return how many were sent."""
        batch = await self._read(await self.checkpoint() + 1, max_events)
        if not batch:
            return 0
        await (await self._send(batch))
        await self._save(batch[-1].position)
        return len(batch)

    async def run_forever(
        self, stop_event: asyncio.Event, idle_seconds: float = IDLE_SECONDS
    ) -> None:
        """Relay until stop_event is set; when caught up, wait for the next append (at most
        idle_seconds: a store in another process that cannot signal is polled).

        Batches are sent without waiting for the previous one's acknowledgement (IN_FLIGHT
        at most) and the checkpoint is written behind them (RelayAcks), so an event waits
        for neither a broker round trip nor a checkpoint write of the batch before it."""
        backoff = RETRY_FIRST_S
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        acks = RelayAcks(await self.checkpoint(), self._save, CHECKPOINT_EVERY_S)
        after = acks.acked
        try:
            while not stop_event.is_set():
                self._wake.clear()
                try:
                    acks.raise_failure()
                    batch = await self._read(after + 1, BATCH)
                    if not batch:
                        await self._idle(stop_event, idle_seconds, after)
                        continue
                    await acks.room(IN_FLIGHT)
                    acks.add(batch[-1].position, await self._send(batch))
                    after = batch[-1].position
                    backoff = RETRY_FIRST_S
                except KafkaError as err:
                    if not err.retriable:
                        raise
                    # e.g. a partition's leader moving: what was sent after the
                    # acknowledged prefix is sent again (consumers skip what they applied)
                    name = type(err).__name__
                    log.warning("relay: broker said %s; retrying in %.1f s", name, backoff)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, RETRY_MAX_S)
                    after = acks.acked
        finally:
            await acks.close()

    async def close(self) -> None:
        """Flush and stop the producer."""
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None


def _retrieved(task: asyncio.Future[object]) -> None:
    """Retrieve a finished wait's outcome: a blocking read cut off by a closing connection
    (at shutdown) is not an error to report."""
    if not task.cancelled():
        task.exception()
