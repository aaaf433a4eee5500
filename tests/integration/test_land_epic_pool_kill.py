"""An Epic pool replica killed mid-game loses nothing: another replica continues the game.

Issue 10: "A pool replica killed mid-game loses nothing: another replica continues the game
from the log." Two `fallenctl serve rules-land-epic` processes on one SQLite store (dice in a
dice service of their own, as deployed), a six-seat Fallen Land game (the short game, one
turn) played through the first replica, which is SIGKILLed with a command in flight; the
same command is sent again to the second replica, which finishes the game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.bots.policies import Turn, parse_choices, random_legal
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.projections.cli import rules_of
from tests.support.chaos import Served

SEATS = {f"p{k}": f"epic-p{k}" for k in range(1, 7)}
KILL_AFTER = 40  # acknowledged commands on the first replica before it is killed
pytestmark = pytest.mark.timeout(600)


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@pytest.fixture
async def dice(tmp_path, monkeypatch) -> AsyncIterator[tuple[str, Backend]]:
    """Yield the store URL and a dice service on it (the pools roll through it)."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    url = f"sqlite:///{tmp_path / 'events.db'}"
    backend = await serve(SqliteEventStore(tmp_path / "events.db"), "127.0.0.1:0", "dice")
    try:
        yield url, backend
    finally:
        await backend.stop()


async def _submit_until_acked(
    stub: rules_pb2_grpc.RulesServiceStub, req: rules_pb2.SubmitCommandRequest, player: str
) -> None:
    """Send a command until a replica answers it (the same command id each time)."""
    give_up = time.monotonic() + 60
    while True:
        try:
            await stub.SubmitCommand(req, metadata=md(player), timeout=10)
            return
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > give_up:
                raise
            await asyncio.sleep(0.1)


async def test_killing_an_epic_pool_replica_mid_game_loses_nothing(dice) -> None:
    url, dice_backend = dice
    flags = ("--dice", f"127.0.0.1:{dice_backend.port}")
    first = Served(url, service="rules-land-epic", flags=flags)
    second = Served(url, service="rules-land-epic", flags=flags)
    await asyncio.gather(asyncio.to_thread(first.start), asyncio.to_thread(second.start))
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{s.port}") for s in (first, second)]
    stubs = [rules_pb2_grpc.RulesServiceStub(c) for c in channels]
    gid = "epic-kill"
    acked: list[str] = []
    acked_by_second = 0
    try:
        # given a six-seat (Epic) game created on the first replica of rules-land-epic
        options = to_struct({"short_game": True, "max_turns": 1})
        await stubs[0].CreateGame(
            rules_pb2.CreateGameRequest(game="land", game_id=gid, seats=SEATS, options=options),
            metadata=md(SEATS["p1"]),
        )
        stub, killed = stubs[0], False
        async with asyncio.timeout(480):
            while True:
                g = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md("x"))
                if g.ended:
                    break
                seat = g.waiting_for
                if seat not in SEATS:  # chance, answered by the replica
                    await asyncio.sleep(0.02)
                    continue
                legal = await stub.ListLegalCommands(
                    rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat),
                    metadata=md(SEATS[seat]),
                )
                if legal.waiting_for != seat or not legal.commands:
                    continue
                choices = parse_choices(legal.commands)
                pick = choices[
                    random_legal(Turn("land", gid, seat, legal.version, {}, choices, "k"))
                ]
                req = rules_pb2.SubmitCommandRequest(
                    game_id=gid, seat=seat, kind=pick.kind, args=to_struct(pick.args),
                    command_id=f"{seat}-{legal.version}", expected_version=legal.version,
                )  # fmt: skip
                if not killed and len(acked) >= KILL_AFTER:
                    # when the first replica is SIGKILLed with this command in flight
                    sent = asyncio.ensure_future(
                        stub.SubmitCommand(req, metadata=md(SEATS[seat]), timeout=10)
                    )
                    await asyncio.sleep(0.005)
                    first.kill()
                    await asyncio.gather(sent, return_exceptions=True)
                    killed, stub = True, stubs[1]
                    # then the same command sent to the other replica is answered once
                await _submit_until_acked(stub, req, SEATS[seat])
                acked.append(req.command_id)
                acked_by_second += killed
        print(
            f"\nepic pool kill: {len(acked)} commands acknowledged, {acked_by_second} of them by "
            f"the second replica after the kill; game ended at version {g.version}"
        )
        # then the other replica played the game to its end from the log
        assert killed and acked_by_second > 0
        assert g.ended and struct_to_py(g.outcome)["kind"] in (
            "prestige", "town_health", "tiebreak", "turn_limit",
        )  # fmt: skip
    finally:
        for c in channels:
            await c.close()
        first.stop()
        second.stop()
    # and no acknowledged command is lost, none is applied twice, and the log verifies
    store = SqliteEventStore(url.removeprefix("sqlite:///"))
    try:
        events = await store.read(f"game-{gid}")
        causes = [e.causation_id for e in events]
        assert [c for c in acked if c not in causes] == []
        for c in acked:  # each command's events are one append: consecutive versions
            versions = [e.version for e in events if e.causation_id == c]
            assert versions == list(range(versions[0], versions[0] + len(versions))), c
        report = verify_game(gid, await store_records(store, gid), rules_of)
        assert report.verified, report.to_dict()
    finally:
        await store.close()
