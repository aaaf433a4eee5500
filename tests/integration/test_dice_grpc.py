"""Dice through gRPC: happy path and every bad input, with nothing appended on failure."""

from __future__ import annotations

import grpc
import jwt
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.dice.engine import DiceEngine, dice_stream
from services.dice.service import mount
from services.platform.auth import DEV_SECRET, issue_token
from services.platform.envelope import NewEvent
from services.platform.grpcx.server import start_server
from services.platform.store.sqlite import SqliteEventStore


@pytest.fixture
async def dice(tmp_path, monkeypatch):
    """Yield (stub, store) for a dice server on a free loopback port."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    store = SqliteEventStore(tmp_path / "dice.db")
    running = await start_server([mount(DiceEngine(store))], "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    stub = dice_pb2_grpc.DiceServiceStub(channel)
    stub.channel = channel  # type: ignore[attr-defined]
    yield stub, store
    await channel.close()
    await running.stop(0)
    await store.close()


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def svc() -> tuple[tuple[str, str], ...]:
    return bearer(issue_token("service:test", service=True))


async def created_game(store, game_id: str, seats: dict[str, str]) -> None:
    await store.append(f"game-{game_id}", 0, [NewEvent("GameCreated", {"seats": seats})])


async def expect(code: grpc.StatusCode, call, *words: str) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    for w in words:
        assert w in (err.value.details() or ""), err.value.details()
    return err.value.details() or ""


async def test_commit_roll_reveal_verify_through_grpc(dice):
    stub, store = dice
    # given a committed game
    commit = await stub.CommitSeed(dice_pb2.CommitSeedRequest(game_id="g1"), metadata=svc())
    assert len(commit.commitment) == 64
    # when rolling
    roll = await stub.Roll(
        dice_pb2.RollRequest(game_id="g1", purpose="t", dice=["d6", "2d10"]), metadata=svc()
    )
    # then results come back with nonce 0
    assert roll.nonce == 0 and len(roll.results) == 2
    assert 1 <= int(roll.results[1].face) <= 100
    # and after the game ends the seed reveals and verifies
    await store.append("game-g1", -1, [NewEvent("GameEnded", {})])
    rev = await stub.Reveal(dice_pb2.RevealRequest(game_id="g1"), metadata=svc())
    assert rev.commitment == commit.commitment
    ok = await stub.Verify(dice_pb2.VerifyRequest(game_id="g1"), metadata=svc())
    assert ok.ok and ok.checked == 1


@pytest.mark.parametrize(
    ("dice_kinds", "words"),
    [
        (["d7"], ("dice", "unknown dice kind 'd7'")),
        ([], ("dice", "not 0")),
        (["d6"] * 101, ("dice", "not 101")),
    ],
)
async def test_bad_roll_requests_are_invalid_argument_and_append_nothing(dice, dice_kinds, words):
    stub, store = dice
    await stub.CommitSeed(dice_pb2.CommitSeedRequest(game_id="g1"), metadata=svc())
    before = await store.version(dice_stream("g1"))
    req = dice_pb2.RollRequest(game_id="g1", purpose="t", dice=dice_kinds)
    await expect(grpc.StatusCode.INVALID_ARGUMENT, stub.Roll(req, metadata=svc()), *words)
    assert await store.version(dice_stream("g1")) == before


async def test_roll_for_unknown_game_is_not_found(dice):
    stub, store = dice
    req = dice_pb2.RollRequest(game_id="nope", purpose="t", dice=["d6"])
    await expect(grpc.StatusCode.NOT_FOUND, stub.Roll(req, metadata=svc()), "nope", "CommitSeed")
    assert await store.version(dice_stream("nope")) == 0


async def test_malformed_game_id_names_the_field(dice):
    stub, _ = dice
    req = dice_pb2.RollRequest(game_id="bad id!", purpose="t", dice=["d6"])
    await expect(grpc.StatusCode.INVALID_ARGUMENT, stub.Roll(req, metadata=svc()), "game_id")


async def test_reveal_before_the_game_ends_is_refused_and_appends_nothing(dice):
    stub, store = dice
    await stub.CommitSeed(dice_pb2.CommitSeedRequest(game_id="g1"), metadata=svc())
    before = await store.version(dice_stream("g1"))
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.Reveal(dice_pb2.RevealRequest(game_id="g1"), metadata=svc()),
        "has not ended",
    )
    assert await store.version(dice_stream("g1")) == before


@pytest.mark.parametrize(
    "metadata",
    [
        (),
        (("authorization", "Bearer garbage"),),
        (("authorization", "Basic abc"),),
    ],
)
async def test_missing_or_garbage_token_is_unauthenticated(dice, metadata):
    stub, store = dice
    req = dice_pb2.CommitSeedRequest(game_id="g1")
    await expect(grpc.StatusCode.UNAUTHENTICATED, stub.CommitSeed(req, metadata=metadata))
    assert await store.version(dice_stream("g1")) == 0


async def test_expired_token_is_unauthenticated_and_says_so(dice):
    stub, _ = dice
    token = jwt.encode(
        {"sub": "service:x", "iss": "fallen", "exp": 1, "kind": "service"}, DEV_SECRET, "HS256"
    )
    req = dice_pb2.CommitSeedRequest(game_id="g1")
    await expect(
        grpc.StatusCode.UNAUTHENTICATED, stub.CommitSeed(req, metadata=bearer(token)), "expired"
    )


async def test_token_signed_with_another_secret_is_unauthenticated(dice):
    stub, _ = dice
    token = issue_token("p1", secret="x" * 40)
    req = dice_pb2.ListKindsRequest()
    await expect(grpc.StatusCode.UNAUTHENTICATED, stub.ListKinds(req, metadata=bearer(token)))


async def test_player_cannot_call_internal_rpcs(dice):
    stub, store = dice
    req = dice_pb2.CommitSeedRequest(game_id="g1")
    await expect(
        grpc.StatusCode.PERMISSION_DENIED,
        stub.CommitSeed(req, metadata=bearer(issue_token("p1"))),
        "service token",
    )
    assert await store.version(dice_stream("g1")) == 0


async def test_client_seed_for_another_players_seat_is_permission_denied(dice):
    stub, store = dice
    await created_game(store, "g2", {"hero": "alice", "dungeon_lord": "bob"})
    await stub.CommitSeed(dice_pb2.CommitSeedRequest(game_id="g2"), metadata=svc())
    before = await store.version(dice_stream("g2"))
    req = dice_pb2.SetClientSeedRequest(game_id="g2", seat="hero", client_seed="mine")
    await expect(
        grpc.StatusCode.PERMISSION_DENIED,
        stub.SetClientSeed(req, metadata=bearer(issue_token("bob"))),
        "not yours",
    )
    assert await store.version(dice_stream("g2")) == before
    # and the owner may set it
    ok = await stub.SetClientSeed(req, metadata=bearer(issue_token("alice")))
    assert ok.client_seed == "hero=mine"


async def test_client_seed_after_first_roll_is_refused(dice):
    stub, store = dice
    await created_game(store, "g3", {"hero": "alice"})
    await stub.CommitSeed(dice_pb2.CommitSeedRequest(game_id="g3"), metadata=svc())
    await stub.Roll(dice_pb2.RollRequest(game_id="g3", purpose="t", dice=["d6"]), metadata=svc())
    req = dice_pb2.SetClientSeedRequest(game_id="g3", seat="hero", client_seed="late")
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.SetClientSeed(req, metadata=bearer(issue_token("alice"))),
        "before the first roll",
    )


async def test_health_and_reflection_are_served(dice):
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    stub, _ = dice
    channel = stub.channel
    health = health_pb2_grpc.HealthStub(channel)
    resp = await health.Check(health_pb2.HealthCheckRequest(service="fallen.dice.v1.DiceService"))
    assert resp.status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(channel)

    async def requests():
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    names = []
    async for r in refl.ServerReflectionInfo(requests()):
        names = [s.name for s in r.list_services_response.service]
    assert "fallen.dice.v1.DiceService" in names
