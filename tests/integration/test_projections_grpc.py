"""The ProjectionService through gRPC on an embedded server (in-process runner, SQLite)."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import grpc
import pytest
from fallen.projections.v1 import projections_pb2 as pb
from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

from services.app import Backend, serve
from services.audit.logfile import store_records
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, value_to_py
from services.platform.store.sqlite import SqliteEventStore
from services.rules.runner import GameRunner
from tests.support.projections_play import advance, engines, play, runner_for

SEATS = {"a": "p-a-g1", "b": "p-b-g1"}


def md(player: str, service: bool = False) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, service=service)}"),)


@dataclass
class Server:
    """A running backend, a stub to its ProjectionService and a local game runner."""

    backend: Backend
    stub: pb_grpc.ProjectionServiceStub
    store: SqliteEventStore
    runner: GameRunner
    path: Path


@pytest.fixture
async def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Server]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    monkeypatch.delenv("FALLEN_PROJECTIONS", raising=False)
    store = SqliteEventStore(tmp_path / "events.db")
    backend = await serve(store, "127.0.0.1:0", extra_games=engines())
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    yield Server(
        backend, pb_grpc.ProjectionServiceStub(channel), store, runner_for(store), tmp_path
    )
    await channel.close()
    await backend.stop()


async def expect(code: grpc.StatusCode, call, *words: str) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    details = err.value.details() or ""
    for w in words:
        assert w in details, details
    return details


async def view(s: Server, seat: str, player: str, min_version: int = 0) -> pb.GetViewResponse:
    req = pb.GetViewRequest(game_id="g1", seat=seat, min_version=min_version, wait_ms=5000)
    return await s.stub.GetView(req, metadata=md(player))


async def test_given_a_game_when_each_player_reads_then_each_gets_its_own_view_at_its_version(
    server,
):
    await play(server.runner, "toy", "g1", random.Random(1), steps=0)
    version = (await server.runner.load("g1")).version
    a = await view(server, "a", "p-a-g1", version)
    b = await view(server, "b", "p-b-g1", version)
    spectator = await view(server, "", "someone-else", version)
    assert a.version == b.version == spectator.version == version
    assert a.view["my_card"] != b.view["my_card"]
    assert struct_to_py(spectator.view)["my_card"] is None and not spectator.ended


async def test_reading_another_seat_is_denied_without_echoing_its_cards(server):
    await play(server.runner, "toy", "g1", random.Random(1), steps=0)
    b_card = (await view(server, "b", "p-b-g1", 4)).view["my_card"]
    details = await expect(
        grpc.StatusCode.PERMISSION_DENIED, view(server, "b", "p-a-g1"), "not yours"
    )
    assert b_card not in details
    await expect(grpc.StatusCode.INVALID_ARGUMENT, view(server, "z", "p-a-g1"), "seat")
    await expect(
        grpc.StatusCode.NOT_FOUND,
        server.stub.GetView(pb.GetViewRequest(game_id="nope"), metadata=md("x")),
        "nope",
    )
    await expect(
        grpc.StatusCode.UNAUTHENTICATED, server.stub.GetView(pb.GetViewRequest(game_id="g1"))
    )


async def test_given_a_command_then_get_view_with_min_version_reads_its_own_write(server):
    await play(server.runner, "toy", "g1", random.Random(1), steps=0)
    await advance(server.runner, "g1", random.Random(1), 1)
    version = (await server.runner.load("g1")).version
    assert (await view(server, "a", "p-a-g1", version)).version == version


async def test_watch_view_pushes_each_change_resumes_from_a_version_and_ends_with_the_game(server):
    await play(server.runner, "toy", "g1", random.Random(3), steps=0)
    first_version = (await server.runner.load("g1")).version
    await view(server, "a", "p-a-g1", first_version)
    stream = server.stub.WatchView(
        pb.WatchViewRequest(game_id="g1", seat="a"), metadata=md("p-a-g1")
    )
    first = await stream.read()
    assert first.version == first_version
    # when the game moves on, every push is newer than the last, up to the end
    await advance(server.runner, "g1", random.Random(3), 1)
    second = await asyncio.wait_for(stream.read(), 5)
    assert second.version > first.version
    stream.cancel()
    # given a client that resumes after the second version
    resumed = server.stub.WatchView(
        pb.WatchViewRequest(game_id="g1", seat="a", after_version=second.version),
        metadata=md("p-a-g1"),
    )
    assert await advance(server.runner, "g1", random.Random(3), 200)
    versions = []
    async for msg in resumed:
        versions.append(msg.version)
        last = msg
    assert versions and versions[0] > second.version and versions == sorted(set(versions))
    assert last.ended and last.version == (await server.runner.load("g1")).version


async def test_watch_view_of_another_seat_is_denied(server):
    await play(server.runner, "toy", "g1", random.Random(3), steps=0)
    stream = server.stub.WatchView(
        pb.WatchViewRequest(game_id="g1", seat="b"), metadata=md("p-a-g1")
    )
    await expect(grpc.StatusCode.PERMISSION_DENIED, stream.read(), "not yours")


async def test_read_events_returns_only_what_the_seat_may_see(server):
    await play(server.runner, "toy", "g1", random.Random(2))
    stored = await server.store.read("game-g1")

    async def feed(seat: str, player: str, stream: str = "game") -> pb.ReadEventsResponse:
        req = pb.ReadEventsRequest(game_id="g1", seat=seat, stream=stream)
        return await server.stub.ReadEvents(req, metadata=md(player))

    a = await feed("a", "p-a-g1")
    spectator = await feed("", "anyone")
    vis_a = {json.dumps(value_to_py(e.visibility)) for e in a.events}
    assert vis_a <= {'"public"', '["a"]'} and '["a"]' in vis_a
    assert {json.dumps(value_to_py(e.visibility)) for e in spectator.events} == {'"public"'}
    assert a.head_version == stored[-1].version and a.next_version == stored[-1].version + 1
    # each event's time comes as a Timestamp too (occurred_at, its ISO form, is deprecated)
    first = a.events[0]
    assert (
        first.occurred_time.ToDatetime(tzinfo=UTC)
        .isoformat()
        .startswith(first.occurred_at.replace("Z", "+00:00")[:19])
    )
    dealt = [e for e in stored if e.type == "CardDealt"]
    assert len([e for e in a.events if e.type == "CardDealt"]) == 1
    b_card = next(e.data["card"] for e in dealt if e.data["seat"] == "b")
    assert b_card not in str(a) and not any(e.type == "CardDealt" for e in spectator.events)
    dice = await feed("a", "p-a-g1", "dice")
    assert dice.events and all(e.type != "DiceShuffleDrawn" for e in dice.events)
    # a page from a version, with a limit
    page = await server.stub.ReadEvents(
        pb.ReadEventsRequest(game_id="g1", seat="a", from_version=3, limit=2),
        metadata=md("p-a-g1"),
    )
    assert [e.version for e in page.events] == [e.version for e in a.events if e.version >= 3][:2]
    await expect(grpc.StatusCode.PERMISSION_DENIED, feed("b", "p-a-g1"))
    await expect(grpc.StatusCode.INVALID_ARGUMENT, feed("a", "p-a-g1", "secrets"), "stream")


async def test_the_audit_log_is_refused_before_the_end_and_to_non_players(server):
    await play(server.runner, "toy", "g1", random.Random(2), steps=1)
    req = pb.ReadAuditLogRequest(game_id="g1")
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        server.stub.ReadAuditLog(req, metadata=md("p-a-g1")),
        "has not ended",
    )
    await expect(
        grpc.StatusCode.PERMISSION_DENIED, server.stub.ReadAuditLog(req, metadata=md("outsider"))
    )


async def test_given_a_finished_game_then_its_audit_log_is_every_event_with_checks(server):
    await play(server.runner, "toy", "g1", random.Random(2))
    resp = await server.stub.ReadAuditLog(
        pb.ReadAuditLogRequest(game_id="g1"), metadata=md("p-b-g1")
    )
    records = [struct_to_py(r.record) for r in resp.records]
    assert records == await store_records(server.store, "g1")
    assert resp.chain_ok and resp.dice_ok and not resp.HasField("mismatch")
    assert len(resp.server_seed) == 64 and len(resp.commitment) == 64


async def test_open_dispute_records_the_ruling_in_the_log_once(server):
    await play(server.runner, "toy", "g1", random.Random(2), steps=1)
    req = pb.OpenDisputeRequest(game_id="g1", seat="a", reason="the dice hate me", command_id="d1")
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        server.stub.OpenDispute(req, metadata=md("p-a-g1")),
        "has not ended",
    )
    assert await advance(server.runner, "g1", random.Random(2), 200)
    await expect(
        grpc.StatusCode.PERMISSION_DENIED, server.stub.OpenDispute(req, metadata=md("p-b-g1"))
    )
    # when the seated player disputes the finished game
    ruling = await server.stub.OpenDispute(req, metadata=md("p-a-g1"))
    # then the verification ran and both events are in the dispute stream
    assert ruling.verified and not ruling.deduplicated and ruling.version == 2
    report = struct_to_py(ruling.report)
    assert report["chain_ok"] and report["dice_ok"] and report["game_id"] == "g1"
    events = await server.store.read("dispute-g1")
    assert [e.type for e in events] == ["DisputeOpened", "DisputeResolved"]
    assert events[0].data["reason"] == "the dice hate me" and events[0].data["seat"] == "a"
    assert events[1].data["dispute_id"] == ruling.dispute_id == "d1"
    assert events[1].data["findings"]["verified"] is True
    # a retry appends nothing and returns the first ruling
    again = await server.stub.OpenDispute(req, metadata=md("p-a-g1"))
    assert again.deduplicated and again.dispute_id == "d1" and again.verified
    assert len(await server.store.read("dispute-g1")) == 2
    # and the audit log now holds the ruling, still verifying
    log = await server.stub.ReadAuditLog(
        pb.ReadAuditLogRequest(game_id="g1"), metadata=md("p-a-g1")
    )
    assert any(r.record["type"] == "DisputeResolved" for r in log.records) and log.chain_ok


async def test_a_dispute_on_a_corrupted_log_rules_against_it_and_names_the_event(server):
    await play(server.runner, "toy", "g1", random.Random(6))
    rolled = next(e for e in await server.store.read("game-g1") if e.type == "Rolled")
    # given the stored log altered behind the store's back
    with sqlite3.connect(server.path / "events.db") as db:
        db.execute(
            "UPDATE events SET data=? WHERE stream=? AND version=?",
            (json.dumps({**rolled.data, "value": 7}), "game-g1", rolled.version),
        )
    ruling = await server.stub.OpenDispute(
        pb.OpenDisputeRequest(game_id="g1", seat="b", reason="check it"), metadata=md("p-b-g1")
    )
    assert not ruling.verified
    mismatch = struct_to_py(ruling.report)["mismatch"]
    assert (mismatch["stream"], mismatch["version"]) == ("game-g1", rolled.version)
    resolved = (await server.store.read("dispute-g1"))[-1]
    assert resolved.type == "DisputeResolved" and resolved.data["verified"] is False


async def test_projection_status_reports_the_runner_and_its_lag(server):
    await play(server.runner, "toy", "g1", random.Random(2))
    head = await server.store.head_position()
    for _ in range(100):
        resp = await server.stub.GetProjectionStatus(
            pb.GetProjectionStatusRequest(), metadata=md("ops")
        )
        runner = next((r for r in resp.runners if r.runner == "inprocess"), None)
        if runner is not None and runner.position == head and runner.lag_events == 0:
            break
        await asyncio.sleep(0.1)
    assert runner is not None and runner.position == head and runner.lag_events == 0
    assert runner.applied >= head and runner.updated_at
