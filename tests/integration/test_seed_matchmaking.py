"""Client seeds through matchmaking: Enqueue's seed reaches the game, bots' are derived."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.dice.engine import dice_stream
from services.dice.seeds import bot_seed
from services.platform.auth import issue_token
from services.platform.store.sqlite import SqliteEventStore

WAIT_S = 30.0


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Stack:
    mm: pb_grpc.MatchmakingServiceStub
    rules: rules_pb2_grpc.RulesServiceStub
    dice: dice_pb2_grpc.DiceServiceStub
    main: Backend


@pytest.fixture
async def stack(tmp_path, monkeypatch) -> AsyncIterator[Stack]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_SEED_WAIT_S", "600")
    main = await serve(SqliteEventStore(tmp_path / "mm.db"), "127.0.0.1:0")
    ch = grpc.aio.insecure_channel(f"127.0.0.1:{main.port}")
    try:
        yield Stack(
            pb_grpc.MatchmakingServiceStub(ch),
            rules_pb2_grpc.RulesServiceStub(ch),
            dice_pb2_grpc.DiceServiceStub(ch),
            main,
        )
    finally:
        await ch.close()
        await main.stop()


async def matched(s: Stack, player: str, game: str, mode: str, seed: str = "") -> pb.Ticket:
    req = pb.EnqueueRequest(game=game, mode=mode, client_seed=seed)
    ticket = (await s.mm.Enqueue(req, metadata=md(player))).ticket
    last = ticket
    call = s.mm.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=md(player))
    async with asyncio.timeout(WAIT_S):
        async for msg in call:
            last = msg.ticket
    assert last.state == pb.TICKET_STATE_MATCHED
    return last


async def seeds_of(s: Stack, game_id: str) -> dict[str, tuple[str, str]]:
    events = await s.main.store.read(dice_stream(game_id), 1)
    return {
        e.data["seat"]: (e.data["seat_seed"], e.data["source"])
        for e in events
        if e.type == "DiceClientSeedSet"
    }


async def test_enqueued_seeds_start_a_matched_game_without_another_call(stack: Stack) -> None:
    # given two players who each give a seed when they queue for Fallen Worlds
    ta, tb = await asyncio.gather(
        matched(stack, "ann", "worlds", "pvp", "ann-seed"),
        matched(stack, "ben", "worlds", "pvp", "ben-seed"),
    )
    gid = ta.match.game_id
    # then the game records each seat's seed as the player's, and has started
    assert await seeds_of(stack, gid) == {
        ta.match.seat: ("ann-seed", "player"),
        tb.match.seat: ("ben-seed", "player"),
    }
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md("ann"))
    assert g.waiting_for in ("p1", "p2") and list(g.awaiting_seeds) == []


async def test_a_vs_bot_match_waits_for_the_player_only_and_then_starts(stack: Stack) -> None:
    # given a player matched against a bot without a seed
    t = await matched(stack, "cara", "fallen", "vs_bot")
    gid, seat = t.match.game_id, t.match.seat
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md("cara"))
    bot = next(s for s in g.seats if s != seat)
    # then the bot's seed is derived from the commitment, and only the player's is awaited
    assert await seeds_of(stack, gid) == {bot: (bot_seed(t.match.dice_commitment, bot), "bot")}
    assert list(g.awaiting_seeds) == [seat] and g.waiting_for == "chance"
    # when the player gives a seed after the match, the game starts
    await stack.dice.SetClientSeed(
        dice_pb2.SetClientSeedRequest(game_id=gid, seat=seat, client_seed="late-but-in-time"),
        metadata=md("cara"),
    )
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md("cara"))
    assert g.waiting_for in g.seats and list(g.awaiting_seeds) == []


async def test_a_bad_enqueue_seed_is_invalid_and_queues_nothing(stack: Stack) -> None:
    req = pb.EnqueueRequest(game="worlds", mode="pvp", client_seed="a;b")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.mm.Enqueue(req, metadata=md("dan"))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "client_seed" in (err.value.details() or "")
    # and the player may queue again at once (no live ticket was left behind)
    ok = await stack.mm.Enqueue(pb.EnqueueRequest(game="worlds", mode="pvp"), metadata=md("dan"))
    assert ok.ticket.state == pb.TICKET_STATE_QUEUED
