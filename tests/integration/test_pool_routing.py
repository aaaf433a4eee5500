"""A game's rules pool, named by CreateGame / GetGame and echoed by the client (PoolRouting)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import serve
from services.platform.auth import issue_token
from services.platform.grpcx.pool_routing import PoolRouting
from services.platform.store.sqlite import SqliteEventStore
from services.rules.pools import POOL_HEADER


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@pytest.fixture
async def target(tmp_path, monkeypatch) -> AsyncIterator[str]:
    """Yield the address of every service in one server, as `make run` serves them."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    backend = await serve(SqliteEventStore(tmp_path / "events.db"), "127.0.0.1:0")
    yield f"127.0.0.1:{backend.port}"
    await backend.stop()


SIX = {f"p{i}": f"player{i}" for i in range(1, 7)}
TWO = {"hero": "alice", "dungeon_lord": "bob"}


@pytest.mark.parametrize(
    ("game", "seats", "pool"),
    [("land", SIX, "rules-land-epic"), ("land", dict(list(SIX.items())[:3]), "rules-land"),
     ("fallen", TWO, "rules-fallen")],
)  # fmt: skip
async def test_create_and_get_name_the_pool_in_the_answer_and_its_header(
    target: str, game: str, seats: dict[str, str], pool: str
):
    # given a client of the one address
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        player = md(next(iter(seats.values())))
        # when it creates a game and reads it
        call = stub.CreateGame(
            rules_pb2.CreateGameRequest(game=game, seats=seats, options=None), metadata=player
        )
        created = await call
        header = dict(await call.initial_metadata())
        got_call = stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id), metadata=player)
        got = await got_call
        # then both name the pool of the game kind and seat count, in the field and header
        assert created.pool == got.pool == pool
        assert header[POOL_HEADER] == pool
        assert dict(await got_call.initial_metadata())[POOL_HEADER] == pool


async def test_the_client_echoes_the_pool_create_game_named(target: str):
    # given a PoolRouting channel whose default pool is not the game's
    routing = PoolRouting("rules-land")
    async with grpc.aio.insecure_channel(target, interceptors=[routing]) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        # when it creates an Epic (6-seat) game
        created = await stub.CreateGame(
            rules_pb2.CreateGameRequest(game="land", seats=SIX), metadata=md("player1")
        )
        # then it sends that game's pool from then on, and the default for other games
        assert routing.pool_of(created.game_id) == "rules-land-epic"
        assert routing.pool_of("another") == "rules-land"


class Recorder:
    """A continuation that records the metadata of the call it is given."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    async def __call__(self, details: grpc.aio.ClientCallDetails, request: Any) -> Any:
        self.sent = list(details.metadata or ())
        return Answer()


class Answer:
    async def initial_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()


def details(method: str, metadata: tuple[tuple[str, str], ...]) -> grpc.aio.ClientCallDetails:
    return grpc.aio.ClientCallDetails(method, None, grpc.aio.Metadata(*metadata), None, None)


async def test_the_pool_goes_with_rules_calls_only_and_a_pool_the_caller_set_wins():
    # given a routing that knows one game's pool
    routing = PoolRouting("rules-fallen")
    routing.pools["g1"] = "rules-land-epic"
    rec = Recorder()
    rules = "/fallen.rules.v1.RulesService/SubmitCommand"
    views = "/fallen.projections.v1.ProjectionService/GetView"
    # when calls go out: a rules call on that game, on another, a read, one with its own pool
    await routing.intercept_unary_unary(
        rec, details(rules, ()), rules_pb2.GetGameRequest(game_id="g1")
    )
    known = rec.sent
    await routing.intercept_unary_unary(
        rec, details(rules, ()), rules_pb2.GetGameRequest(game_id="g2")
    )
    unknown = rec.sent
    await routing.intercept_unary_unary(
        rec, details(views, ()), rules_pb2.GetGameRequest(game_id="g1")
    )
    read = rec.sent
    own = ((POOL_HEADER, "rules-worlds"),)
    await routing.intercept_unary_unary(
        rec, details(rules, own), rules_pb2.GetGameRequest(game_id="g1")
    )
    # then each carries the right pool, and only rules calls carry one
    assert (POOL_HEADER, "rules-land-epic") in known
    assert (POOL_HEADER, "rules-fallen") in unknown
    assert all(key != POOL_HEADER for key, _ in read)
    assert [v for k, v in rec.sent if k == POOL_HEADER] == ["rules-worlds"]
