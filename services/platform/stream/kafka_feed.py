"""Feed of relayed events from Kafka topics through a consumer group."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterable

from aiokafka import AIOKafkaConsumer

from services.platform.envelope import Envelope
from services.platform.stream.base import TOPIC_PREFIX, topic_for
from services.platform.stream.kafka_topics import ensure_topics

POLL_MS = 500


class KafkaFeed:
    """Subscription on fallen.events.<family> topics, at least once.

    Order holds per stream (the stream id is the partition key), not across streams.
    A batch is committed only after every event in it was handled, so a crash or a
    rebalance may deliver an event again: consumers must be idempotent and skip any
    (stream, version) they have already applied. Where a group has committed offsets it
    resumes there; from_position only filters out older events.
    """

    def __init__(
        self,
        bootstrap: str,
        families: Iterable[str],
        group_id: str,
        topic_prefix: str = TOPIC_PREFIX,
    ) -> None:
        self._bootstrap = bootstrap
        self._topics = sorted({topic_for(f, topic_prefix) for f in families})
        self._group_id = group_id
        self._consumer: AIOKafkaConsumer | None = None
        self._closed = False

    async def _started(self) -> AIOKafkaConsumer:
        """Return the consumer, creating missing topics and joining the group first."""
        if self._consumer is None:
            await ensure_topics(self._bootstrap, self._topics)
            consumer = AIOKafkaConsumer(
                *self._topics,
                bootstrap_servers=self._bootstrap,
                group_id=self._group_id,
                enable_auto_commit=False,
                auto_offset_reset="earliest",
                session_timeout_ms=6000,
                heartbeat_interval_ms=1000,
                rebalance_timeout_ms=10000,
            )
            await consumer.start()
            self._consumer = consumer
        return self._consumer

    async def events(self, from_position: int = 1) -> AsyncGenerator[Envelope, None]:
        """Yield events with position >= from_position, forever, in order per stream."""
        consumer = await self._started()
        while not self._closed:
            batches = await consumer.getmany(timeout_ms=POLL_MS)
            for records in batches.values():
                for record in records:
                    if record.value is None:
                        continue
                    env = Envelope.from_dict(json.loads(record.value))
                    if env.position >= from_position:
                        yield env
            if batches and not self._closed:
                await consumer.commit()

    async def close(self) -> None:
        """Stop consuming and leave the group (committed offsets stay)."""
        self._closed = True
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None
