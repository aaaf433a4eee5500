"""Contract tests every EventStore implementation must pass (sqlite and redis)."""

from __future__ import annotations

import asyncio
import re
import uuid
from pathlib import Path

import pytest

from services.platform.canonical import GENESIS_HASH
from services.platform.envelope import NOBODY, PUBLIC, Envelope, NewEvent, seats
from services.platform.errors import AlreadyExists, InvalidArgument, VersionConflict
from services.platform.store.base import ANY_VERSION, CommandKey, EventStore
from services.platform.store.factory import open_store
from services.platform.store.redis import RedisEventStore, shard_of
from services.platform.store.sqlite import SqliteEventStore


def ev(i: int = 0, **kw: object) -> NewEvent:
    """Return a small test event."""
    return NewEvent(type="tick", data={"i": i}, **kw)  # type: ignore[arg-type]


def assert_chain(events: list[Envelope]) -> None:
    """Assert versions run 1..n and every hash links to the one before."""
    prev = GENESIS_HASH
    for n, env in enumerate(events, start=1):
        assert env.version == n
        assert env.prev_hash == prev
        assert env.hash == env.expected_hash()
        prev = env.hash


async def test_given_empty_stream_when_appending_then_versions_start_at_1_and_chain(
    event_store: EventStore,
) -> None:
    # given an empty stream
    assert await event_store.version("game-a") == 0
    assert await event_store.read("game-a") == []
    # when two appends land
    r1 = await event_store.append("game-a", 0, [ev(1), ev(2)])
    r2 = await event_store.append("game-a", 2, [ev(3)])
    # then versions count from 1, positions grow, and the hash chain holds
    assert (r1.version, r2.version) == (2, 3)
    assert r1.first_position < r1.last_position < r2.first_position == r2.last_position
    assert not r1.deduplicated
    events = await event_store.read("game-a")
    assert [e.data["i"] for e in events] == [1, 2, 3]
    assert_chain(events)
    assert await event_store.version("game-a") == 3
    assert [e.version for e in await event_store.read("game-a", from_version=2)] == [2, 3]
    assert await event_store.head_position() == r2.last_position


async def test_given_stale_expected_version_when_appending_then_conflict_and_nothing_appended(
    event_store: EventStore,
) -> None:
    # given a stream at version 2
    await event_store.append("game-b", 0, [ev(1), ev(2)])
    # when appending at version 1
    with pytest.raises(VersionConflict) as info:
        await event_store.append("game-b", 1, [ev(3)])
    # then the conflict names both versions and nothing was written
    assert (info.value.expected, info.value.actual) == (1, 2)
    assert await event_store.version("game-b") == 2
    assert len(await event_store.read_all()) == 2


async def test_given_a_command_id_when_replayed_then_first_result_and_nothing_appended(
    event_store: EventStore,
) -> None:
    # given a command that was appended
    first = await event_store.append("game-c", 0, [ev(1)], command_id="cmd-1")
    # when the same command id comes again, even with another expected version
    again = await event_store.append("game-c", 0, [ev(1)], command_id="cmd-1")
    other = await event_store.append("game-c", 7, [ev(2)], command_id="cmd-1")
    anyv = await event_store.append("game-c", ANY_VERSION, [ev(3)], command_id="cmd-1")
    # then each answer is the first result, marked deduplicated, and nothing is appended
    for r in (again, other, anyv):
        assert r.deduplicated
        assert (r.stream, r.version, r.first_position, r.last_position) == (
            first.stream, first.version, first.first_position, first.last_position,
        )  # fmt: skip
    assert await event_store.version("game-c") == 1
    # and the same command id on another stream is a different command
    elsewhere = await event_store.append("game-d", 0, [ev(1)], command_id="cmd-1")
    assert not elsewhere.deduplicated


