"""Fallen Worlds through gRPC (all services embedded): bad decks by name, every bad-input status."""

from __future__ import annotations

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import serve
from services.platform.auth import issue_token
from services.platform.grpcx.structs import to_struct
from services.platform.store.sqlite import SqliteEventStore

SEATS = {"p1": "alice", "p2": "bob"}
PLAYER = {"p1": "alice", "p2": "bob"}


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@pytest.fixture
async def stub(tmp_path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    store = SqliteEventStore(tmp_path / "w.db")
    backend = await serve(store, "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    yield rules_pb2_grpc.RulesServiceStub(channel)
    await channel.close()
    await backend.stop()


async def expect(code, call, *words):
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    for w in words:
        assert w in (err.value.details() or ""), err.value.details()


async def test_a_bad_deck_is_refused_naming_the_card_and_creates_nothing(stub):
    decks = {"p1": "uea", "p2": {"uea_marine": 2, "dae_vorhaal": 2}}
    req = rules_pb2.CreateGameRequest(
        game="worlds", game_id="bad", seats=SEATS, options=to_struct({"decks": decks})
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.CreateGame(req, metadata=md("alice")),
        "options.decks.p2",
        "dae_vorhaal",
    )
    await expect(
        grpc.StatusCode.NOT_FOUND,
        stub.GetGame(rules_pb2.GetGameRequest(game_id="bad"), metadata=md("alice")),
    )


async def test_every_bad_input_status_and_nothing_appended(stub):
    # given a game with starter decks, waiting for one seat
    decks = {"p1": "keebo", "p2": ["uea_marine"] * 5}
    await stub.CreateGame(
        rules_pb2.CreateGameRequest(
            game="worlds", game_id="w1", seats=SEATS, options=to_struct({"decks": decks})
        ),
        metadata=md("alice"),
    )
    game = await stub.GetGame(rules_pb2.GetGameRequest(game_id="w1"), metadata=md("alice"))
    seat = game.waiting_for
    assert seat in SEATS
    other = "p2" if seat == "p1" else "p1"
    legal = await stub.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id="w1", seat=seat), metadata=md(PLAYER[seat])
    )
    assert legal.commands and legal.version == game.version

    def submit(s: str, kind: str, args: dict, version: int = 0):
        return rules_pb2.SubmitCommandRequest(
            game_id="w1", seat=s, kind=kind, args=to_struct(args), expected_version=version
        )

    # wrong player for the seat
    await expect(
        grpc.StatusCode.PERMISSION_DENIED,
        stub.SubmitCommand(submit(seat, "done", {}), metadata=md(PLAYER[other])),
    )
    # the other seat out of turn
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.SubmitCommand(submit(other, "done", {}), metadata=md(PLAYER[other])),
    )
    # malformed: unknown kind, wrong field type, unexpected field
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SubmitCommand(submit(seat, "fly", {}), metadata=md(PLAYER[seat])),
        "kind",
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SubmitCommand(submit(seat, "deploy", {"card": 3}), metadata=md(PLAYER[seat])),
        "args.card",
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.SubmitCommand(submit(seat, "done", {"x": "1"}), metadata=md(PLAYER[seat])),
        "args.x",
    )
    # well formed but not legal now: a card not in hand
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.SubmitCommand(
            submit(seat, "deploy", {"card": "ns_gloom_rat"}), metadata=md(PLAYER[seat])
        ),
    )
    # a stale expected version
    await expect(
        grpc.StatusCode.ABORTED,
        stub.SubmitCommand(submit(seat, "done", {}, version=1), metadata=md(PLAYER[seat])),
    )
    after = await stub.GetGame(rules_pb2.GetGameRequest(game_id="w1"), metadata=md("alice"))
    assert after.version == game.version
    # and a listed command is accepted
    first = legal.commands[0]
    done = await stub.SubmitCommand(
        rules_pb2.SubmitCommandRequest(
            game_id="w1",
            seat=seat,
            kind=first.kind,
            args=first.args,
            expected_version=legal.version,
        ),
        metadata=md(PLAYER[seat]),
    )
    assert done.version > game.version
