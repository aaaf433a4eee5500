"""`fallenctl serve matchmaking` as its own process, routing Fallen to a rules process."""

from __future__ import annotations

import asyncio
import os

import grpc
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from test_split_topology import SECRET, start, wait_serving

from services.platform.auth import issue_token
from services.platform.localservers import free_port


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, secret=SECRET)}"),)


async def test_matchmaking_alone_creates_the_game_on_its_pool(tmp_path) -> None:
    # given the backend in one process and the matchmaker alone in another, one store
    env = {**os.environ, "FALLEN_JWT_SECRET": SECRET, "FALLEN_STORE": f"sqlite:///{tmp_path}/s.db"}
    env.pop("FALLEN_DEV", None)
    rules, mm = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    procs = [start(["all", "--address", rules], tmp_path / "all.log", env)]
    try:
        wait_serving(rules, procs[0], tmp_path / "all.log")
        args = ["matchmaking", "--address", mm, "--pools", f"rules-fallen={rules}"]
        procs.append(start(args, tmp_path / "mm.log", env))
        wait_serving(mm, procs[1], tmp_path / "mm.log")
        async with grpc.aio.insecure_channel(mm) as ch, grpc.aio.insecure_channel(rules) as rc:
            stub = pb_grpc.MatchmakingServiceStub(ch)
            # when two players enqueue for ranked Fallen
            ids = {}
            for p in ("ann", "ben"):
                req = pb.EnqueueRequest(game="fallen", mode="ranked")
                ids[p] = (await stub.Enqueue(req, metadata=md(p))).ticket.ticket_id
            found = {}
            for p, tid in ids.items():
                watch = stub.WatchTicket(pb.WatchTicketRequest(ticket_id=tid), metadata=md(p))
                async with asyncio.timeout(30):
                    async for msg in watch:
                        found[p] = msg.ticket
            # then both are seated in one game that the rules process serves
            assert {t.state for t in found.values()} == {pb.TICKET_STATE_MATCHED}
            assert found["ann"].match.game_id == found["ben"].match.game_id
            assert found["ann"].match.endpoint == rules
            game = await rules_pb2_grpc.RulesServiceStub(rc).GetGame(
                rules_pb2.GetGameRequest(game_id=found["ann"].match.game_id), metadata=md("ann")
            )
            seat_of = {p: t.match.seat for p, t in found.items()}
            assert dict(game.seats) == {seat: p for p, seat in seat_of.items()}
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