async def test_given_a_sent_command_when_its_sender_retries_then_first_result_before_version(
    event_store: EventStore,
) -> None:
    # given the hero's command c-1 landed and the stream moved on
    hero = CommandKey("c-1", sender="alice/hero", digest="aa11")
    first = await event_store.append("game-p", 0, [ev(1)], command_id=hero)
    await event_store.append("game-p", 1, [ev(2)])
    # when the hero retries c-1 with the same content and the old expected version
    again = await event_store.append("game-p", 0, [ev(1)], command_id=hero)
    looked_up = await event_store.command_result("game-p", hero)
    # then the first result comes back (not ABORTED) and nothing is appended
    assert again.deduplicated and again.version == first.version == 1
    assert looked_up is not None and looked_up.version == 1
    assert await event_store.version("game-p") == 2


async def test_given_a_command_id_used_by_one_seat_when_another_sends_it_then_it_is_his_own(
    event_store: EventStore,
) -> None:
    # given the hero used command id c-1
    await event_store.append("game-q", 0, [ev(1)], command_id=CommandKey("c-1", "alice/hero"))
    # when the dungeon lord sends his own command with the same id
    lord = CommandKey("c-1", sender="bob/lord")
    assert await event_store.command_result("game-q", lord) is None
    res = await event_store.append("game-q", 1, [ev(2)], command_id=lord)
    # then it is appended, not swallowed
    assert not res.deduplicated and res.version == 2
    assert [e.data["i"] for e in await event_store.read("game-q")] == [1, 2]


async def test_given_a_command_id_when_reused_with_other_content_then_already_exists(
    event_store: EventStore,
) -> None:
    # given a command with a digest of its content
    await event_store.append("game-r", 0, [ev(1)], command_id=CommandKey("c-9", "a/x", "aa"))
    # when the same sender reuses the id for different content
    with pytest.raises(AlreadyExists) as info:
        await event_store.append("game-r", 1, [ev(2)], command_id=CommandKey("c-9", "a/x", "bb"))
    with pytest.raises(AlreadyExists):
        await event_store.command_result("game-r", CommandKey("c-9", "a/x", "bb"))
    # then the error names the id and nothing is appended
    assert "'c-9'" in str(info.value)
    assert await event_store.version("game-r") == 1


@pytest.mark.parametrize(
    ("command_id", "field"),
    [
        ("bad\x00id", "command_id"),
        ("tab\tid", "command_id"),
        ("x" * 129, "command_id"),
        (CommandKey("ok", sender="s" * 301), "sender"),
        (CommandKey("ok", digest='"}'), "digest"),
    ],
)
async def test_given_a_malformed_command_id_when_appending_then_invalid_argument_short_quote(
    event_store: EventStore, command_id: CommandKey | str, field: str
) -> None:
    # when a command id carries control characters, is too long, or its key is malformed
    with pytest.raises(InvalidArgument) as info:
        await event_store.append("game-m", 0, [ev(1)], command_id=command_id)
    # then the field is named, the echo is short, and nothing is written
    assert info.value.field == field
    assert len(str(info.value)) < 200
    assert await event_store.version("game-m") == 0


async def test_given_huge_versions_when_reading_then_empty_not_an_overflow(
    event_store: EventStore,
) -> None:
    # given a stream with one event
    await event_store.append("game-big", 0, [ev(1)])
    # when reading from versions and positions beyond 64-bit integers
    # then the answer is empty, and appending at such a version is refused
    assert await event_store.read("game-big", from_version=2**63) == []
    assert await event_store.read_all(from_position=2**64, limit=2**63) == []
    with pytest.raises(InvalidArgument):
        await event_store.append("game-big", 2**63, [ev(2)])


async def test_given_any_version_when_appending_then_it_appends_after_the_head(
    event_store: EventStore,
) -> None:
    # given a stream at version 1
    await event_store.append("game-e", 0, [ev(1)])
    # when appending with ANY_VERSION twice
    r = await event_store.append("game-e", ANY_VERSION, [ev(2)])
    r = await event_store.append("game-e", ANY_VERSION, [ev(3), ev(4)])
    # then the events go on the end and the chain holds
    assert r.version == 4
    assert_chain(await event_store.read("game-e"))


