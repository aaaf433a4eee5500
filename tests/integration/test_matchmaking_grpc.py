"""Matchmaking through the real backend: Fallen and Land Epic matches, ratings, quiet seats.

The backend serves everything on one port; a second server is the rules-land-epic pool
(the real Fallen and Fallen Land engines; Land games are made short with QUICK_LAND).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import grpc
import pytest
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.bots.policies import Turn, parse_choices, random_legal
from services.matchmaking.ratings import placements as rating_groups
from services.matchmaking.timers import check_all
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.localservers import free_port
from services.platform.store.sqlite import SqliteEventStore
from services.rules.land import RULES as LAND

WAIT_S = 30.0
QUICK_LAND = {"short_game": True, "max_turns": 1}


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Stack:
    mm: pb_grpc.MatchmakingServiceStub
    rules: rules_pb2_grpc.RulesServiceStub
    epic: rules_pb2_grpc.RulesServiceStub
    main: Backend
    epic_addr: str
    db: str


@pytest.fixture
async def stack(tmp_path, monkeypatch) -> AsyncIterator[Stack]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    db = str(tmp_path / "fallen.db")
    epic_addr = f"127.0.0.1:{free_port()}"
    main = await serve(
        SqliteEventStore(db), "127.0.0.1:0",
        pools=f"rules-land-epic={epic_addr}",
    )  # fmt: skip
    epic = await serve(
        SqliteEventStore(db), epic_addr, "rules-land-epic",
        dice_addr=f"127.0.0.1:{main.port}",
    )  # fmt: skip
    ch = grpc.aio.insecure_channel(f"127.0.0.1:{main.port}")
    ch2 = grpc.aio.insecure_channel(epic_addr)
    try:
        yield Stack(
            pb_grpc.MatchmakingServiceStub(ch),
            rules_pb2_grpc.RulesServiceStub(ch),
            rules_pb2_grpc.RulesServiceStub(ch2),
            main,
            epic_addr,
            db,
        )
    finally:
        await ch.close()
        await ch2.close()
        await epic.stop()
        await main.stop()


async def enqueue(s: Stack, player: str, game: str, mode: str, **kw: object) -> pb.Ticket:
    party = kw.pop("party", [])
    req = pb.EnqueueRequest(game=game, mode=mode, preferences=pb.Preferences(**kw), party=party)  # type: ignore[arg-type]
    return (await s.mm.Enqueue(req, metadata=md(player))).ticket


async def matched(s: Stack, player: str, ticket_id: str) -> pb.Ticket:
    """Watch a ticket until it is final; return its last state."""
    last = None
    call = s.mm.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket_id), metadata=md(player))
    async with asyncio.timeout(WAIT_S):
        async for msg in call:
            last = msg.ticket
    assert last is not None
    return last


async def play_fallen(s: Stack, game_id: str, seats: dict[str, str]) -> dict:
    """Play a Fallen game to its end, each player picking a hashed legal command."""
    return (await play(s.rules, "fallen", game_id, seats))["outcome"]


async def rating(s: Stack, player: str, game: str, mode: str) -> pb.Rating:
    req = pb.GetRatingRequest(player=player, game=game, mode=mode)
    return (await s.mm.GetRating(req, metadata=md(player))).rating


async def rated(s: Stack, player: str, game: str, mode: str) -> pb.Rating:
    async with asyncio.timeout(WAIT_S):
        while (r := await rating(s, player, game, mode)).games == 0:
            await asyncio.sleep(0.1)
    return r


async def test_two_fallen_players_are_matched_play_and_are_rated(stack: Stack) -> None:
    # given alice (wanting the hero) and bob queued for ranked Fallen
    ta = await enqueue(stack, "alice", "fallen", "ranked", role="hero")
    tb = await enqueue(stack, "bob", "fallen", "ranked")
    # (times come as Timestamps too; the float seconds are deprecated)
    assert ta.queued_time.ToNanoseconds() == round(ta.queued_at * 1e9)
    assert ta.expires_time.ToNanoseconds() == round(ta.expires_at * 1e9) > 0
    # when the matchmaker runs, both receive MatchFound for one game with different seats
    a, b = await matched(stack, "alice", ta.ticket_id), await matched(stack, "bob", tb.ticket_id)
    assert a.state == b.state == pb.TICKET_STATE_MATCHED
    assert a.match.game_id == b.match.game_id
    assert (a.match.seat, b.match.seat) == ("hero", "dungeon_lord")
    assert a.match.pool == "rules-fallen" and len(a.match.dice_commitment) == 64
    assert a.match.dice_commitment == b.match.dice_commitment
    # and neither answer names the other player (no hidden or foreign data in a ticket)
    assert "bob" not in a.SerializeToString().decode(errors="replace")
    assert "alice" not in b.SerializeToString().decode(errors="replace")
    # when they play it to the end
    outcome = await play_fallen(stack, a.match.game_id, {"hero": "alice", "dungeon_lord": "bob"})
    # then GameEnded from the stream rates both, the winner up and the loser down
    ra, rb = (
        await rated(stack, "alice", "fallen", "ranked"),
        await rated(stack, "bob", "fallen", "ranked"),
    )
    winner, loser = (ra, rb) if outcome["winner"] == "hero" else (rb, ra)
    assert winner.mu > 25.0 > loser.mu
    board = await stack.mm.Leaderboard(
        pb.LeaderboardRequest(game="fallen", mode="ranked"), metadata=md("z")
    )
    assert [r.player for r in board.ratings] == [winner.player, loser.player]
    # and handling the same GameEnded again changes nothing (idempotent by game id)
    follower_rated = await stack.main.matchmaker.state.record_result(
        a.match.game_id, "fallen/ranked", []
    )
    assert follower_rated is False
    assert (await rating(stack, "alice", "fallen", "ranked")) == ra
    # and alice may queue again now that her ticket is matched
    await enqueue(stack, "alice", "fallen", "ranked")


async def play(
    rules: rules_pb2_grpc.RulesServiceStub, game: str, game_id: str, seats: dict[str, str]
) -> dict:
    """Play a game to its end, each seated player picking a hashed legal command with their
    own token; return the outcome and the seats that moved."""
    moved: set[str] = set()
    async with asyncio.timeout(WAIT_S * 6):
        return await _play(rules, game, game_id, seats, moved)


async def _play(
    rules: rules_pb2_grpc.RulesServiceStub,
    game: str,
    game_id: str,
    seats: dict[str, str],
    moved: set[str],
) -> dict:
    for _ in range(20_000):
        g = await rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("x"))
        if g.ended:
            return {"outcome": struct_to_py(g.outcome), "moved": moved}
        seat = g.waiting_for
        if seat not in seats:  # chance being answered
            await asyncio.sleep(0.02)
            continue
        who = md(seats[seat])
        legal = await rules.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat), metadata=who
        )
        choices = parse_choices(legal.commands)
        turn = Turn(game, game_id, seat, legal.version, {}, choices, "s")
        pick = choices[random_legal(turn)]
        await rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=game_id, seat=seat, kind=pick.kind, args=to_struct(pick.args),
                command_id=f"c{legal.version}", expected_version=legal.version,
            ),
            metadata=who,
        )  # fmt: skip
        moved.add(seat)
    raise AssertionError("the game did not end")


def quick_land(stack: Stack) -> None:
    """Make the matchmaker's Land modes create short games (one turn), as the CI playouts do."""
    mm = stack.main.matchmaker
    for key in ("land/epic", "land/standard"):
        mode = mm.modes[key]
        mm.modes[key] = replace(mode, options={**mode.options, **QUICK_LAND})


