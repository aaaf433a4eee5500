"""Bot seats of matchmade games are played by the bots pool, not by the matchmaker.

Real redis-server (the store and its feed), the whole backend in process (the real Fallen
and Fallen Land engines) and one bot worker on the feed, as `fallenctl serve bots` runs it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import grpc
import pytest
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.bots.policies import Turn, parse_choices, random_legal
from services.bots.worker import BotWorker
from services.matchmaking.timers import check_all
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.redis import RedisEventStore

WAIT_S = 60.0
QUICK_LAND = {"short_game": True, "max_turns": 1}


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Stack:
    mm: pb_grpc.MatchmakingServiceStub
    rules: rules_pb2_grpc.RulesServiceStub
    main: Backend
    worker: BotWorker


@pytest.fixture
async def stack(redis_url: str, monkeypatch) -> AsyncIterator[Stack]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    prefix = f"mmbots{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    main = await serve(store, "127.0.0.1:0")
    target = f"127.0.0.1:{main.port}"
    worker = BotWorker(redis_url, target, prefix=prefix, consumer="w1")
    await worker.feed.start()
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    mm = main.matchmaker
    mode = mm.modes["land/standard"]
    mm.modes["land/standard"] = replace(mode, options={**mode.options, **QUICK_LAND})
    ch = grpc.aio.insecure_channel(target)
    try:
        yield Stack(
            pb_grpc.MatchmakingServiceStub(ch), rules_pb2_grpc.RulesServiceStub(ch), main, worker
        )
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, 15)  # a step ends within its block time and an RPC
        except TimeoutError:
            task.cancel()
        await ch.close()
        await worker.close()
        # bounded: a backend stop once hung here (about 1 run in 3, cause not found; see the
        # issue 14 report), which must not hang the suite
        try:
            await asyncio.wait_for(main.stop(), 30)
        except TimeoutError:
            pass
        await store.close()


async def matched(s: Stack, player: str, game: str, mode: str, **prefs: object) -> pb.Ticket:
    """Enqueue a player and watch the ticket until it is final."""
    req = pb.EnqueueRequest(game=game, mode=mode, preferences=pb.Preferences(**prefs))  # type: ignore[arg-type]
    ticket = (await s.mm.Enqueue(req, metadata=md(player))).ticket
    last = ticket
    call = s.mm.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=md(player))
    async with asyncio.timeout(WAIT_S):
        async for msg in call:
            last = msg.ticket
    return last


async def get(s: Stack, game_id: str, player: str) -> rules_pb2.GetGameResponse:
    return await s.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md(player))


async def play_humans(s: Stack, game: str, game_id: str, humans: dict[str, str]) -> dict:
    """Play the human seats (hashed legal commands) until the game ends; the other seats
    are left to the bots pool. Return the outcome."""
    viewer = next(iter(humans.values()))
    async with asyncio.timeout(WAIT_S * 4):
        while not (g := await get(s, game_id, viewer)).ended:
            seat = g.waiting_for
            if seat not in humans:  # a bot's turn (or chance): the bots pool must move
                await asyncio.sleep(0.02)
                continue
            who = md(humans[seat])
            legal = await s.rules.ListLegalCommands(
                rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat), metadata=who
            )
            choices = parse_choices(legal.commands)
            pick = choices[random_legal(Turn(game, game_id, seat, legal.version, {}, choices, "h"))]
            try:
                await s.rules.SubmitCommand(
                    rules_pb2.SubmitCommandRequest(
                        game_id=game_id, seat=seat, kind=pick.kind, args=to_struct(pick.args),
                        command_id=f"h{legal.version}", expected_version=legal.version,
                    ),
                    metadata=who,
                )  # fmt: skip
            except grpc.aio.AioRpcError as err:
                if err.code() != grpc.StatusCode.ABORTED:
                    raise
    return struct_to_py(g.outcome)


async def test_a_taken_over_land_seat_is_played_to_the_end_by_the_bots_pool(stack: Stack) -> None:
    # given two players matched for a (short) Land standard game
    ta, tb = await asyncio.gather(
        matched(stack, "ann", "land", "standard", seat_counts=[2]),
        matched(stack, "ben", "land", "standard", seat_counts=[2]),
    )
    game_id = ta.match.game_id
    assert ta.state == tb.state == pb.TICKET_STATE_MATCHED and tb.match.game_id == game_id
    g = await get(stack, game_id, "ann")
    quiet = g.waiting_for
    quiet_player = g.seats[quiet]
    humans = {s: p for s, p in g.seats.items() if s != quiet}
    # when the seat the game waits for stays quiet past its turn timer and its grace
    mm = stack.main.matchmaker
    later = time.time() + 10_000
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, later) == {
        game_id: "warned"
    }
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, later + 10_000) == {
        game_id: "taken_over"
    }
    # then the bots pool plays it, the other player plays theirs, and the game ends
    outcome = await play_humans(stack, "land", game_id, humans)
    assert outcome["kind"] in ("prestige", "town_health", "tiebreak", "turn_limit")
    events = await stack.main.store.read(f"game-{game_id}")
    taken_at = next(e.version for e in events if e.type == "SeatTakenOver")
    bot_moves = {
        e.causation_id for e in events if e.version > taken_at and e.causation_id.startswith("bot:")
    }
    # and every move of the taken-over seat after the takeover names the bot that made it
    assert bot_moves and all(f":{quiet}:" in c for c in bot_moves)
    assert stack.worker.moves > 0
    # and the matchmaker's sweep never moved for the bot (its sweep only keeps timers)
    assert not any(e.causation_id.startswith(f"bot-{quiet}-") for e in events)
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, later) == {}
    # and the quiet player's seat is still theirs in the game's seats, marked taken over
    g = await get(stack, game_id, quiet_player)
    assert g.ended and g.seats[quiet] == quiet_player and g.seat_status[quiet] == "taken_over"


async def test_a_bot_filled_fallen_seat_is_played_by_the_bots_pool(stack: Stack) -> None:
    # given a player matched at once against a bot in Fallen
    t = await matched(stack, "cara", "fallen", "vs_bot", role="hero")
    assert t.state == pb.TICKET_STATE_MATCHED and t.match.seat == "hero"
    game_id = t.match.game_id
    g = await get(stack, game_id, "cara")
    assert g.seats["dungeon_lord"].startswith("bot:")
    # when the player plays the hero to the end
    outcome = await play_humans(stack, "fallen", game_id, {"hero": "cara"})
    # then the dungeon lord's moves were all made by the bots pool
    assert outcome.get("winner") in ("hero", "dungeon_lord")
    events = await stack.main.store.read(f"game-{game_id}")
    dl = {e.causation_id for e in events if e.causation_id.startswith("bot:")}
    assert dl and all(":dungeon_lord:" in c for c in dl)


async def submit_one(s: Stack, game: str, game_id: str, seat: str, player: str, tag: str) -> None:
    """Submit one hashed legal command for a seat as its player."""
    who = md(player)
    legal = await s.rules.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat), metadata=who
    )
    choices = parse_choices(legal.commands)
    pick = choices[random_legal(Turn(game, game_id, seat, legal.version, {}, choices, tag))]
    await s.rules.SubmitCommand(
        rules_pb2.SubmitCommandRequest(
            game_id=game_id, seat=seat, kind=pick.kind, args=to_struct(pick.args),
            command_id=f"{tag}{legal.version}", expected_version=legal.version,
        ),
        metadata=who,
    )  # fmt: skip


async def test_a_returning_player_reclaims_the_seat_from_the_bots_pool(stack: Stack) -> None:
    # given a Land standard game whose quiet seat a bot took over
    ta, _ = await asyncio.gather(
        matched(stack, "cat", "land", "standard", seat_counts=[2]),
        matched(stack, "dan", "land", "standard", seat_counts=[2]),
    )
    game_id = ta.match.game_id
    g = await get(stack, game_id, "cat")
    quiet, owner = g.waiting_for, g.seats[g.waiting_for]
    other = next(s for s in g.seats if s != quiet)
    mm = stack.main.matchmaker
    later = time.time() + 10_000
    await check_all(mm.state, stack.main.store, mm.creator, mm.modes, later)
    await check_all(mm.state, stack.main.store, mm.creator, mm.modes, later + 10_000)
    # when the bots pool has moved for it and the other player is to act
    async with asyncio.timeout(WAIT_S):
        while True:
            g = await get(stack, game_id, owner)
            assert not g.ended
            events = await stack.main.store.read(f"game-{game_id}")
            bot_moved = any(e.causation_id.startswith("bot:") for e in events)
            if bot_moved and g.waiting_for == other:
                break
            if g.waiting_for == other:
                await submit_one(stack, "land", game_id, other, g.seats[other], "o")
            await asyncio.sleep(0.02)
    # then the owner's own commands for the seat are refused while a bot holds it
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stack.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(game_id=game_id, seat=quiet, kind="pass"),
            metadata=md(owner),
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "reclaim it first" in (err.value.details() or "")
    # when the owner comes back and reclaims the seat
    await stack.rules.RecordSeatEvent(
        rules_pb2.RecordSeatEventRequest(game_id=game_id, seat=quiet, kind="reclaimed"),
        metadata=md(owner),
    )
    reclaimed_at = (await get(stack, game_id, owner)).version
    # then both players play to the end and the bots pool never moves for the seat again
    await play_humans(stack, "land", game_id, {quiet: owner, other: g.seats[other]})
    events = await stack.main.store.read(f"game-{game_id}")
    assert [e.type for e in events if e.type.startswith("Seat")] == [
        "SeatWarned", "SeatTakenOver", "SeatReclaimed",
    ]  # fmt: skip
    assert not any(e.causation_id.startswith("bot:") for e in events if e.version > reclaimed_at)