async def test_given_many_streams_when_reading_all_then_positions_strictly_increase(
    event_store: EventStore,
) -> None:
    # given appends interleaved over three streams
    for i in range(6):
        await event_store.append(f"game-s{i % 3}", ANY_VERSION, [ev(i), ev(i + 100)])
    # when reading the global feed, whole and in pages
    everything = await event_store.read_all()
    page = await event_store.read_all(from_position=everything[4].position, limit=3)
    # then positions strictly increase and pages start where asked
    positions = [e.position for e in everything]
    assert len(positions) == 12
    assert positions == sorted(set(positions))
    assert [e.position for e in page] == positions[4:7]
    assert await event_store.head_position() == positions[-1]


async def test_given_a_feed_when_its_heads_are_read_then_they_name_each_event_in_order(
    event_store: EventStore,
) -> None:
    from services.platform.store.feed import FeedHead, envelope_at, read_heads

    # given appends interleaved over two games' streams
    for i in range(4):
        await event_store.append(f"game-h{i % 2}", ANY_VERSION, [ev(i), ev(i + 10)])
        await event_store.append(f"dice-h{i % 2}", ANY_VERSION, [ev(i + 20)])
    everything = await event_store.read_all()
    # when the feed's heads are read, whole and from a position, with a limit
    heads = await read_heads(event_store, 1, 1000)
    page = await read_heads(event_store, everything[3].position, 4)
    # then each head is its event's position, stream, version and type, in feed order
    named = [FeedHead(e.position, e.stream, e.version, e.type) for e in everything]
    assert heads == named and page == named[3:7]
    # and the envelope a head names is the stored event
    assert await envelope_at(event_store, heads[5]) == everything[5]


@pytest.mark.parametrize(
    ("stream", "expected", "events", "field"),
    [
        ("Game-x", 0, [ev()], "stream"),
        ("nodash", 0, [ev()], "stream"),
        ("game-", 0, [ev()], "stream"),
        ("game-x y", 0, [ev()], "stream"),
        ("game-x", -2, [ev()], "expected_version"),
        ("game-x", 0, [], "events"),
        ("game-x", 0, [NewEvent(type="", data={})], "events.type"),
        ("game-x", 0, [ev(visibility="everyone")], "events.visibility"),
        ("game-x", 0, [ev(visibility=[])], "events.visibility"),
    ],
)
async def test_given_a_malformed_append_when_appending_then_invalid_argument_and_nothing(
    event_store: EventStore,
    stream: str,
    expected: int,
    events: list[NewEvent],
    field: str,
) -> None:
    # when the append request is malformed
    with pytest.raises(InvalidArgument) as info:
        await event_store.append(stream, expected, events)
    # then the error names the field and nothing was written
    assert info.value.field == field
    assert await event_store.read_all() == []
    assert await event_store.head_position() == 0


async def test_given_ten_concurrent_writers_at_one_version_then_exactly_one_wins(
    event_store: EventStore,
) -> None:
    # given a stream at version 1
    await event_store.append("game-race", 0, [ev(0)])
    # when ten writers append at version 1 at once
    results = await asyncio.gather(
        *(event_store.append("game-race", 1, [ev(i)]) for i in range(10)),
        return_exceptions=True,
    )
    # then exactly one succeeds, nine conflict, and the stream holds two events
    wins = [r for r in results if not isinstance(r, BaseException)]
    conflicts = [r for r in results if isinstance(r, VersionConflict)]
    assert (len(wins), len(conflicts)) == (1, 9)
    events = await event_store.read("game-race")
    assert len(events) == 2
    assert_chain(events)


