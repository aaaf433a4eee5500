"""Best solo records through the real backend (gRPC, sqlite and redis event stores).

"Record the number of Turns it took you to achieve victory and document whether it was a
Town Health or Prestige Victory. Then, attempt to surpass it in fewer Turns next game."
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from fallen.projections.v1 import projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.bots.driver import play_game
from services.platform.auth import issue_token
from services.platform.store.base import EventStore
from services.rules.land.bot import heuristic
from services.rules.solo_records import note_game_end


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Api:
    rules: rules_pb2_grpc.RulesServiceStub
    views: projections_pb2_grpc.ProjectionServiceStub
    backend: Backend


@pytest.fixture
async def api(event_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Api]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    backend = await serve(event_store, "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Api(
            rules_pb2_grpc.RulesServiceStub(channel),
            projections_pb2_grpc.ProjectionServiceStub(channel),
            backend,
        )
    finally:
        await channel.close()
        await backend.stop()


def _ask(player: str = "ann", variant: str = "solo1", challenge: int = 0, **kw: str):  # type: ignore[no-untyped-def]
    return rules_pb2.GetSoloRecordRequest(
        game=kw.get("game", "land"), player_id=player, variant=variant, challenge=challenge
    )


async def test_a_solo_victory_becomes_the_players_record(api: Api) -> None:
    # given no solo game yet, then there is no record
    got = await api.rules.GetSoloRecord(_ask(""), metadata=md("ann"))
    assert not got.found
    # when ann's bot wins a full Solo Variant I game through the API
    opts = {"variant": "solo1", "max_turns": 40}
    r = await play_game(
        api.rules, api.views, "land", {"p1": "ann"}, {"p1": heuristic}, "rec1", opts, "solo-rec-1"
    )
    assert r.kind in ("prestige", "town_health"), r
    # then GetSoloRecord serves its turns and victory kind (player_id "" = the caller)
    got = await api.rules.GetSoloRecord(_ask(""), metadata=md("ann"))
    assert (got.found, got.turns, got.kind, got.game_id, got.victories) == (
        True,
        r.turns,
        r.kind,
        "solo-rec-1",
        1,
    )
    # and a slower victory later keeps the record, counting the victory
    store = api.backend.store
    slower = {"winners": ["p1"], "kind": "prestige", "turns": r.turns + 5}
    await note_game_end(store, "land", "solo-rec-2", {"p1": "ann"}, ("solo1", 0), slower)
    got = await api.rules.GetSoloRecord(_ask(), metadata=md("ann"))
    assert (got.turns, got.game_id, got.victories) == (r.turns, "solo-rec-1", 2)
    # a faster one replaces it; other variants and challenges are separate records
    faster = {"winners": ["p1"], "kind": "town_health", "turns": r.turns - 1}
    await note_game_end(store, "land", "solo-rec-3", {"p1": "ann"}, ("solo1", 0), faster)
    got = await api.rules.GetSoloRecord(_ask(), metadata=md("ann"))
    assert (got.turns, got.kind, got.game_id) == (r.turns - 1, "town_health", "solo-rec-3")
    got = await api.rules.GetSoloRecord(_ask(variant="solo2", challenge=4), metadata=md("ann"))
    assert not got.found


async def test_a_loss_at_the_turn_limit_is_no_record(api: Api) -> None:
    opts = {"variant": "solo2", "challenge": 4, "max_turns": 1}
    r = await play_game(
        api.rules, api.views, "land", {"p1": "ben"}, {"p1": heuristic}, "rec2", opts, "solo-rec-4"
    )
    assert r.kind == "turn_limit"
    got = await api.rules.GetSoloRecord(_ask("ben", "solo2", 4), metadata=md("ben"))
    assert not got.found


async def _expect(call, code: grpc.StatusCode, *words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    for w in words:
        assert w in err.value.details(), err.value.details()


async def test_bad_record_requests_get_their_status(api: Api) -> None:
    get = api.rules.GetSoloRecord
    bad = grpc.StatusCode.INVALID_ARGUMENT
    await _expect(get(_ask(game="fallen"), metadata=md("ann")), bad, "game")
    await _expect(get(_ask(variant="solo3"), metadata=md("ann")), bad, "variant")
    await _expect(get(_ask(variant="solo1", challenge=2), metadata=md("ann")), bad, "challenge")
    await _expect(get(_ask(variant="solo2", challenge=0), metadata=md("ann")), bad, "challenge")
    await _expect(get(_ask(variant="solo2", challenge=9), metadata=md("ann")), bad, "challenge")
    await _expect(get(_ask("x" * 129), metadata=md("x" * 129)), bad, "player_id")
    # another player's record is theirs to read
    await _expect(get(_ask("ben"), metadata=md("ann")), grpc.StatusCode.PERMISSION_DENIED, "own")
