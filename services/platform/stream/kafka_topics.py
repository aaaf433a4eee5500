"""Kafka topic names and creation for the relayed event feed."""

from __future__ import annotations

from collections.abc import Iterable

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError

PARTITIONS = 4
REPLICATION = 1


async def ensure_topics(
    bootstrap: str,
    topics: Iterable[str],
    partitions: int = PARTITIONS,
    replication: int = REPLICATION,
) -> None:
    """Create the topics that do not exist yet (others are left as they are)."""
    wanted = set(topics)
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        missing = wanted - set(await admin.list_topics())
        if not missing:
            return
        new = [
            NewTopic(t, num_partitions=partitions, replication_factor=replication)
            for t in sorted(missing)
        ]
        try:
            await admin.create_topics(new)
        except TopicAlreadyExistsError:
            pass  # another relay or feed created it first
    finally:
        await admin.close()