async def test_six_players_fill_one_epic_game_on_the_epic_pool(stack: Stack) -> None:
    # given a party of two and four single players queued for the Land Epic game (short
    # game options, so the test can play it through)
    quick_land(stack)
    tickets = [await enqueue(stack, "u1", "land", "epic", party=["u2"])]
    for p in ("u3", "u4", "u5"):
        tickets.append(await enqueue(stack, p, "land", "epic"))
    await asyncio.sleep(0.5)
    assert (await matched_now(stack, "u3", tickets[1].ticket_id)).state == pb.TICKET_STATE_QUEUED
    tickets.append(await enqueue(stack, "u6", "land", "epic"))
    # when the matchmaker runs, all six are seated in one game created on the epic pool
    owners = ["u1", "u3", "u4", "u5", "u6"]
    found = [await matched(stack, p, t.ticket_id) for p, t in zip(owners, tickets, strict=True)]
    party_view = await matched(stack, "u2", tickets[0].ticket_id)
    games = {t.match.game_id for t in [*found, party_view]}
    assert len(games) == 1
    assert {t.match.endpoint for t in found} == {stack.epic_addr}
    assert {t.match.pool for t in found} == {"rules-land-epic"}
    seats = {t.match.seat for t in [*found, party_view]}
    assert seats == {"p1", "p2", "p3", "p4", "p5", "p6"}
    game_id = games.pop()
    # then the real Land engine runs it as the Epic game (the 6-player setup)
    g = await stack.epic.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("u1"))
    assert sorted(g.seats.values()) == ["u1", "u2", "u3", "u4", "u5", "u6"]
    created = (await stack.main.store.read(f"game-{game_id}"))[0]
    assert created.data["game"] == "land" and created.data["options"]["variant"] == "standard"
    # when the six play it, every seat's commands are accepted, and it ends with placements
    played = await play(stack.epic, "land", game_id, dict(g.seats))
    assert played["moved"] == seats
    outcome = played["outcome"]
    if set(outcome.get("winners") or []) == seats:  # all six tied: nobody is ranked
        assert rating_groups(dict(g.seats), outcome) is None
        return
    order = [g.seats[s] for s in placements(outcome, list(seats))]
    # and GameEnded rates all six, the first placed above the last
    mus = [(await rated(stack, p, "land", "epic")).mu for p in order]
    assert mus[0] > mus[-1]


