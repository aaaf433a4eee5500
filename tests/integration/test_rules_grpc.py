"""The generic rules service through gRPC, driven by a toy engine (a test double)."""

from __future__ import annotations

import functools

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.dice.engine import DiceEngine, dice_stream
from services.dice.service import mount as dice_mount
from services.platform.auth import issue_token
from services.platform.grpcx.server import start_server
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.rules.runner import GameRunner
from services.rules.service import mount as rules_mount
from tests.support.toy_game import RULES as TOY

SEATS = {"a": "alice", "b": "bob"}
DEEP = to_struct({"x": functools.reduce(lambda acc, _: [acc], range(40), 1)})
NAN = to_struct({"x": float("nan")})
WIDE = to_struct({f"k{i}": i for i in range(5000)})


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@pytest.fixture
async def rules(tmp_path, monkeypatch):
    """Yield (stub, store) for dice + rules on a loopback port, with the toy game."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    store = SqliteEventStore(tmp_path / "rules.db")
    dice = DiceEngine(store)
    runner = GameRunner(store, dice, {"toy": TOY})
    running = await start_server([dice_mount(dice), rules_mount(runner)], "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    yield rules_pb2_grpc.RulesServiceStub(channel), store
    await channel.close()
    await running.stop(0)
    await store.close()


async def create(stub, game_id: str = "t1") -> rules_pb2.CreateGameResponse:
    return await stub.CreateGame(
        rules_pb2.CreateGameRequest(game="toy", game_id=game_id, seats=SEATS), metadata=md("alice")
    )


async def expect(code, call, *words):
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    for w in words:
        assert w in (err.value.details() or ""), err.value.details()


async def test_a_full_game_reaches_a_winner_and_reveals_the_seed(rules):
    stub, store = rules
    # given a created game (the deal is answered by chance at once)
    created = await create(stub)
    assert len(created.dice_commitment) == 64
    # when both seats ask for rolls until someone wins
    outcome: dict = {}
    for _ in range(50):
        for seat, player in SEATS.items():
            legal = await stub.ListLegalCommands(
                rules_pb2.ListLegalCommandsRequest(game_id="t1", seat=seat), metadata=md(player)
            )
            if legal.commands:
                resp = await stub.SubmitCommand(
                    rules_pb2.SubmitCommandRequest(
                        game_id="t1",
                        seat=seat,
                        kind=legal.commands[0].kind,
                        command_id=f"{seat}-{legal.version}",
                    ),
                    metadata=md(player),
                )
                outcome = struct_to_py(resp.outcome) if resp.ended else {}
        if outcome:
            break
    # then there is a winner, the game stream ends and the dice seed is revealed
    assert outcome["winner"] in SEATS
    types = [e.type for e in await store.read("game-t1")]
    assert types[0] == "GameCreated" and types[-1] == "GameEnded"
    assert (await store.read(dice_stream("t1")))[-1].type == "DiceSeedRevealed"


async def test_commands_for_another_seat_are_permission_denied_and_append_nothing(rules):
    stub, store = rules
    await create(stub)
    before = await store.version("game-t1")
    req = rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind="ask_roll")
    await expect(grpc.StatusCode.PERMISSION_DENIED, stub.SubmitCommand(req, metadata=md("bob")))
    assert await store.version("game-t1") == before


async def test_out_of_turn_command_is_failed_precondition_with_reason(rules):
    stub, store = rules
    await create(stub)
    before = await store.version("game-t1")
    req = rules_pb2.SubmitCommandRequest(game_id="t1", seat="b", kind="ask_roll")
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.SubmitCommand(req, metadata=md("bob")),
        "waiting for a",
    )
    assert await store.version("game-t1") == before


@pytest.mark.parametrize(
    ("req", "field"),
    [
        (rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind=""), "kind"),
        (
            rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind="ask_roll", args=DEEP),
            "args",
        ),
        (
            rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind="ask_roll", args=NAN),
            "args",
        ),
        (
            rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind="ask_roll", args=WIDE),
            "args",
        ),
        (rules_pb2.SubmitCommandRequest(game_id="t1", seat="z", kind="ask_roll"), "seat"),
        (rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind="jump"), "kind"),
        (rules_pb2.SubmitCommandRequest(game_id="bad id", seat="a", kind="ask_roll"), "game_id"),
    ],
)
async def test_malformed_commands_are_invalid_argument_naming_the_field(rules, req, field):
    stub, store = rules
    await create(stub)
    before = await store.version("game-t1")
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT, stub.SubmitCommand(req, metadata=md("alice")), field
    )
    assert await store.version("game-t1") == before


async def test_stale_expected_version_is_aborted_and_appends_nothing(rules):
    stub, store = rules
    await create(stub)
    before = await store.version("game-t1")
    req = rules_pb2.SubmitCommandRequest(
        game_id="t1", seat="a", kind="ask_roll", expected_version=1
    )
    await expect(
        grpc.StatusCode.ABORTED, stub.SubmitCommand(req, metadata=md("alice")), "expected 1"
    )
    assert await store.version("game-t1") == before


async def test_a_retried_command_id_returns_the_first_result_and_appends_nothing(rules):
    stub, store = rules
    await create(stub)
    req = rules_pb2.SubmitCommandRequest(game_id="t1", seat="a", kind="ask_roll", command_id="c-1")
    first = await stub.SubmitCommand(req, metadata=md("alice"))
    after_first = await store.version("game-t1")
    again = await stub.SubmitCommand(req, metadata=md("alice"))
    assert again.deduplicated and not first.deduplicated
    assert await store.version("game-t1") == after_first


async def test_unknown_game_is_not_found_and_unknown_kind_is_invalid(rules):
    stub, _ = rules
    await expect(
        grpc.StatusCode.NOT_FOUND,
        stub.GetGame(rules_pb2.GetGameRequest(game_id="nope"), metadata=md("alice")),
        "nope",
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateGame(
            rules_pb2.CreateGameRequest(game="chess", seats=SEATS), metadata=md("alice")
        ),
        "game",
    )


async def test_creating_an_existing_game_is_already_exists(rules):
    stub, _ = rules
    await create(stub)
    await expect(grpc.StatusCode.ALREADY_EXISTS, create(stub), "exists")


async def test_a_retry_with_a_now_stale_expected_version_is_deduplicated_not_aborted(rules):
    stub, store = rules
    created = await create(stub)
    # given a command that carried the expected version and moved the game on
    req = rules_pb2.SubmitCommandRequest(
        game_id="t1",
        seat="a",
        kind="ask_roll",
        command_id="c-9",
        expected_version=created.version,
    )
    first = await stub.SubmitCommand(req, metadata=md("alice"))
    assert first.version > created.version
    # when the client retries it unchanged (its answer was lost)
    again = await stub.SubmitCommand(req, metadata=md("alice"))
    # then the retry is recognised, not refused as a version conflict, and appends nothing
    assert again.deduplicated and again.version == first.version
    assert await store.version("game-t1") == first.version
    # while another command with that stale version is still a conflict
    other = rules_pb2.SubmitCommandRequest(
        game_id="t1", seat="a", kind="ask_roll", command_id="c-10", expected_version=1
    )
    await expect(grpc.StatusCode.ABORTED, stub.SubmitCommand(other, metadata=md("alice")))
