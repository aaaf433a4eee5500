"""Bot games on the embedded server (`fallenctl serve all`, what `make run` serves).

The vs_bot games run against a `fallenctl serve` process started as `make run` starts it
(tests/support/make_run.py); the other tests start the same server in process (SQLite
store, in-process bot workers that act through the server's own gRPC API) to reach its
matchmaker's timers and its workers. A player enqueues, and plays only their own seat with
the commands ListLegalCommands lists; the bot seat is played by the server's workers to the
end. A server without bot workers refuses bot seats at Enqueue and CreateGame.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import grpc
import pytest
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from benchmarks.bot_latency import measure
from services.app import Backend, serve
from services.bots.policies import parse_choices
from services.matchmaking.timers import check_all
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from tests.support.make_run import make_run

WAIT_S = 240.0
QUICK_LAND = {"short_game": True, "max_turns": 2}


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Embedded:
    backend: Backend | None  # None: a `fallenctl serve` process (tests/support/make_run.py)
    store: SqliteEventStore
    rules: rules_pb2_grpc.RulesServiceStub
    mm: pb_grpc.MatchmakingServiceStub


async def _embedded(tmp_path: Any, monkeypatch: Any, workers: int) -> AsyncIterator[Embedded]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    store = SqliteEventStore(tmp_path / "fallen.db")
    backend = await serve(store, "127.0.0.1:0", bots=workers)  # as `fallenctl serve all` does
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Embedded(
            backend,
            store,
            rules_pb2_grpc.RulesServiceStub(channel),
            pb_grpc.MatchmakingServiceStub(channel),
        )
    finally:
        await channel.close()
        await backend.stop()


@pytest.fixture
async def embedded(tmp_path, monkeypatch) -> AsyncIterator[Embedded]:
    async for e in _embedded(tmp_path, monkeypatch, 1):
        yield e


@pytest.fixture
async def made_run(tmp_path) -> AsyncIterator[Embedded]:
    """The backend as `make run` starts it: a `fallenctl serve` process on SQLite."""
    with make_run(tmp_path) as served:
        store = SqliteEventStore(served.db)
        channel = grpc.aio.insecure_channel(served.grpc)
        try:
            yield Embedded(
                None,
                store,
                rules_pb2_grpc.RulesServiceStub(channel),
                pb_grpc.MatchmakingServiceStub(channel),
            )
        finally:
            await channel.close()
            await store.close()


@pytest.fixture
async def botless(tmp_path, monkeypatch) -> AsyncIterator[Embedded]:
    async for e in _embedded(tmp_path, monkeypatch, 0):
        yield e


async def matched(e: Embedded, player: str, game: str, mode: str, **prefs: Any) -> pb.MatchFound:
    """Enqueue and watch the ticket until it is matched; return where to play."""
    req = pb.EnqueueRequest(game=game, mode=mode, preferences=pb.Preferences(**prefs))
    ticket = (await e.mm.Enqueue(req, metadata=md(player))).ticket
    watch = e.mm.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=md(player))
    last = None
    async with asyncio.timeout(30):
        async for msg in watch:
            last = msg.ticket
    assert last is not None and last.state == pb.TICKET_STATE_MATCHED
    return last.match


async def play_human(e: Embedded, game: str, game_id: str, seat: str, player: str) -> dict:
    """Play one seat with listed legal commands (a hashed pick) until the game ends; the other
    seats are the server's to play. Return the outcome."""
    who = md(player)
    async with asyncio.timeout(WAIT_S):
        while True:
            g = await e.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=who)
            if g.ended:
                return struct_to_py(g.outcome)
            if g.waiting_for != seat:  # the bot's turn (or chance): wait for it
                await asyncio.sleep(0.01)
                continue
            await submit_listed(e, game_id, seat, player)


async def submit_listed(e: Embedded, game_id: str, seat: str, player: str) -> None:
    """Submit one of the seat's listed legal commands (a hashed pick), if it must act."""
    who = md(player)
    legal = await e.rules.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat), metadata=who
    )
    if legal.waiting_for != seat or not legal.commands:
        await asyncio.sleep(0.01)
        return
    choices = parse_choices(legal.commands)
    digest = hashlib.sha256(f"{game_id}:{legal.version}".encode()).digest()
    pick = choices[int.from_bytes(digest[:8], "big") % len(choices)]
    try:
        await e.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=game_id,
                seat=seat,
                kind=pick.kind,
                args=to_struct(pick.args),
                command_id=f"h{legal.version}",
                expected_version=legal.version,
            ),
            metadata=who,
        )
    except grpc.aio.AioRpcError as err:  # the game moved on (a timer): ask again
        assert err.code() == grpc.StatusCode.ABORTED, err.details()