def placements(outcome: dict, seats: list[str]) -> list[str]:
    """Return the seats best first, from a placements, a winner or a (shared) winners outcome."""
    if "placements" in outcome:
        return [s for group in outcome["placements"] for s in group]
    winners = [outcome["winner"]] if outcome.get("winner") else list(outcome["winners"])
    assert winners, outcome
    return [*winners, *[s for s in seats if s not in winners]]


async def test_one_player_is_matched_at_once_for_land_solo_i(stack: Stack) -> None:
    # given a player queued alone for Land's Solo Variant I
    t = await enqueue(stack, "sol", "land", "solo1")
    # when the matchmaker runs, the ticket is matched at once to a one-seat game on rules-land
    found = await matched(stack, "sol", t.ticket_id)
    assert found.state == pb.TICKET_STATE_MATCHED
    assert (found.match.seat, found.match.pool) == ("p1", "rules-land")
    # then the game is the solo variant the mode's options name, and the player may move
    game_id = found.match.game_id
    created = (await stack.main.store.read(f"game-{game_id}"))[0]
    assert created.data["seats"] == {"p1": "sol"}
    # (with what the engine pins for every new game: record format, card data)
    assert created.data["options"] == LAND.new_game_options({"variant": "solo1"})
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("sol"))
    assert g.waiting_for == "p1" and not g.ended
    legal = await stack.rules.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat="p1"), metadata=md("sol")
    )
    first = legal.commands[0]
    await stack.rules.SubmitCommand(
        rules_pb2.SubmitCommandRequest(
            game_id=game_id, seat="p1", kind=first.kind, args=first.args,
            command_id="s1", expected_version=legal.version,
        ),
        metadata=md("sol"),
    )  # fmt: skip
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("sol"))
    assert g.version > legal.version


