"""The topic layout the relay writes and the faust app reads, against a real broker.

The relay keys every event by its game id, so one game's streams share a partition number
across the family topics (the project agent reads them directly, co-partitioned); topics
an older relay wrote (keyed by stream id) are still projected right by a worker started
with --route (the by-game re-keying hop).
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from pathlib import Path

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from services.platform.canonical import canonical_json
from services.platform.envelope import NewEvent, stream_family, stream_game
from services.platform.store.base import ANY_VERSION
from services.platform.store.sqlite import SqliteEventStore
from services.platform.stream.base import topic_for
from services.platform.stream.kafka_relay import KafkaRelay
from services.platform.stream.kafka_topics import PARTITIONS, ensure_topics
from services.projections.open_views import open_view_store
from services.projections.records import GAME_FAMILIES
from tests.support.faust_worker import applied, start_worker, stop_worker, wait_for
from tests.support.projections_check import assert_equal_to_rebuild, drive
from tests.support.projections_play import runner_for

FAMILIES = ("game", "dice", "deck", "dispute")


async def read_topics(
    bootstrap: str, topics: list[str], count: int
) -> list[tuple[str, int, bytes, dict]]:
    """Return (topic, partition, key, envelope) of the first count records of the topics."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        consumer.assign([TopicPartition(t, p) for t in topics for p in range(PARTITIONS)])
        await consumer.seek_to_beginning()
        out: list[tuple[str, int, bytes, dict]] = []
        while len(out) < count:
            batches = await consumer.getmany(timeout_ms=1000)
            assert batches, "the relayed records did not all arrive"
            for tp, records in batches.items():
                for r in records:
                    out.append((tp.topic, tp.partition, r.key, json.loads(r.value)))
        return out
    finally:
        await consumer.stop()


async def test_given_a_game_on_several_streams_when_relayed_then_its_events_share_a_partition(
    kafka_bootstrap: str, tmp_path: Path
):
    # given games (one with a dash in its id) with events on every family's stream
    store = SqliteEventStore(tmp_path / "events.db")
    prefix = f"l{uuid.uuid4().hex[:8]}.events."
    games = [f"g{i}" for i in range(6)] + ["with-dash"]
    for rnd in range(3):
        for g in games:
            for fam in FAMILIES:
                await store.append(f"{fam}-{g}", ANY_VERSION, [NewEvent("e", {"r": rnd})])
    relay = KafkaRelay(store, kafka_bootstrap, topic_prefix=prefix)
    try:
        # when they are relayed
        while await relay.run_once(max_events=25):
            pass
    finally:
        await relay.close()
        await store.close()
    topics = [topic_for(f, prefix) for f in FAMILIES]
    records = await read_topics(kafka_bootstrap, topics, 3 * len(games) * len(FAMILIES))
    # then each record is keyed by its game id, in its family's topic
    partitions: dict[str, set[int]] = defaultdict(set)
    versions: dict[str, list[int]] = defaultdict(list)
    for topic, partition, key, env in records:
        assert key == stream_game(env["stream"]).encode()
        assert topic == topic_for(stream_family(env["stream"]), prefix)
        partitions[stream_game(env["stream"])].add(partition)
        versions[env["stream"]].append(env["version"])
    # and all of a game's streams sit in one partition number, each stream in order
    assert set(partitions) == set(games)
    assert all(len(p) == 1 for p in partitions.values()), partitions
    assert all(v == [1, 2, 3] for v in versions.values()), versions


async def relay_old_layout(store: SqliteEventStore, bootstrap: str, prefix: str) -> None:
    """Write the store's events as a relay before game-id keys did: keyed by stream id."""
    envs = await store.read_all(1, 100_000)
    await ensure_topics(bootstrap, {topic_for(f, prefix) for f in GAME_FAMILIES})
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for env in envs:
            await producer.send_and_wait(
                topic_for(stream_family(env.stream), prefix),
                value=canonical_json(env.to_dict()).encode(),
                key=env.stream.encode(),
            )
    finally:
        await producer.stop()


async def test_given_old_topics_when_a_route_worker_reads_them_then_views_equal_a_rebuild(
    kafka_bootstrap: str, tmp_path: Path
):
    # given games relayed the old way (keyed by stream id)
    store = SqliteEventStore(tmp_path / "events.db")
    views_url = f"sqlite:///{tmp_path / 'views.db'}"
    views = open_view_store(views_url)
    prefix = f"o{uuid.uuid4().hex[:8]}.events."
    ids = await drive(runner_for(store), "o", seed=31, fallen_steps=40)
    await relay_old_layout(store, kafka_bootstrap, prefix)
    head = await store.head_position()
    # when a worker with the route hop projects them
    worker = start_worker(
        kafka_bootstrap,
        f"sqlite:///{tmp_path / 'events.db'}",
        views_url,
        f"old-{uuid.uuid4().hex[:8]}",
        prefix,
        "--route",
    )
    try:

        async def caught_up() -> bool:
            return await applied(views) >= head

        await wait_for(caught_up, "the route worker to apply every event")
        # then the views equal a rebuild from scratch
        await assert_equal_to_rebuild(store, views, ids)
    finally:
        stop_worker(worker)
        await views.close()
        await store.close()
