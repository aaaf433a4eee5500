"""Contract tests for every stream: each appended event reaches each subscription in order."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from pathlib import Path

import pytest

from services.platform.canonical import GENESIS_HASH
from services.platform.envelope import Envelope, NewEvent
from services.platform.store.base import ANY_VERSION, EventStore
from services.platform.store.redis import RedisEventStore
from services.platform.store.sqlite import SqliteEventStore
from services.platform.stream.base import Subscription
from services.platform.stream.kafka_feed import KafkaFeed
from services.platform.stream.kafka_relay import KafkaRelay
from services.platform.stream.memory import InProcessFeed
from services.platform.stream.redis_feed import RedisFeed

FAMILIES = ("game", "dice", "deck")
TIMEOUT = 30.0

Key = tuple[str, int]


def key(env: Envelope) -> Key:
    """Return the identity an idempotent consumer dedupes on."""
    return (env.stream, env.version)


async def append_mixed(store: EventStore, games: int = 3, rounds: int = 4) -> list[Envelope]:
    """Append events interleaved over game, dice and deck streams; return them as stored."""
    ids = [uuid.uuid4().hex[:8] for _ in range(games)]
    for r in range(rounds):
        for g in ids:
            for fam in FAMILIES:
                await store.append(f"{fam}-{g}", ANY_VERSION, [NewEvent(f"{fam}.e", {"r": r})])
    return await store.read_all(1, 10_000)


async def take(sub: Subscription, n: int, from_position: int = 1) -> list[Envelope]:
    """Return the first n events the subscription yields from from_position."""
    out: list[Envelope] = []

    async def run() -> None:
        async with aclosing(sub.events(from_position)) as events:  # type: ignore[type-var]
            async for env in events:
                out.append(env)
                if len(out) >= n:
                    return

    await asyncio.wait_for(run(), TIMEOUT)
    return out


async def take_distinct(sub: Subscription, wanted: set[Key]) -> tuple[set[Key], int]:
    """Consume until every wanted (stream, version) was seen; return (seen, deliveries)."""
    seen: set[Key] = set()
    deliveries = 0

    async def run() -> None:
        nonlocal deliveries
        async with aclosing(sub.events()) as events:  # type: ignore[type-var]
            async for env in events:
                deliveries += 1
                seen.add(key(env))  # the consumer-side dedupe
                if wanted <= seen:
                    return

    await asyncio.wait_for(run(), TIMEOUT)
    return seen, deliveries


def assert_per_stream_order(events: list[Envelope]) -> None:
    """Assert each stream's events arrive with versions 1, 2, 3, ... and a valid chain."""
    last: dict[str, Envelope] = {}
    for env in events:
        prev = last.get(env.stream)
        assert env.version == (prev.version + 1 if prev else 1)
        assert env.prev_hash == (prev.hash if prev else GENESIS_HASH)
        assert env.hash == env.expected_hash()
        last[env.stream] = env


@asynccontextmanager
async def kafka_relaying(relay: KafkaRelay) -> AsyncIterator[None]:
    """Run the relay in the background for the duration of the block."""
    stop = asyncio.Event()
    task = asyncio.create_task(relay.run_forever(stop, idle_seconds=0.05))
    try:
        yield
    finally:
        stop.set()
        await task
        await relay.close()


def subscription(kind: str, store: EventStore, bootstrap: str, prefix: str) -> Subscription:
    """Return a fresh subscription of the given kind over store."""
    if kind == "memory":
        assert isinstance(store, SqliteEventStore)
        return InProcessFeed(store, poll_seconds=0.1)
    if kind == "redis":
        assert isinstance(store, RedisEventStore)
        return RedisFeed(store.url, prefix=store.prefix)
    return KafkaFeed(bootstrap, FAMILIES, group_id=f"g-{uuid.uuid4().hex}", topic_prefix=prefix)


@pytest.fixture(params=["memory", "redis", "kafka"])
async def bench(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[str, EventStore, str, str]]:
    """Yield (kind, empty store, kafka bootstrap or '', topic prefix) per stream kind."""
    kind: str = request.param
    store: EventStore
    bootstrap = ""
    if kind == "redis":
        url = request.getfixturevalue("redis_url")
        store = RedisEventStore(url, prefix=f"t{uuid.uuid4().hex[:12]}")
    else:
        store = SqliteEventStore(tmp_path / "events.db")
    if kind == "kafka":
        bootstrap = request.getfixturevalue("kafka_bootstrap")
    try:
        yield kind, store, bootstrap, f"t{uuid.uuid4().hex[:10]}.events."
    finally:
        await store.close()


