"""SetClientSeed's bad inputs through gRPC, the deadline, bot seats and seed sensitivity."""

from __future__ import annotations

import grpc
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.dice.engine import DiceEngine, dice_stream, secret_key
from services.dice.seeds import bot_seed
from services.dice.service import mount
from services.platform.auth import issue_token
from services.platform.envelope import NewEvent
from services.platform.errors import InvalidArgument
from services.platform.grpcx.server import start_server
from services.platform.store.sqlite import SqliteEventStore

SEATS = {"hero": "alice", "dungeon_lord": "bob"}
SHORT = 160  # a refusal's message stays short whatever the input


@pytest.fixture
async def dice(tmp_path, monkeypatch):
    """Yield (stub, store, engine) for a dice server whose games wait 600 s for seeds."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    store = SqliteEventStore(tmp_path / "dice.db")
    engine = DiceEngine(store, seed_wait=600)
    running = await start_server([mount(engine)], "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    yield dice_pb2_grpc.DiceServiceStub(channel), store, engine
    await channel.close()
    await running.stop(0)
    await store.close()


def bearer(player: str, service: bool = False) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, service=service)}"),)


async def game(
    store, engine, gid: str, seats: dict[str, str], bots: tuple[str, ...] = (), seeds=None
):
    await store.append(f"game-{gid}", 0, [NewEvent("GameCreated", {"seats": seats})])
    return await engine.commit_ledger(gid, "", tuple(seats), bots, seeds)


def seed_req(gid: str, seat: str, seed: str) -> dice_pb2.SetClientSeedRequest:
    return dice_pb2.SetClientSeedRequest(game_id=gid, seat=seat, client_seed=seed)


async def refused(store, gid: str, code: grpc.StatusCode, call, *words: str) -> None:
    before = await store.version(dice_stream(gid))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    details = err.value.details() or ""
    assert err.value.code() == code, details
    assert len(details) < SHORT, details
    for w in words:
        assert w in details, details
    assert await store.version(dice_stream(gid)) == before  # nothing changed


async def test_every_bad_seed_request_gets_its_status_and_changes_nothing(dice):
    stub, store, engine = dice
    # given a game waiting for both seats, where the hero gave a seed
    await game(store, engine, "g1", SEATS)
    await stub.SetClientSeed(seed_req("g1", "hero", "first"), metadata=bearer("alice"))
    # then a second seed from the same seat is ALREADY_EXISTS
    await refused(
        store,
        "g1",
        grpc.StatusCode.ALREADY_EXISTS,
        stub.SetClientSeed(seed_req("g1", "hero", "second"), metadata=bearer("alice")),
        "already",
    )
    # and a player who holds no seat cannot set one
    await refused(
        store,
        "g1",
        grpc.StatusCode.PERMISSION_DENIED,
        stub.SetClientSeed(seed_req("g1", "dungeon_lord", "x"), metadata=bearer("mallory")),
        "not yours",
    )
    await refused(
        store,
        "g1",
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SetClientSeed(seed_req("g1", "referee", "x"), metadata=bearer("mallory")),
        "no seat",
    )
    # and a 1 MB seed and a binary seed are INVALID_ARGUMENT, without echoing them
    await refused(
        store,
        "g1",
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SetClientSeed(seed_req("g1", "dungeon_lord", "x" * 10**6), metadata=bearer("bob")),
        "client_seed",
    )
    await refused(
        store,
        "g1",
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SetClientSeed(seed_req("g1", "dungeon_lord", "x" * 257), metadata=bearer("bob")),
        "client_seed",
        "256",
    )
    # (a request over the server's 1 MiB message limit is RESOURCE_EXHAUSTED before any code)
    await refused(
        store,
        "g1",
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        stub.SetClientSeed(seed_req("g1", "dungeon_lord", "x" * 2**20), metadata=bearer("bob")),
    )
    await refused(
        store,
        "g1",
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SetClientSeed(
            seed_req("g1", "dungeon_lord", "\x00\x01\x7f\x80"), metadata=bearer("bob")
        ),
        "client_seed",
    )
    await refused(
        store,
        "g1",
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SetClientSeed(
            seed_req("g1", "dungeon_lord", "\x01\x1b\x7f\x9b"), metadata=bearer("bob")
        ),
        "printable",
    )
    # and the dungeon lord's own good seed still opens the gate
    ok = await stub.SetClientSeed(seed_req("g1", "dungeon_lord", "mine"), metadata=bearer("bob"))
    assert ok.client_seed == "dungeon_lord=mine;hero=first" and list(ok.awaiting) == []


async def test_after_the_deadline_a_missing_seat_plays_with_the_empty_seed(dice):
    stub, store, engine = dice
    # given a game whose deadline is now (no wait), where only the hero gave a seed
    engine.seed_wait_s = 0
    await game(store, engine, "g2", SEATS, seeds={"hero": "early"})
    # when chance is drawn, the dungeon lord's seed is recorded empty in the same append
    roll = await engine.roll("g2", "t", ["d6"])
    events = await store.read(dice_stream("g2"), 1)
    missing = [e.data for e in events if e.type == "DiceClientSeedSet" and e.data["seat"] != "hero"]
    assert missing == [{"seat": "dungeon_lord", "seat_seed": "", "source": "deadline"}]
    assert events[-1].data["client_seed"] == "dungeon_lord=;hero=early" and roll.nonce == 0
    # then a seed after the deadline is FAILED_PRECONDITION and changes nothing
    await refused(
        store,
        "g2",
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.SetClientSeed(seed_req("g2", "dungeon_lord", "late"), metadata=bearer("bob")),
        "deadline",
    )


async def test_bot_seats_seeds_are_derived_at_creation_and_cannot_be_set(dice):
    stub, store, engine = dice
    # given a game with a bot seat
    ledger = await game(
        store, engine, "g3", {"hero": "alice", "dungeon_lord": "bot:dl"}, ("dungeon_lord",)
    )
    # then the bot's seed is recorded at creation, derived from the public commitment
    assert dict(ledger.client_seeds) == {
        "dungeon_lord": bot_seed(ledger.commitment, "dungeon_lord")
    }
    assert ledger.awaiting == ("hero",)
    # and nothing is drawn while the hero's seed is missing
    with pytest.raises(Exception, match="waiting for client seeds of seat"):
        await engine.shuffle("g3", "t", 5)
    # and the bot's seat cannot be set by anyone
    await refused(
        store,
        "g3",
        grpc.StatusCode.ALREADY_EXISTS,
        stub.SetClientSeed(seed_req("g3", "dungeon_lord", "x"), metadata=bearer("svc", True)),
    )


async def _draws(tmp_path, name: str, hero_seed: str) -> tuple[list[str], list[int]]:
    """Draw a roll and a shuffle in game 'same' with a fixed server seed and seats' seeds."""
    store = SqliteEventStore(tmp_path / f"{name}.db")
    engine = DiceEngine(store, seed_wait=600)
    await store.put_secret(secret_key("same"), "11" * 32)
    await engine.commit_ledger("same", "", ("dungeon_lord", "hero"), (), {"dungeon_lord": "dl"})
    await engine.set_client_seed("same", "hero", hero_seed)
    roll = await engine.roll("same", "t", ["d10"] * 12)
    perm = await engine.shuffle("same", "deck", 40)
    await store.close()
    return [d.face for d in roll.results], list(perm.order)


async def test_changing_one_seats_seed_changes_the_draws(tmp_path):
    # given the same server seed, game and dungeon lord seed
    first = await _draws(tmp_path, "a", "hero-1")
    again = await _draws(tmp_path, "b", "hero-1")
    other = await _draws(tmp_path, "c", "hero-2")
    # then the same seeds give the same draws, and another hero seed other ones
    assert first == again
    assert first[0] != other[0] and first[1] != other[1]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.one_of(
        st.text(min_size=257, max_size=400),
        st.text(max_size=20).map(lambda s: s + "\x00"),
        st.text(max_size=20).flatmap(lambda s: st.sampled_from([s + ":", ";" + s, s + "=" + s])),
    )
)
async def test_generated_bad_seeds_are_invalid_and_record_nothing(tmp_path, seed):
    store = SqliteEventStore(":memory:")
    engine = DiceEngine(store, seed_wait=600)
    await game(store, engine, "g4", SEATS)
    before = await store.version(dice_stream("g4"))
    with pytest.raises(InvalidArgument) as err:
        await engine.set_client_seed("g4", "hero", seed)
    assert len(str(err.value)) < SHORT
    assert await store.version(dice_stream("g4")) == before
    await store.close()