async def bot_moved(e: Embedded, game_id: str, seat: str) -> bool:
    """Return whether the game's log has events caused by a bot worker's command for seat
    (the command id names the bot's policy, seed and seat: services/bots/worker.py)."""
    envs = await e.store.read(f"game-{game_id}")
    return any("bot:" in env.causation_id and f":{seat}:" in env.causation_id for env in envs)


@pytest.mark.parametrize(("game", "bot_seat"), [("worlds", "p2"), ("fallen", "dungeon_lord")])
async def test_a_vs_bot_game_is_played_to_the_end_by_the_embedded_servers_bot(
    made_run: Embedded, monkeypatch: Any, game: str, bot_seat: str
) -> None:
    # given the backend as `make run` serves it, and a player who enqueues against a bot
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    embedded = made_run
    prefs = {"role": "hero"} if game == "fallen" else {}
    match = await matched(embedded, "amy", game, "vs_bot", **prefs)
    assert match.seat != bot_seat
    # when the player plays their seat with the listed legal commands
    outcome = await play_human(embedded, game, match.game_id, match.seat, "amy")
    # then the game ends with a result, and the bot seat moved through the rules
    assert outcome and outcome.get("winner") in (match.seat, bot_seat)
    assert await bot_moved(embedded, match.game_id, bot_seat)
    if game == "worlds":  # and in a bot game of Fallen Worlds the human starts
        envs = await embedded.store.read(f"game-{match.game_id}")
        first = [env.data for env in envs if env.data.get("how") in ("bot_game", "chance")]
        assert first[0] == {"seat": match.seat, "how": "bot_game"}


async def test_options_bots_seat_a_bot_in_a_land_game(embedded: Embedded) -> None:
    # given a two-seat Land game whose options say a bot plays p2
    options = {**QUICK_LAND, "bots": ["p2"], "bot_policy": "easy"}
    created = await embedded.rules.CreateGame(
        rules_pb2.CreateGameRequest(
            game="land", seats={"p1": "amy", "p2": "bot-p2"}, options=to_struct(options)
        ),
        metadata=md("amy"),
    )
    # when amy plays p1, then the game ends and p2 moved by itself
    outcome = await play_human(embedded, "land", created.game_id, "p1", "amy")
    assert outcome
    assert await bot_moved(embedded, created.game_id, "p2")


@pytest.mark.parametrize(("mode", "prefs"), [("solo1", {}), ("solo2", {"challenge_level": 4})])
async def test_a_solo_variants_opponents_are_played_by_the_rules(
    embedded: Embedded, mode: str, prefs: dict[str, Any]
) -> None:
    # given a player matched at once for a (short) Land solo game
    assert embedded.backend is not None
    mm = embedded.backend.matchmaker
    spec = mm.modes[f"land/{mode}"]
    mm.modes[f"land/{mode}"] = replace(spec, options={**spec.options, **QUICK_LAND})
    match = await matched(embedded, "sol", "land", mode, **prefs)
    assert match.seat == "p1"
    # when the player plays p1, then the game ends: no seat but theirs was ever waited for
    outcome = await play_human(embedded, "land", match.game_id, "p1", "sol")
    assert outcome
    g = await embedded.rules.GetGame(
        rules_pb2.GetGameRequest(game_id=match.game_id), metadata=md("sol")
    )
    assert dict(g.seats) == {"p1": "sol"}