async def test_given_a_secret_when_put_again_then_the_first_value_stays(
    event_store: EventStore,
) -> None:
    # given no secret
    assert await event_store.get_secret("seed:g1") is None
    # when put twice
    assert await event_store.put_secret("seed:g1", "first") is True
    assert await event_store.put_secret("seed:g1", "second") is False
    # then the first value is kept
    assert await event_store.get_secret("seed:g1") == "first"


async def test_given_meta_when_set_twice_then_the_last_value_is_read(
    event_store: EventStore,
) -> None:
    # given no value, when it is set twice, then the last value is read
    assert await event_store.get_meta("relay:x") is None
    await event_store.set_meta("relay:x", "1")
    await event_store.set_meta("relay:x", "42")
    assert await event_store.get_meta("relay:x") == "42"


async def test_given_each_visibility_when_read_back_then_it_round_trips(
    event_store: EventStore,
) -> None:
    # when events of each visibility are appended
    vis = [PUBLIC, NOBODY, seats("hero"), ["dungeon_lord", "hero", "hero"]]
    await event_store.append("game-v", 0, [ev(i, visibility=v) for i, v in enumerate(vis)])
    # then they read back in stored form and hash the same
    events = await event_store.read("game-v")
    assert [e.visibility for e in events] == [
        "public", "nobody", ["hero"], ["dungeon_lord", "hero"],
    ]  # fmt: skip
    assert_chain(events)


async def test_given_unicode_and_nested_data_when_read_back_then_equal_and_hashes_equal(
    event_store: EventStore,
) -> None:
    # given data with unicode, nesting, floats and an event's own ids
    data = {"name": "Héros ⚔ 龍", "emoji": "🎲", "n": [1, 2.5, None, True], "m": {"b": 1, "a": 2}}
    new = NewEvent(type="named", data=data, correlation_id="corr", causation_id="cause")
    # when appended and read back
    result = await event_store.append("game-u", 0, [new])
    [env] = await event_store.read("game-u")
    [via_feed] = await event_store.read_all()
    # then every field round-trips and the hash is the one expected
    assert env == via_feed
    assert env.data == data
    assert (env.event_id, env.type, env.schema_version) == (new.event_id, "named", 1)
    assert (env.correlation_id, env.causation_id) == ("corr", "cause")
    assert env.position == result.first_position
    assert env.hash == env.expected_hash()
    assert env.prev_hash == GENESIS_HASH


async def test_given_a_sharded_redis_store_then_a_game_stays_on_one_shard_with_its_own_feed(
    redis_url: str,
) -> None:
    # given a redis store with 4 shards
    store = RedisEventStore(redis_url, shards=4, prefix=f"shard{uuid.uuid4().hex[:8]}")
    try:
        games = [f"g{i}" for i in range(12)]
        # when each game appends to its game, dice and deck streams
        for g in games:
            for fam in ("game", "dice", "deck"):
                await store.append(f"{fam}-{g}", 0, [ev()])
        # then all streams of a game sit on one shard, and the shard feeds split the events
        feeds = [await store.read_all(shard=s) for s in range(4)]
        assert sum(len(f) for f in feeds) == 36
        for s, feed in enumerate(feeds):
            assert {shard_of(e.stream, 4) for e in feed} <= {s}
            assert [e.position for e in feed] == list(range(1, len(feed) + 1))
            assert await store.head_position(shard=s) == len(feed)
        for g in games:
            assert len({shard_of(f"{fam}-{g}", 4) for fam in ("game", "dice", "deck")}) == 1
        # and every key carries its shard hash tag
        raw = store._redis  # the test peeks at the key layout
        keys = [k async for k in raw.scan_iter(match=f"{store.prefix}:*")]
        assert keys and all(re.match(rf"^{store.prefix}:\{{(s[0-3]|kv)\}}:", k) for k in keys)
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("url", "kind"),
    [("sqlite:///:memory:", SqliteEventStore), ("sqlite:///{tmp}/x/e.db", SqliteEventStore)],
)
async def test_given_a_sqlite_url_when_opening_then_a_sqlite_store(
    url: str, kind: type, tmp_path: Path
) -> None:
    # when opening a store from a sqlite URL (absolute path: four slashes)
    store = open_store(url.format(tmp=tmp_path))
    try:
        # then it is a working store of that kind
        assert isinstance(store, kind)
        assert (await store.append("game-f", 0, [ev()])).version == 1
    finally:
        await store.close()
    if "{tmp}" in url:
        assert (tmp_path / "x" / "e.db").is_file()


