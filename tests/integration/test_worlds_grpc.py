"""Fallen Worlds through gRPC (all services embedded): bad decks by name, every bad-input status."""

from __future__ import annotations

import grpc
import pytest
from fallen.projections.v1 import projections_pb2 as ppb
from fallen.projections.v1 import projections_pb2_grpc as ppb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import serve
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import MAX_DECK_ENTRIES

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


@pytest.fixture
async def served(tmp_path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    store = SqliteEventStore(tmp_path / "lib.db")
    backend = await serve(store, "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    yield rules_pb2_grpc.RulesServiceStub(channel), ppb_grpc.ProjectionServiceStub(channel)
    await channel.close()
    await backend.stop()


async def test_a_400_card_library_is_dealt_and_an_oversized_request_is_refused(served):
    # "there is no limit to the size of your Library (minimum or maximum)"
    rules, projections = served
    # given p1 brings 400 cards (no card over five copies) as a list of card ids
    big = [c.id for c in catalog().cards.values() if not c.special for _ in range(5)][:400]
    created = await rules.CreateGame(
        rules_pb2.CreateGameRequest(
            game="worlds",
            game_id="big",
            seats=SEATS,
            options=to_struct({"decks": {"p1": big, "p2": "uea"}}),
        ),
        metadata=md("alice"),
    )
    # then the game starts: the deck service dealt p1 its hand, the rest wait face down
    view = await projections.GetView(
        ppb.GetViewRequest(game_id="big", seat="p1", min_version=created.version, wait_ms=10_000),
        metadata=md("alice"),
    )
    p1 = struct_to_py(view.view)["sides"]["p1"]
    assert len(p1["hand"]) >= 5 and p1["library"] + len(p1["hand"]) == 400
    assert set(p1["hand"]) <= set(big)
    # given a request whose deck option lists more entries than the documented bound
    over = ["uea_marine"] * (MAX_DECK_ENTRIES + 1)
    req = rules_pb2.CreateGameRequest(
        game="worlds", game_id="over", seats=SEATS, options=to_struct({"decks": {"p1": over}})
    )
    # then it is refused as bad input naming the field and the bound, and nothing is created
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        rules.CreateGame(req, metadata=md("alice")),
        "options.decks.p1",
        f"more than {MAX_DECK_ENTRIES} entries",
    )
    await expect(
        grpc.StatusCode.NOT_FOUND,
        rules.GetGame(rules_pb2.GetGameRequest(game_id="over"), metadata=md("alice")),
    )
