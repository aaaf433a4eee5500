"""The seed gate through the served API: no chance before every seat has given its seed."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.dice.engine import dice_stream
from services.platform.auth import issue_token
from services.platform.games import game_stream
from services.platform.grpcx.structs import to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.projections.cli import rules_of
from tests.support.fair_verifier import rederive

MAX_COMMANDS = 4000


def md(player: str, service: bool = False) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, service=service)}"),)


def svc() -> tuple[tuple[str, str], ...]:
    return md("gate-test", service=True)


@dataclass(frozen=True)
class Case:
    game: str
    seats: dict[str, str]
    options: dict[str, Any]


CASES = {
    "fallen": Case("fallen", {"hero": "alice", "dungeon_lord": "bob"}, {}),
    "worlds": Case(
        "worlds", {"p1": "alice", "p2": "bob"}, {"decks": {"p1": "keebo", "p2": "keebo"}}
    ),
    "land3": Case("land", {f"p{i}": f"pl{i}" for i in range(1, 4)}, {"max_turns": 2}),
    "land6": Case("land", {f"p{i}": f"pl{i}" for i in range(1, 7)}, {"max_turns": 2}),
    "land_solo": Case("land", {"p1": "ann"}, {"variant": "solo1", "max_turns": 2}),
}


@dataclass
class Api:
    rules: rules_pb2_grpc.RulesServiceStub
    dice: dice_pb2_grpc.DiceServiceStub
    store: SqliteEventStore
    backend: Backend


@pytest.fixture
async def api(tmp_path, monkeypatch) -> AsyncIterator[Api]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_SEED_WAIT_S", "600")  # the deadline is far: only seeds open it
    store = SqliteEventStore(tmp_path / "gate.db")
    backend = await serve(store, "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Api(
            rules_pb2_grpc.RulesServiceStub(channel),
            dice_pb2_grpc.DiceServiceStub(channel),
            store,
            backend,
        )
    finally:
        await channel.close()
        await backend.stop()


async def create(api: Api, case: Case, gid: str) -> rules_pb2.CreateGameResponse:
    creator = next(iter(case.seats.values()))
    req = rules_pb2.CreateGameRequest(
        game=case.game, game_id=gid, seats=case.seats, options=to_struct(case.options)
    )
    return await api.rules.CreateGame(req, metadata=md(creator))


async def set_seed(api: Api, case: Case, gid: str, seat: str, seed: str):
    req = dice_pb2.SetClientSeedRequest(game_id=gid, seat=seat, client_seed=seed)
    return await api.dice.SetClientSeed(req, metadata=md(case.seats[seat]))


async def play_to_end(api: Api, gid: str) -> None:
    """Play the first legal command of the waiting seat until the game ends (service token)."""
    for step in range(MAX_COMMANDS):
        game = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=svc())
        if game.ended:
            return
        legal = await api.rules.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=game.waiting_for),
            metadata=svc(),
        )
        pick = int(hashlib.sha256(f"{gid}:{step}".encode()).hexdigest(), 16)
        cmd = legal.commands[pick % len(legal.commands)]
        await api.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=gid, seat=game.waiting_for, kind=cmd.kind, args=cmd.args
            ),
            metadata=svc(),
        )
    raise AssertionError(f"{gid} did not end within {MAX_COMMANDS} commands")


async def draws(api: Api, gid: str) -> list[Any]:
    return [
        e
        for e in await api.store.read(dice_stream(gid), 1)
        if e.type.startswith("DiceRolled") or e.type == "DiceShuffleDrawn"
    ]


@pytest.mark.parametrize("name", sorted(CASES))
async def test_chance_waits_for_every_seat_then_the_game_plays_and_verifies(api: Api, name):
    case = CASES[name]
    gid = f"gate-{name}"
    # given a game just created by its first player, who gave no seed
    created = await create(api, case, gid)
    # then it waits for every seat's seed: nothing drawn, no deck formed, no first player
    assert sorted(created.awaiting_seeds) == sorted(case.seats)
    assert created.seed_deadline
    game = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=svc())
    assert game.waiting_for == "chance" and sorted(game.awaiting_seeds) == sorted(case.seats)
    assert await draws(api, gid) == []
    game_events = [e.type for e in await api.store.read(game_stream(gid), 1)]
    # and a command is refused while it waits, naming the seats
    seat0 = next(iter(case.seats))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await api.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(game_id=gid, seat=seat0, kind="anything"),
            metadata=md(case.seats[seat0]),
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "waiting for client seeds" in (err.value.details() or "")
    # when every seat but the last gives its seed, still nothing is drawn
    seats = sorted(case.seats)
    for seat in seats[:-1]:
        answer = await set_seed(api, case, gid, seat, f"seed-of-{seat}")
        assert seat not in answer.awaiting
        assert await draws(api, gid) == []
    # when the last seat gives its seed, the game starts
    last = await set_seed(api, case, gid, seats[-1], f"seed-of-{seats[-1]}")
    assert list(last.awaiting) == []
    game = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=svc())
    assert game.waiting_for in case.seats and list(game.awaiting_seeds) == []
    assert [e.type for e in await api.store.read(game_stream(gid), 1)][: len(game_events)] == (
        game_events
    )
    # then every draw uses every seat's seed, in seat order
    combined = ";".join(f"{s}=seed-of-{s}" for s in seats)
    assert {e.data["client_seed"] for e in await draws(api, gid)} == {combined}
    # and the game plays to the end, verifies, and re-derives from the docs alone
    await play_to_end(api, gid)
    records = await store_records(api.store, gid)
    report = verify_game(gid, records, rules_of)
    assert report.verified, report.to_dict()
    checked = rederive(gid, records)
    assert checked.draws == len(await draws(api, gid)) and checked.draws > 0
    assert checked.seats == tuple(seats)
