"""Per-player quotas on the served backend: CreateGame, SubmitCommand and Enqueue/Cancel
answer RESOURCE_EXHAUSTED with the retry delay (google.rpc.RetryInfo) once a player's
bucket is empty, without touching other players or services."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from fallen.matchmaking.v1 import matchmaking_pb2 as mm_pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.app import Backend, serve
from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py
from services.platform.quotas import Buckets, QuotaExceeded, Rate, parse_quotas
from services.platform.store.sqlite import SqliteEventStore
from tests.support.toy_game import RULES as TOY


@dataclass
class Api:
    backend: Backend
    rules: rules_pb2_grpc.RulesServiceStub
    mm: mm_grpc.MatchmakingServiceStub


def md(player: str, service: bool = False) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, service=service)}"),)


@pytest.fixture
async def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Api]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_PROJECTIONS", "none")
    # slow refills, so no token comes back while the test runs
    monkeypatch.setenv("FALLEN_QUOTAS", "create=0.001/2,submit=0.001/3,queue=0.001/2")
    backend = await serve(
        SqliteEventStore(tmp_path / "e.db"), "127.0.0.1:0", extra_games={"toy": TOY}
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Api(
            backend,
            rules_pb2_grpc.RulesServiceStub(channel),
            mm_grpc.MatchmakingServiceStub(channel),
        )
    finally:
        await channel.close()
        await backend.stop()


async def outcome(call) -> tuple[str, float]:
    """Return a call's status name and, when refused for a quota, its RetryInfo delay."""
    try:
        await call
    except grpc.aio.AioRpcError as err:
        delay = 0.0
        status = rpc_status.from_call(err)
        for detail in status.details if status else ():
            info = error_details_pb2.RetryInfo()
            if detail.Unpack(info):
                delay = info.retry_delay.ToNanoseconds() / 1e9
        return err.code().name, delay
    return "OK", 0.0


def create(player: str) -> rules_pb2.CreateGameRequest:
    return rules_pb2.CreateGameRequest(game="toy", seats={"a": player, "b": "someone"})


async def test_given_a_create_quota_when_a_player_exceeds_it_then_resource_exhausted(api: Api):
    # when alice creates three games (her bucket holds two) and bob and a service one each
    alice = [await outcome(api.rules.CreateGame(create("alice"), metadata=md("alice")))]
    alice += [await outcome(api.rules.CreateGame(create("alice"), metadata=md("alice")))]
    alice += [await outcome(api.rules.CreateGame(create("alice"), metadata=md("alice")))]
    bob = await outcome(api.rules.CreateGame(create("bob"), metadata=md("bob")))
    svc = [await outcome(api.rules.CreateGame(create("x"), metadata=md("mm", True))) for _ in "abc"]
    # then alice's third is RESOURCE_EXHAUSTED with a retry delay; bob and the service pass
    assert [code for code, _ in alice] == ["OK", "OK", "RESOURCE_EXHAUSTED"]
    assert alice[2][1] > 100  # 1 token at 0.001/s: about 1000 s
    assert bob == ("OK", 0.0) and svc == [("OK", 0.0)] * 3


async def test_given_a_submit_quota_when_a_player_exceeds_it_then_resource_exhausted(api: Api):
    made = await api.rules.CreateGame(create("carol"), metadata=md("carol"))
    bad = rules_pb2.SubmitCommandRequest(game_id=made.game_id, seat="a", kind="no_such_move")
    # when carol submits four commands (refused ones count: each costs the server)
    codes = [(await outcome(api.rules.SubmitCommand(bad, metadata=md("carol"))))[0] for _ in "abcd"]
    # then the fourth is refused for the quota
    assert "RESOURCE_EXHAUSTED" not in codes[:3]
    assert codes[3] == "RESOURCE_EXHAUSTED"


async def test_given_a_queue_quota_when_a_player_requeues_then_resource_exhausted(api: Api):
    # when dave queues, cancels and queues again (his bucket holds two)
    enqueue = mm_pb.EnqueueRequest(game="fallen", mode="ranked")
    first = await api.mm.Enqueue(enqueue, metadata=md("dave"))
    cancel = mm_pb.CancelTicketRequest(ticket_id=first.ticket.ticket_id)
    cancelled = await outcome(api.mm.CancelTicket(cancel, metadata=md("dave")))
    again = await outcome(api.mm.Enqueue(enqueue, metadata=md("dave")))
    # then the third call is refused with a retry delay
    assert cancelled == ("OK", 0.0)
    assert again[0] == "RESOURCE_EXHAUSTED" and again[1] > 100


def test_given_a_bucket_when_time_passes_then_it_refills_to_its_burst() -> None:
    bucket = Buckets("create", Rate(per_s=1, burst=2))
    bucket.take("p", now=0.0)
    bucket.take("p", now=0.0)
    with pytest.raises(QuotaExceeded) as info:
        bucket.take("p", now=0.5)
    assert info.value.retry_after_s == pytest.approx(0.5)
    bucket.take("p", now=1.0)  # one token back after a second
    assert parse_quotas("submit=off")["submit"] is None
    assert parse_quotas("create=2/5")["create"] == Rate(2, 5)


async def test_given_an_idle_game_when_the_abandon_time_passes_then_it_ends_abandoned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a server that ends games nobody played for one second
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_PROJECTIONS", "none")
    monkeypatch.setenv("FALLEN_ABANDON_AFTER_S", "1")
    store = SqliteEventStore(tmp_path / "idle.db")
    backend = await serve(store, "127.0.0.1:0", extra_games={"toy": TOY})
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    rules = rules_pb2_grpc.RulesServiceStub(channel)
    try:
        # when a game is created and left alone
        made = await rules.CreateGame(create("erin"), metadata=md("erin"))
        game = await rules.GetGame(
            rules_pb2.GetGameRequest(game_id=made.game_id), metadata=md("erin")
        )
        for _ in range(100):
            if game.ended:
                break
            await asyncio.sleep(0.1)
            game = await rules.GetGame(
                rules_pb2.GetGameRequest(game_id=made.game_id), metadata=md("erin")
            )
        # then it ended as abandoned by an event, and its audit log still verifies
        assert game.ended and struct_to_py(game.outcome) == {"conclusion": "abandoned"}
        last = (await store.read(f"game-{made.game_id}", 1))[-1]
        assert last.type == "GameEnded" and last.data["abandoned_after_s"] == 1
        report = verify_game(made.game_id, await store_records(store, made.game_id), lambda g: TOY)
        assert report.chain_ok and report.dice_ok and report.mismatch is None
    finally:
        await channel.close()
        await backend.stop()