async def test_given_appends_when_subscribed_then_every_event_arrives_in_order(
    bench: tuple[str, EventStore, str, str],
) -> None:
    kind, store, bootstrap, prefix = bench
    sub = subscription(kind, store, bootstrap, prefix)
    try:
        # given events already stored before subscribing
        before = await append_mixed(store, rounds=2)
        relay = KafkaRelay(store, bootstrap, topic_prefix=prefix) if kind == "kafka" else None
        async with kafka_relaying(relay) if relay else _nothing():
            # when more arrive while the subscriber is reading
            reader = asyncio.create_task(take(sub, len(before) * 2))
            await asyncio.sleep(0.05)
            everything = before + (await append_mixed(store, rounds=2))[len(before) :]
            got = await reader
        # then every event arrives exactly as stored, in order
        if kind == "kafka":
            # Kafka keeps order per stream (the partition key), not across streams.
            assert sorted(got, key=lambda e: e.position) == everything
            assert_per_stream_order(got)
        else:
            assert got == everything
            assert [e.position for e in got] == list(range(1, len(everything) + 1))
    finally:
        await sub.close()


@asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_given_a_position_when_subscribing_then_it_resumes_there(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # given a store with events
    store: EventStore
    if kind == "redis":
        store = RedisEventStore(request.getfixturevalue("redis_url"), prefix=uuid.uuid4().hex)
    else:
        store = SqliteEventStore(tmp_path / "e.db")
    stored = await append_mixed(store, games=2, rounds=2)
    sub = subscription(kind, store, "", "")
    try:
        # when subscribing from position 5, twice (a restarted reader)
        first = await take(sub, 3, from_position=5)
        again = await take(sub, len(stored) - 7, from_position=8)
        # then delivery starts at exactly that position
        assert first == stored[4:7]
        assert again == stored[7:]
    finally:
        await sub.close()
        await store.close()


async def test_given_a_second_store_on_the_same_file_then_the_feed_sees_its_appends(
    tmp_path: Path,
) -> None:
    # given a feed on one store object and another store object on the same file
    ours = SqliteEventStore(tmp_path / "shared.db")
    theirs = SqliteEventStore(tmp_path / "shared.db")
    feed = InProcessFeed(ours, poll_seconds=0.1)
    try:
        # when only the other one appends (no listener fires in ours)
        reader = asyncio.create_task(take(feed, 3))
        await asyncio.sleep(0.05)
        await theirs.append("game-x", 0, [NewEvent("a", {}), NewEvent("b", {}), NewEvent("c", {})])
        # then polling delivers them
        assert [e.type for e in await reader] == ["a", "b", "c"]
    finally:
        await feed.close()
        await ours.close()
        await theirs.close()


async def test_given_a_redis_consumer_group_when_a_consumer_restarts_then_it_resumes(
    redis_url: str,
) -> None:
    # given a redis store with events and a consumer group that has read half of them
    store = RedisEventStore(redis_url, prefix=uuid.uuid4().hex)
    stored = await append_mixed(store, games=2, rounds=2)
    feed = RedisFeed(redis_url, prefix=store.prefix)
    try:
        first: list[Envelope] = []
        async with aclosing(feed.group_events("proj", "c1")) as events:
            async for env in events:
                first.append(env)
                if len(first) == 5:
                    break  # the 5th is delivered but not acked: a crash mid-event
        # when a consumer of the same group starts again
        rest: list[Envelope] = []
        async with aclosing(feed.group_events("proj", "c1")) as events:
            async for env in events:
                rest.append(env)
                if env.position == stored[-1].position:
                    break
        # then the unacked event comes again and nothing is lost
        assert first == stored[:5]
        assert rest == stored[4:]
    finally:
        await feed.close()
        await store.close()


async def test_given_a_relay_restart_when_consuming_then_dedupe_yields_exactly_the_appended_set(
    event_store: EventStore, kafka_bootstrap: str
) -> None:
    prefix = f"r{uuid.uuid4().hex[:10]}.events."
    # given part of the log relayed by a first relay that then stopped
    stored = await append_mixed(event_store, games=2, rounds=3)
    relay = KafkaRelay(event_store, kafka_bootstrap, topic_prefix=prefix)
    assert await relay.run_once(max_events=7) == 7
    await relay.close()
    assert await relay.checkpoint() == stored[6].position
    # and a crash after Kafka acked but before the checkpoint was written
    await event_store.set_meta("relay:kafka", str(stored[3].position))
    # when a new relay object starts, and more events arrive
    await append_mixed(event_store, games=1, rounds=1)
    stored = await event_store.read_all()
    relay = KafkaRelay(event_store, kafka_bootstrap, topic_prefix=prefix)
    sent = 0
    while (n := await relay.run_once(max_events=5)) > 0:
        sent += n
    await relay.close()
    # then it resumed from its checkpoint: events 5..7 twice, none lost
    assert sent == len(stored) - 4
    assert await relay.checkpoint() == stored[-1].position
    feed = KafkaFeed(kafka_bootstrap, FAMILIES, f"g-{uuid.uuid4().hex}", topic_prefix=prefix)
    try:
        seen, deliveries = await take_distinct(feed, {key(e) for e in stored})
    finally:
        await feed.close()
    assert seen == {key(e) for e in stored}
    assert deliveries >= len(stored)


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from services.platform.envelope import NewEvent
    from services.platform.errors import VersionConflict
    from services.platform.store.sqlite import SqliteEventStore

    async def main(path: str, tag: str, n: int) -> None:
        store = SqliteEventStore(path)
        for i in range(n):
            while True:
                version = await store.version("game-shared")
                try:
                    await store.append("game-shared", version, [NewEvent("w", {"w": tag, "i": i})])
                    break
                except VersionConflict:
                    continue
            await store.append("game-" + tag, i, [NewEvent("own", {"i": i})])
        await store.close()

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    """
)


async def test_given_two_processes_on_one_sqlite_file_then_no_event_is_lost_or_doubled(
    tmp_path: Path,
) -> None:
    # given two OS processes appending to the same stream with expected versions
    path = tmp_path / "shared.db"
    await SqliteEventStore(path).close()  # create the schema once, before the race
    n = 40
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, str(n)])
        for tag in ("p1", "p2")
    ]
    # when both finish
    codes = await asyncio.gather(*(asyncio.to_thread(p.wait, 60) for p in procs))
    assert codes == [0, 0]
    # then every write is there exactly once, versions are dense and the chain is valid
    store = SqliteEventStore(path)
    try:
        shared = await store.read("game-shared")
        assert sorted((e.data["w"], e.data["i"]) for e in shared) == sorted(
            (t, i) for t in ("p1", "p2") for i in range(n)
        )
        assert_per_stream_order(shared)
        for tag in ("p1", "p2"):
            assert [e.data["i"] for e in await store.read(f"game-{tag}")] == list(range(n))
        positions = [e.position for e in await store.read_all(1, 10_000)]
        assert positions == list(range(1, 4 * n + 1))
    finally:
        await store.close()


async def test_given_a_sharded_redis_store_when_one_relay_runs_per_shard_then_kafka_gets_all(
    redis_url: str, kafka_bootstrap: str
) -> None:
    from services.platform.store.redis import RedisEventStore, shard_of

    prefix = f"sh{uuid.uuid4().hex[:8]}"
    topics = f"{prefix}.events."
    store = RedisEventStore(redis_url, shards=3, prefix=prefix)
    try:
        # given events of many games spread over three shards
        for g in range(12):
            await store.append(f"game-x{g}", 0, [NewEvent("Made", {"g": g})])
            await store.append(f"dice-x{g}", 0, [NewEvent("Rolled", {"g": g})])
        used = {shard_of(f"game-x{g}", 3) for g in range(12)}
        assert len(used) > 1
        # when one relay per shard runs to the end of its feed
        for shard in range(3):
            relay = KafkaRelay(store, kafka_bootstrap, topic_prefix=topics, shard=shard)
            while await relay.run_once(max_events=4) > 0:
                pass
            await relay.close()
        # then every event of every shard reached Kafka exactly as stored
        expected = {}
        for g in range(12):
            for stream in (f"game-x{g}", f"dice-x{g}"):
                for env in await store.read(stream):
                    expected[key(env)] = env.hash
        feed = KafkaFeed(kafka_bootstrap, ["game", "dice"], f"g-{prefix}", topic_prefix=topics)
        try:
            seen, _ = await take_distinct(feed, set(expected))
        finally:
            await feed.close()
        assert seen == set(expected)
    finally:
        await store.close()