async def test_a_solo_ii_player_picks_a_challenge_level_and_the_game_is_created_at_it(
    stack: Stack,
) -> None:
    # given a player queued alone for Land's Solo Variant II at the Ultimate challenge (4)
    t = await enqueue(stack, "ult", "land", "solo2", challenge_level=4)
    # when the matchmaker runs, the ticket is matched at once on rules-land
    found = await matched(stack, "ult", t.ticket_id)
    assert found.state == pb.TICKET_STATE_MATCHED
    assert (found.match.seat, found.match.pool) == ("p1", "rules-land")
    # then the game is Solo Variant II at the level the player chose, waiting for them
    created = (await stack.main.store.read(f"game-{found.match.game_id}"))[0]
    assert created.data["options"] == LAND.new_game_options({"variant": "solo2", "challenge": 4})
    g = await stack.rules.GetGame(
        rules_pb2.GetGameRequest(game_id=found.match.game_id), metadata=md("ult")
    )
    assert not g.ended and g.waiting_for in ("p1", "")


async def matched_now(s: Stack, player: str, ticket_id: str) -> pb.Ticket:
    return (
        await s.mm.GetTicket(pb.GetTicketRequest(ticket_id=ticket_id), metadata=md(player))
    ).ticket


async def test_a_quiet_fallen_seat_is_warned_then_forfeits(stack: Stack) -> None:
    # given a ranked Fallen game made by the matchmaker
    ta = await enqueue(stack, "carol", "fallen", "ranked")
    tb = await enqueue(stack, "dave", "fallen", "ranked")
    game_id = (await matched(stack, "carol", ta.ticket_id)).match.game_id
    await matched(stack, "dave", tb.ticket_id)
    mm = stack.main.matchmaker
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("carol"))
    quiet = g.waiting_for
    # when nobody acts: before the timer (180 s) nothing, after it a warning (written now),
    # within its grace (60 s) nothing, after it a forfeit
    now = time.time()
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, now + 5) == {}
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, now + 200) == {
        game_id: "warned"
    }
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, now + 30) == {}
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, now + 100) == {
        game_id: "forfeited"
    }
    # then the game is over, the other seat wins, and the log says what happened
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("carol"))
    other = next(s for s in g.seats if s != quiet)
    assert g.ended and struct_to_py(g.outcome) == {
        "winner": other,
        "forfeit": quiet,
        "conclusion": "forfeit",
    }
    tail = [
        (e.type, e.data.get("seat")) for e in (await stack.main.store.read(f"game-{game_id}"))[-3:]
    ]
    assert tail == [("SeatWarned", quiet), ("SeatForfeited", quiet), ("GameEnded", None)]
    # and the forfeit rates the quiet player down
    assert (await rated(stack, g.seats[quiet], "fallen", "ranked")).mu < 25.0
    # and a replay verifies the forfeited game (chains, dice, state and outcome)
    from services.audit.verify import verify_game
    from services.projections.cli import load_records, rules_of

    records, problems = await asyncio.to_thread(
        load_records, game_id, "", f"sqlite:///{stack.db}", None, None
    )
    report = verify_game(game_id, records, rules_of, problems=problems)
    assert report.verified, report.to_dict()


async def test_a_player_who_asked_for_bot_takeover_is_taken_over_not_forfeited(
    stack: Stack,
) -> None:
    # given a ranked Fallen game (a forfeit mode) whose players both asked for bot_takeover
    ta = await enqueue(stack, "erin", "fallen", "ranked", bot_takeover=True)
    tb = await enqueue(stack, "finn", "fallen", "ranked", bot_takeover=True)
    game_id = (await matched(stack, "erin", ta.ticket_id)).match.game_id
    await matched(stack, "finn", tb.ticket_id)
    mm = stack.main.matchmaker
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("erin"))
    quiet = g.waiting_for
    # when the seat the game waits for stays quiet past its timer and then its grace
    now = time.time()
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, now + 200) == {
        game_id: "warned"
    }
    assert await check_all(mm.state, stack.main.store, mm.creator, mm.modes, now + 400) == {
        game_id: "taken_over"
    }
    # then the game goes on with the seat marked taken over (a bot's to play), not forfeited
    g = await stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("erin"))
    assert not g.ended and g.seat_status[quiet] == "taken_over"
    types = [e.type for e in await stack.main.store.read(f"game-{game_id}")]
    assert types[-2:] == ["SeatWarned", "SeatTakenOver"] and "SeatForfeited" not in types
