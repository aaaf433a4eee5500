"""The rules runner reads old event payload versions through the engine's upcasters."""

from __future__ import annotations

from services.dice.engine import DiceEngine
from services.platform.envelope import NewEvent
from services.platform.store.sqlite import SqliteEventStore
from services.rules.runner import GameRunner
from tests.support.toy_game import ToyRules


class ToyV2(ToyRules):
    """The toy game after a breaking change: Rolled v1 said {"who", "pips"}."""

    upcasters = {("Rolled", 1): lambda d: {"seat": d["who"], "value": d["pips"]}}


async def test_given_a_log_with_v1_payloads_when_loaded_then_they_fold_as_v2(tmp_path):
    # given a stored game whose Rolled events are in the old v1 shape
    store = SqliteEventStore(tmp_path / "u.db")
    toy = ToyV2()
    runner = GameRunner(store, DiceEngine(store), {"toy": toy})
    await store.append(
        "game-u1",
        0,
        [
            NewEvent("GameCreated", {"game": "toy", "seats": {"a": "p", "b": "q"}}),
            NewEvent("ToyStarted", {}),
            NewEvent("CardDealt", {"seat": "a", "card": "card.ace"}, ["a"]),
            NewEvent("CardDealt", {"seat": "b", "card": "card.king"}, ["b"]),
            NewEvent("Rolled", {"who": "a", "pips": 5}, schema_version=1),
        ],
    )
    # when the runner loads it
    loaded = await runner.load("u1")
    # then the old payload was upcast before the engine saw it
    assert loaded.state.rolls == (("a", 5),)
    assert loaded.state.turn == "b"
    await store.close()