async def test_a_server_without_bot_workers_refuses_bot_seats(botless: Embedded) -> None:
    # given an embedded server started with no bot workers
    # when a player enqueues for a vs_bot game, then it is refused, naming why
    req = pb.EnqueueRequest(game="worlds", mode="vs_bot")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await botless.mm.Enqueue(req, metadata=md("amy"))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "bot" in (refused.value.details() or "")
    # and CreateGame with a bot seat (listed, or a bot: player) is refused the same way
    for seats, options in (
        ({"p1": "amy", "p2": "bob"}, {"bots": ["p2"]}),
        ({"hero": "amy", "dungeon_lord": "bot:fallen:0"}, {}),
    ):
        game = "worlds" if "p1" in seats else "fallen"
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await botless.rules.CreateGame(
                rules_pb2.CreateGameRequest(game=game, seats=seats, options=to_struct(options)),
                metadata=md("amy"),
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "no bot workers" in (refused.value.details() or "")
    # and a game of humans only is created
    ok = await botless.rules.CreateGame(
        rules_pb2.CreateGameRequest(game="worlds", seats={"p1": "amy", "p2": "bob"}),
        metadata=md("amy"),
    )
    assert ok.game_id


async def test_bad_bot_options_are_refused_naming_the_field(embedded: Embedded) -> None:
    for game, seats, options, field in (
        ("fallen", {"hero": "amy", "dungeon_lord": "b"}, {"bots": ["nobody"]}, "options.bots"),
        ("land", {"p1": "amy", "p2": "b"}, {"bots": ["p2"], "bot_policy": "x"}, "bot_policy"),
        ("fallen", {"hero": "amy", "dungeon_lord": "b"}, {"bot_seed": 5}, "options.bot_seed"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await embedded.rules.CreateGame(
                rules_pb2.CreateGameRequest(game=game, seats=seats, options=to_struct(options)),
                metadata=md("amy"),
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field in (refused.value.details() or "")


async def test_a_taken_over_seat_is_played_by_the_embedded_servers_bot(embedded: Embedded) -> None:
    # given two players matched for a (short) Land standard game on the embedded server
    assert embedded.backend is not None
    mm = embedded.backend.matchmaker
    mode = mm.modes["land/standard"]
    mm.modes["land/standard"] = replace(mode, options={**mode.options, **QUICK_LAND})
    ta, tb = await asyncio.gather(
        matched(embedded, "ann", "land", "standard", seat_counts=[2]),
        matched(embedded, "ben", "land", "standard", seat_counts=[2]),
    )
    game_id = ta.game_id
    assert tb.game_id == game_id
    g = await embedded.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("ann"))
    quiet = g.waiting_for
    other = next(s for s in g.seats if s != quiet)
    # when the seat the game waits for stays quiet past its turn timer and its grace
    later = time.time() + 10_000
    for at, action in ((later, "warned"), (later + 10_000, "taken_over")):
        assert await check_all(mm.state, embedded.store, mm.creator, mm.modes, at) == {
            game_id: action
        }
    # then the server's bot plays it while the other player plays theirs, to the end
    outcome = await play_human(embedded, "land", game_id, other, g.seats[other])
    assert outcome
    assert await bot_moved(embedded, game_id, quiet)


async def test_a_stuck_bot_seat_is_warned_then_forfeits(embedded: Embedded) -> None:
    # given a vs_bot Fallen game whose bot worker has died
    assert embedded.backend is not None
    for task in embedded.backend.bot_tasks:
        task.cancel()
    await asyncio.gather(*embedded.backend.bot_tasks, return_exceptions=True)
    match = await matched(embedded, "amy", "fallen", "vs_bot", role="hero")
    # when the player moves until the game waits for the bot seat
    who = md("amy")
    async with asyncio.timeout(60):
        while True:
            g = await embedded.rules.GetGame(
                rules_pb2.GetGameRequest(game_id=match.game_id), metadata=who
            )
            if g.waiting_for == "dungeon_lord":
                break
            await submit_listed(embedded, match.game_id, "hero", "amy")
    # then the turn timer warns the quiet bot seat, and after the grace it forfeits
    mm = embedded.backend.matchmaker
    later = time.time() + 10_000
    for at, action in ((later, "warned"), (later + 10_000, "forfeited")):
        assert await check_all(mm.state, embedded.store, mm.creator, mm.modes, at) == {
            match.game_id: action
        }
    g = await embedded.rules.GetGame(rules_pb2.GetGameRequest(game_id=match.game_id), metadata=who)
    assert g.ended
    assert struct_to_py(g.outcome) == {
        "winner": "hero",
        "forfeit": "dungeon_lord",
        "conclusion": "forfeit",
    }


async def test_the_latency_bench_times_bot_answers_and_human_commands(embedded: Embedded) -> None:
    # given the embedded server, when the bench's human plays one Worlds game vs an easy bot
    assert embedded.backend is not None
    row = await measure(f"127.0.0.1:{embedded.backend.port}", "worlds", 1, "smoke")
    # then it reports both figures with their percentiles (the shape, never the speed)
    assert row["bot_answers"] > 0 and row["human_submits"] >= row["bot_answers"]
    for key in ("bot_answer_ms", "human_submit_ms"):
        assert set(row[key]) == {"p50", "p90", "p99", "max", "mean"}
        assert row[key]["p50"] <= row[key]["p99"] <= row[key]["max"]