async def test_given_a_redis_url_with_options_when_opening_then_they_apply(
    redis_url: str,
) -> None:
    # when opening a redis URL with shards and prefix
    store = open_store(f"{redis_url}?shards=3&prefix=opened{uuid.uuid4().hex[:6]}")
    try:
        # then the store has them
        assert isinstance(store, RedisEventStore)
        assert store.shards == 3 and store.prefix.startswith("opened")
        assert (await store.append("game-f", 0, [ev()])).version == 1
    finally:
        await store.close()


@pytest.mark.parametrize(
    "url", ["postgres://x", "sqlite://rel.db", "sqlite:///", "redis://h:1/0?shards=0"]
)
def test_given_a_bad_store_url_when_opening_then_invalid_argument(url: str) -> None:
    # when the URL is not one we know, then it is refused by name
    with pytest.raises(InvalidArgument):
        open_store(url)


async def test_given_two_redis_clients_when_they_alternate_appends_then_stale_heads_are_resolved(
    redis_url: str,
) -> None:
    # given two clients of one Redis store, each remembering the heads it wrote
    prefix = f"two{uuid.uuid4().hex[:8]}"
    one = RedisEventStore(redis_url, prefix=prefix)
    two = RedisEventStore(redis_url, prefix=prefix)
    try:
        # when they take turns appending to one stream (each one's cached head goes stale)
        for i in range(10):
            writer = one if i % 2 == 0 else two
            await writer.append("game-alt", ANY_VERSION, [NewEvent("Turn", {"i": i})])
        # and an explicit expected version from a stale client still conflicts correctly
        with pytest.raises(VersionConflict):
            await one.append("game-alt", 9, [NewEvent("Late", {})])
        await one.append("game-alt", 10, [NewEvent("OnTime", {})])
        # then the stream has every event once, in order, with an unbroken chain
        events = await two.read("game-alt")
        assert [e.data.get("i") for e in events[:10]] == list(range(10))
        assert [e.version for e in events] == list(range(1, 12))
        assert_chain(events)
    finally:
        await one.close()
        await two.close()


async def test_given_a_redis_append_then_the_body_is_stored_once_and_dedupe_records_expire(
    redis_url: str,
) -> None:
    # given a redis store that remembers command ids for one hour
    store = RedisEventStore(redis_url, prefix=f"once{uuid.uuid4().hex[:8]}", dedupe_ttl_s=3600)
    try:
        # when a command appends an event with a recognisable body
        await store.append("game-once", 0, [ev(424242)], command_id=CommandKey("c-1", "a/x"))
        raw = store._redis  # the test peeks at the key layout
        stream_key = store._stream_key("game-once")
        # then the stream entry holds only the position, the feed holds the body
        [(_, fields)] = await raw.xrange(stream_key)
        assert set(fields) == {"pos"}
        [(_, feed_fields)] = await raw.xrange(f"{store.prefix}:{{s0}}:feed")
        assert "424242" in feed_fields["env"]
        # and the command record lives in a per-stream hash with a lifetime
        ttl = await raw.ttl(store._cmds_key("game-once"))
        assert 0 < ttl <= 3600
        [env] = await store.read("game-once")
        assert env.data == {"i": 424242}
    finally:
        await store.close()
