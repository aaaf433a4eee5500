"""Every bad matchmaking request gets its status, names the field and changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.app import Backend, serve
from services.platform.auth import issue_token
from services.platform.store.sqlite import SqliteEventStore

CLIENT_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
}


def md(player: str, service: bool = False) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, service=service)}"),)


@pytest.fixture
async def api(
    tmp_path, monkeypatch
) -> AsyncIterator[tuple[pb_grpc.MatchmakingServiceStub, Backend]]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    backend = await serve(SqliteEventStore(tmp_path / "f.db"), "127.0.0.1:0")
    ch = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield pb_grpc.MatchmakingServiceStub(ch), backend
    finally:
        await ch.close()
        await backend.stop()


async def refused(call, code: grpc.StatusCode, *words: str) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    for w in words:
        assert w in (err.value.details() or "")
    return err.value.details() or ""


def enq(game: str, mode: str, party: tuple[str, ...] = (), **prefs: object) -> pb.EnqueueRequest:
    return pb.EnqueueRequest(
        game=game, mode=mode, party=list(party), preferences=pb.Preferences(**prefs)
    )  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (enq("", "ranked"), "game"),
        (enq("chess", "ranked"), "game"),
        (enq("fallen", ""), "mode"),
        (enq("fallen", "epic"), "mode"),
        (enq("fallen", "ranked", ("bob",)), "party"),
        (enq("land", "epic", ("bob", "bob")), "party"),
        (enq("land", "epic", ("alice",)), "party"),
        (enq("land", "epic", ("bot:land:0",)), "party"),
        (enq("land", "epic", ("no spaces",)), "party"),
        (enq("land", "epic", tuple(f"f{i}" for i in range(6))), "party"),
        (enq("fallen", "ranked", role="wizard"), "preferences.role"),
        (enq("worlds", "pvp", role="p1"), "preferences.role"),
        (enq("fallen", "ranked", seat_counts=[2]), "preferences.seat_counts"),
        (enq("land", "standard", seat_counts=[6]), "preferences.seat_counts"),
        (enq("land", "standard", ("b", "c"), seat_counts=[2]), "preferences.seat_counts"),
        (enq("land", "solo1", challenge_level=2), "preferences.challenge_level"),
        (enq("land", "epic", challenge_level=1), "preferences.challenge_level"),
    ],
)
async def test_malformed_enqueue_names_the_field_and_queues_nothing(api, request_, field) -> None:
    stub, backend = api
    await refused(
        stub.Enqueue(request_, metadata=md("alice")), grpc.StatusCode.INVALID_ARGUMENT, field
    )
    assert all(not q for q in backend.matchmaker.state.queues.values())


async def test_a_second_ticket_answers_already_exists_with_the_live_id(api) -> None:
    stub, _ = api
    # given alice queued for ranked Fallen
    first = (await stub.Enqueue(enq("fallen", "ranked", role="hero"), metadata=md("alice"))).ticket
    # when she queues again (or a friend queues her in a party), the live ticket id comes back
    text = await refused(
        stub.Enqueue(enq("fallen", "ranked"), metadata=md("alice")), grpc.StatusCode.ALREADY_EXISTS
    )
    assert first.ticket_id in text
    # and a party that includes her in a queue where she already waits is refused too
    await stub.Enqueue(enq("land", "epic", ("alice",)), metadata=md("carol"))
    text = await refused(
        stub.Enqueue(enq("land", "epic", ("alice",)), metadata=md("dave")),
        grpc.StatusCode.ALREADY_EXISTS,
    )
    assert "alice" in text


async def test_another_players_ticket_is_not_yours(api) -> None:
    stub, _ = api
    t = (await stub.Enqueue(enq("fallen", "ranked"), metadata=md("alice"))).ticket
    for call in (
        stub.GetTicket(pb.GetTicketRequest(ticket_id=t.ticket_id), metadata=md("mallory")),
        stub.CancelTicket(pb.CancelTicketRequest(ticket_id=t.ticket_id), metadata=md("mallory")),
    ):
        await refused(call, grpc.StatusCode.PERMISSION_DENIED)
    watch = stub.WatchTicket(pb.WatchTicketRequest(ticket_id=t.ticket_id), metadata=md("mallory"))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        async for _ in watch:
            pass
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # and alice's ticket is still queued
    got = await stub.GetTicket(pb.GetTicketRequest(ticket_id=t.ticket_id), metadata=md("alice"))
    assert got.ticket.state == pb.TICKET_STATE_QUEUED


async def test_cancel_unknown_missing_and_service_callers(api) -> None:
    stub, _ = api
    await refused(
        stub.GetTicket(pb.GetTicketRequest(ticket_id="nope"), metadata=md("a")),
        grpc.StatusCode.NOT_FOUND,
    )
    await refused(
        stub.GetTicket(pb.GetTicketRequest(), metadata=md("a")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "ticket_id",
    )
    await refused(stub.Enqueue(enq("fallen", "ranked")), grpc.StatusCode.UNAUTHENTICATED)
    await refused(
        stub.Enqueue(enq("fallen", "ranked"), metadata=md("svc", service=True)),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    t2 = (await stub.Enqueue(enq("fallen", "ranked"), metadata=md("b"))).ticket
    done = await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=t2.ticket_id), metadata=md("b"))
    assert done.ticket.state == pb.TICKET_STATE_CANCELLED
    await refused(
        stub.CancelTicket(pb.CancelTicketRequest(ticket_id=t2.ticket_id), metadata=md("b")),
        grpc.StatusCode.FAILED_PRECONDITION, "cancelled",
    )  # fmt: skip
    await refused(
        stub.Leaderboard(
            pb.LeaderboardRequest(game="fallen", mode="ranked", limit=101), metadata=md("a")
        ),
        grpc.StatusCode.INVALID_ARGUMENT, "limit",
    )  # fmt: skip
    await refused(
        stub.GetRating(pb.GetRatingRequest(game="land", mode="nope"), metadata=md("a")),
        grpc.StatusCode.INVALID_ARGUMENT, "mode",
    )  # fmt: skip


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    game=st.sampled_from(["fallen", "worlds", "land", "", "x" * 80]),
    mode=st.sampled_from(["ranked", "vs_bot", "pvp", "solo1", "standard", "epic", "", "\x00"]),
    party=st.lists(st.text(max_size=70), max_size=7),
    role=st.sampled_from(["", "any", "hero", "dungeon_lord", "first", "p1", "\u2603"]),
    counts=st.lists(st.integers(0, 10), max_size=4),
    level=st.integers(0, 5),
)
async def test_generated_enqueues_never_fail_internally(
    api, game, mode, party, role, counts, level
) -> None:
    stub, _ = api
    req = enq(game, mode, tuple(party), role=role, seat_counts=counts, challenge_level=level)
    player = f"gen{abs(hash((game, mode, tuple(party), role, tuple(counts), level))) % 10**9}"
    try:
        res = await stub.Enqueue(req, metadata=md(player))
    except grpc.aio.AioRpcError as err:
        assert err.code() in CLIENT_CODES, err.details()
        return
    # a valid request was queued for the caller, with the caller first in its party
    assert res.ticket.players[0] == player
    assert res.ticket.game == game and res.ticket.mode == mode
