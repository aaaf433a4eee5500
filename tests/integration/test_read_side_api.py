"""The client-facing API shape: reflection v1 and v1alpha, structured messages, watching."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from fallen.projections.v1 import projections_pb2 as pb
from fallen.projections.v1 import projections_pb2_grpc as pb_grpc
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.app import serve
from services.platform.store.sqlite import SqliteEventStore
from tests.integration.test_projections_grpc import Server, md
from tests.support.projections_play import advance, engines, play, runner_for


@pytest.fixture
async def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Server]:
    """Yield the whole backend (in-process projections) and a separate game runner."""
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


async def _reflect(
    channel: grpc.aio.Channel, version: str, req: reflection_pb2.ServerReflectionRequest
) -> reflection_pb2.ServerReflectionResponse:
    """Ask one reflection question over grpc.reflection.<version> (same wire messages)."""
    call = channel.stream_stream(
        f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )(iter([req]))
    resp: reflection_pb2.ServerReflectionResponse = await call.read()
    return resp


async def test_reflection_v1_and_v1alpha_list_the_services_and_show_structured_fields(
    api: Server,
):
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{api.backend.port}")
    for version in ("v1", "v1alpha"):
        # when a client lists the services over either reflection version
        listed = await _reflect(
            channel, version, reflection_pb2.ServerReflectionRequest(list_services="")
        )
        names = {s.name for s in listed.list_services_response.service}
        # then it sees the rules, the read side, health and both reflection versions
        assert {
            "fallen.rules.v1.RulesService",
            "fallen.projections.v1.ProjectionService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        } <= names
        # and the command arguments are a google.protobuf.Struct, not a JSON string
        found = await _reflect(
            channel,
            version,
            reflection_pb2.ServerReflectionRequest(
                file_containing_symbol="fallen.rules.v1.SubmitCommandRequest"
            ),
        )
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in found.file_descriptor_response.file_descriptor_proto
        ]
        rules = next(f for f in files if f.package == "fallen.rules.v1")
        submit = next(m for m in rules.message_type if m.name == "SubmitCommandRequest")
        args = next(f for f in submit.field if f.name == "args")
        assert args.type_name == ".google.protobuf.Struct"
        assert "google/protobuf/struct.proto" in rules.dependency
        assert not any(f.name.endswith("_json") for m in rules.message_type for f in m.field)
    await channel.close()


async def test_a_slow_watcher_does_not_stall_another_and_both_streams_end(api: Server):
    await play(api.runner, "toy", "g1", random.Random(5), steps=0)
    # given a watcher that never reads and one that reads everything
    slow = api.stub.WatchView(pb.WatchViewRequest(game_id="g1"), metadata=md("anyone"))
    fast = api.stub.WatchView(pb.WatchViewRequest(game_id="g1"), metadata=md("someone"))
    first = await asyncio.wait_for(fast.read(), 10)
    # when the game plays to its end
    assert await advance(api.runner, "g1", random.Random(5), 200)
    end = (await api.runner.load("g1")).version
    seen = [first.version]
    while (msg := await asyncio.wait_for(fast.read(), 10)) is not grpc.aio.EOF:
        seen.append(msg.version)
    # then the fast watcher saw increasing versions up to the final view, then the stream ended
    assert seen == sorted(set(seen)) and seen[-1] == end
    # and the slow one, read only now, still ends with the final view (intermediates may drop)
    late = [msg async for msg in slow]
    assert late and late[-1].ended and late[-1].version == end
    assert [m.version for m in late] == sorted({m.version for m in late})


async def test_list_games_shows_games_in_progress_before_finished_ones(api: Server):
    await play(api.runner, "toy", "done", random.Random(2))
    await play(api.runner, "toy", "live", random.Random(2), steps=0)
    version = (await api.runner.load("live")).version
    await api.stub.GetView(
        pb.GetViewRequest(game_id="live", min_version=version, wait_ms=5000), metadata=md("x")
    )
    for _ in range(100):
        listed = await api.stub.ListGames(pb.ListGamesRequest(), metadata=md("anyone"))
        if [g.game_id for g in listed.games] == ["live", "done"] and listed.games[1].ended:
            break
        await asyncio.sleep(0.05)
    assert [(g.game_id, g.ended) for g in listed.games] == [("live", False), ("done", True)]
    assert listed.games[0].game == "toy" and listed.games[0].version == version
    # an outsider sees the seats without player ids; a player of the game sees them
    assert dict(listed.games[0].seats) == {"a": "", "b": ""}
    mine = await api.stub.ListGames(pb.ListGamesRequest(), metadata=md("p-a-live"))
    assert dict(mine.games[0].seats) == {"a": "p-a-live", "b": "p-b-live"}
    only = await api.stub.ListGames(pb.ListGamesRequest(limit=1), metadata=md("anyone"))
    assert [g.game_id for g in only.games] == ["live"]


CLIENT_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
}
TEXT = st.text(max_size=80) | st.sampled_from(["g1", "", "a", "b", "chance", "x" * 70])


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(["GetView", "ReplayViews", "ListGames", "ReadEvents"]),
    TEXT,
    TEXT,
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**32 - 1),
)
async def test_generated_read_requests_get_a_client_status_never_internal(
    api: Server, rpc: str, game_id: str, seat: str, version: int, limit: int
):
    if not await api.store.version("game-g1"):
        await play(api.runner, "toy", "g1", random.Random(1), steps=2)
    requests = {
        "GetView": pb.GetViewRequest(
            game_id=game_id, seat=seat, min_version=version, wait_ms=1 + limit % 50
        ),
        "ReplayViews": pb.ReplayViewsRequest(
            game_id=game_id, seat=seat, from_version=version, limit=limit
        ),
        "ListGames": pb.ListGamesRequest(limit=limit, game=seat),
        "ReadEvents": pb.ReadEventsRequest(
            game_id=game_id, seat=seat, stream=seat, from_version=version, limit=limit
        ),
    }
    try:
        await getattr(api.stub, rpc)(requests[rpc], metadata=md("p-a-g1"))
    except grpc.aio.AioRpcError as err:
        assert err.code() in CLIENT_CODES, (rpc, err.code(), err.details())
