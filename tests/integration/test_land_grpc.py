"""Fallen Land through the real backend (gRPC, in process): bots finish a game; bad input is
refused with the right status and appends nothing."""

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
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.rules.land import RULES
from services.rules.land.bot import heuristic
from services.rules.runner import fold

SEATS = {"p1": "ann", "p2": "ben", "p3": "cat"}
QUICK = {"short_game": True, "max_turns": 1}


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Api:
    rules: rules_pb2_grpc.RulesServiceStub
    views: projections_pb2_grpc.ProjectionServiceStub
    backend: Backend


@pytest.fixture
async def api(tmp_path, monkeypatch) -> AsyncIterator[Api]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    backend = await serve(SqliteEventStore(tmp_path / "land.db"), "127.0.0.1:0")
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


async def test_heuristic_bots_finish_a_land_game_and_replay_matches(api: Api) -> None:
    policies = {s: heuristic for s in SEATS}
    # when three heuristic bots play a short game through the API (decks in the deck service)
    r = await play_game(api.rules, api.views, "land", SEATS, policies, "g1", QUICK, "landbots")
    # then it ends with a victory kind, and folding the stored log gives its hash
    assert r.kind in ("prestige", "town_health", "tiebreak", "turn_limit")
    envs = await api.backend.store.read("game-landbots", 1)
    state = fold(RULES, envs[1:])
    assert RULES.state_hash(state) == r.final_state_hash
    # and a winner: one seat, or several sharing a tie-break ("then shared win", about 1 short
    # game in 60 with these bots), joined with commas
    winners = RULES.outcome(state)["winners"]
    assert winners and set(winners) <= set(SEATS)
    assert r.winner == ",".join(winners)


async def _version(api: Api, gid: str) -> int:
    got = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md("ann"))
    return got.version


async def _expect(call, code: grpc.StatusCode, *words: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    for w in words:
        assert w in err.value.details(), err.value.details()


async def test_every_bad_input_gets_its_status_and_changes_nothing(api: Api) -> None:
    create = api.rules.CreateGame
    # malformed creations: seat count, unknown option
    bad_seats = rules_pb2.CreateGameRequest(game="land", game_id="l1", seats={"p1": "ann"})
    await _expect(create(bad_seats, metadata=md("ann")), grpc.StatusCode.INVALID_ARGUMENT, "seats")
    bad_opt = rules_pb2.CreateGameRequest(
        game="land", game_id="l2", seats=SEATS, options=to_struct({"speed": 2})
    )
    await _expect(create(bad_opt, metadata=md("ann")), grpc.StatusCode.INVALID_ARGUMENT, "speed")
    req = rules_pb2.CreateGameRequest(
        game="land", game_id="l3", seats=SEATS, options=to_struct(QUICK)
    )
    await create(req, metadata=md("ann"))
    got = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id="l3"), metadata=md("ann"))
    seat, player = got.waiting_for, SEATS[got.waiting_for]
    other = next(p for s, p in SEATS.items() if s != seat)
    before = got.version
    legal = await api.rules.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id="l3", seat=seat), metadata=md(player)
    )
    good = legal.commands[0]

    def submit(kind: str, args: dict, who: str = player, as_seat: str = seat, version: int = 0):
        return api.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id="l3",
                seat=as_seat,
                kind=kind,
                args=to_struct(args),
                expected_version=version,
            ),
            metadata=md(who),
        )

    await _expect(submit("fly", {}), grpc.StatusCode.INVALID_ARGUMENT, "kind")
    await _expect(submit("deed", {"deed": 3}), grpc.StatusCode.INVALID_ARGUMENT, "args.deed")
    await _expect(
        submit(good.kind, struct_to_py(good.args), who=other), grpc.StatusCode.PERMISSION_DENIED
    )
    await _expect(submit("end", {}), grpc.StatusCode.FAILED_PRECONDITION)
    await _expect(
        submit(good.kind, struct_to_py(good.args), version=before - 1), grpc.StatusCode.ABORTED
    )
    await _expect(
        api.rules.GetGame(rules_pb2.GetGameRequest(game_id="nope"), metadata=md("ann")),
        grpc.StatusCode.NOT_FOUND,
    )
    # then nothing was appended by any refusal
    assert await _version(api, "l3") == before
    # and the legal command itself is accepted
    await submit(good.kind, struct_to_py(good.args), version=before)
    assert await _version(api, "l3") > before


async def test_solo2_pvp_option_2_is_created_played_and_bounded(api: Api) -> None:
    # "Below are two different options for players for PVP. Option 1 is easier and Option 2 is
    # advanced": option 2 (a PVP Party) is a creation option; anything else is refused
    solo = {"p1": "ann"}
    opts = {"variant": "solo2", "challenge": 4, "pvp_option": 2, "max_turns": 3}
    bad = rules_pb2.CreateGameRequest(
        game="land", game_id="lp0", seats=solo, options=to_struct({**opts, "pvp_option": 3})
    )
    await _expect(
        api.rules.CreateGame(bad, metadata=md("ann")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "pvp_option",
    )
    # when the heuristic bot plays an Ultimate-challenge game with option 2 through the API
    policies = {"p1": heuristic}
    r = await play_game(api.rules, api.views, "land", solo, policies, "g1", opts, "landpvp2")
    # then it ends, and folding the stored log gives its hash
    assert r.kind in ("prestige", "town_health", "turn_limit")
    envs = await api.backend.store.read("game-landpvp2", 1)
    state = fold(RULES, envs[1:])
    assert RULES.state_hash(state) == r.final_state_hash
    assert state.var("options")["pvp_option"] == 2
    # and every PVP Party that entered has fought and left, or is still in play at the end
    types = [e.type for e in envs]
    still = len(state.var("pvp_parties", []))
    assert types.count("pvp_party_entered") == types.count("pvp_party_left") + still
