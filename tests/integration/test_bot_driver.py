"""Bots play whole games through the full embedded server (all services, one address)."""

from __future__ import annotations

import grpc
from fallen.projections.v1 import projections_pb2_grpc
from fallen.rules.v1 import rules_pb2_grpc

from services.app import serve
from services.bots.driver import play_game
from services.bots.policies import Turn, random_legal
from services.platform.store.sqlite import SqliteEventStore
from tests.support.toy_game import RULES as TOY


async def test_bots_finish_toy_games_through_the_full_backend(tmp_path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    # given the whole backend serving with the toy game registered
    backend = await serve(
        SqliteEventStore(tmp_path / "b.db"), "127.0.0.1:0", extra_games={"toy": TOY}
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            views = projections_pb2_grpc.ProjectionServiceStub(channel)
            policies = {"a": random_legal, "b": random_legal}
            # when bots play three games
            results = [
                await play_game(stub, views, "toy", {"a": "p1", "b": "p2"}, policies, f"s{i}")
                for i in range(3)
            ]
    finally:
        await backend.stop()
    # then every game has a winner, events and a final state hash
    for r in results:
        assert r.winner in ("a", "b")
        assert r.events >= 5
        assert len(r.final_state_hash) == 64
    assert len({r.game_id for r in results}) == 3


class Counting:
    """A stub wrapper counting the RPCs (unary calls and opened streams) made through it."""

    def __init__(self, stub, counts: dict[str, int]) -> None:
        self._stub, self._counts = stub, counts

    def __getattr__(self, name):
        attr = getattr(self._stub, name)

        def call(*args, **kwargs):
            self._counts[name] = self._counts.get(name, 0) + 1
            return attr(*args, **kwargs)

        return call


def first_of_view(turn: Turn) -> int:
    """A policy that reads its seat's view (not view-blind), then picks the first command."""
    assert isinstance(turn.view, dict)
    return 0


async def test_bots_use_at_most_two_rpcs_per_command(tmp_path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    # given the whole backend, and stubs that count every RPC the driver makes
    backend = await serve(
        SqliteEventStore(tmp_path / "c.db"), "127.0.0.1:0", extra_games={"toy": TOY}
    )
    counts: dict[str, int] = {}
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
            stub = Counting(rules_pb2_grpc.RulesServiceStub(channel), counts)
            views = Counting(projections_pb2_grpc.ProjectionServiceStub(channel), counts)
            # one view-blind bot (random) and one that reads its view (any other policy)
            policies = {"a": random_legal, "b": first_of_view}
            # when bots play two games
            for i in range(2):
                await play_game(stub, views, "toy", {"a": "p1", "b": "p2"}, policies, f"r{i}")
    finally:
        await backend.stop()
    # then per command: one SubmitCommand and at most one ListLegalCommands; views are
    # pushed (one WatchView per game for the seat whose bot reads it), never polled
    commands = counts["SubmitCommand"]
    assert commands >= 4
    assert counts.get("ListLegalCommands", 0) <= commands
    assert counts.get("GetView", 0) == 0
    assert counts["WatchView"] == 2 and counts["CreateGame"] == 2
    per_command = sum(
        n for k, n in counts.items() if k not in ("CreateGame", "GetGame", "WatchView")
    )
    assert per_command <= 2 * commands
