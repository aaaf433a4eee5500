"""CreateGame refuses bad options and seat counts the same way for every game: an unknown
option is INVALID_ARGUMENT naming it, a wrong set of seats is INVALID_ARGUMENT on seats."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from google.protobuf.struct_pb2 import Struct

from services.app import serve
from services.platform.auth import issue_token
from services.platform.store.sqlite import SqliteEventStore
from services.rules.registry import ENGINES, load


@pytest.fixture
async def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[object]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_PROJECTIONS", "none")
    backend = await serve(SqliteEventStore(tmp_path / "e.db"), "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield rules_pb2_grpc.RulesServiceStub(channel)
    finally:
        await channel.close()
        await backend.stop()


async def refusal(stub, game: str, seats: dict[str, str], options: dict) -> tuple[str, str]:
    struct = Struct()
    struct.update(options)
    svc = (("authorization", f"Bearer {issue_token('matchmaking', service=True)}"),)
    req = rules_pb2.CreateGameRequest(game=game, seats=seats, options=struct)
    try:
        await stub.CreateGame(req, metadata=svc)
    except grpc.aio.AioRpcError as err:
        return err.code().name, err.details() or ""
    return "OK", ""


@pytest.mark.parametrize("game", sorted(ENGINES))
async def test_given_each_game_when_options_or_seats_are_wrong_then_one_behaviour(rules, game):
    seats = list(load(game).seats)
    full = {s: f"p{i}" for i, s in enumerate(seats)}
    # when a game is asked with an option it does not know, with one seat, and with a
    # seat it does not have
    unknown = await refusal(rules, game, full, {"zzz_option": 1})
    one_seat = await refusal(rules, game, {seats[0]: "p0"}, {})
    extra = await refusal(rules, game, {**full, "nope": "px"}, {})
    # then each is INVALID_ARGUMENT naming the field
    assert unknown[0] == "INVALID_ARGUMENT" and "options.zzz_option" in unknown[1]
    assert one_seat[0] == "INVALID_ARGUMENT" and one_seat[1].startswith("seats")
    assert extra[0] == "INVALID_ARGUMENT" and extra[1].startswith("seats")
