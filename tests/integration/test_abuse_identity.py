"""Identities on the served backend: provider tokens live in their own namespace, bot seats
are played with service credentials only, anonymous web callers are spectators, and a token
whose kid names a key of another type is refused as unauthenticated."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import jwt
import pytest
from fallen.matchmaking.v1 import matchmaking_pb2 as mm_pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, serve
from services.platform.auth import issue_token
from services.platform.store.sqlite import SqliteEventStore
from tests.support.toy_game import RULES as TOY
from tests.unit.platform.test_identity_provider import AUDIENCE, ISSUER, Keys


@dataclass
class Served:
    backend: Backend
    rules: rules_pb2_grpc.RulesServiceStub
    keys: Keys


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture
async def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Served]:
    """A full backend with an identity provider configured (a JWKS file)."""
    keys = Keys()
    keys.add("k-rs", "RS256")
    keys.add("k-es", "ES256")
    (tmp_path / "jwks.json").write_text(json.dumps(keys.jwks()))
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_JWT_JWKS_URL", raising=False)
    monkeypatch.delenv("FALLEN_JWT_NAMESPACE", raising=False)
    monkeypatch.setenv("FALLEN_JWT_KEY_FILE", str(tmp_path / "jwks.json"))
    monkeypatch.setenv("FALLEN_JWT_ISSUER", ISSUER)
    monkeypatch.setenv("FALLEN_JWT_AUDIENCE", AUDIENCE)
    monkeypatch.setenv("FALLEN_PROJECTIONS", "none")
    backend = await serve(
        SqliteEventStore(tmp_path / "e.db"), "127.0.0.1:0", extra_games={"toy": TOY}
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Served(backend, rules_pb2_grpc.RulesServiceStub(channel), keys)
    finally:
        await channel.close()
        await backend.stop()


async def status_of(call) -> grpc.StatusCode:
    try:
        await call
    except grpc.aio.AioRpcError as err:
        return err.code()
    return grpc.StatusCode.OK


async def test_given_a_bot_seat_when_a_provider_token_names_the_bot_then_it_cannot_play(
    served: Served,
) -> None:
    # given a game the matchmaker made: carol against the bot bot:toy:0
    svc = bearer(issue_token("matchmaking", service=True))
    seats = {"a": "idp:carol", "b": "bot:toy:0"}
    await served.rules.CreateGame(
        rules_pb2.CreateGameRequest(game="toy", game_id="g-bot", seats=seats), metadata=svc
    )
    # when a provider token with sub = the bot's id and one of our player tokens naming it ask
    # for the bot seat's moves
    forged = bearer(served.keys.token("k-rs", sub="bot:toy:0"))
    ask = rules_pb2.ListLegalCommandsRequest(game_id="g-bot", seat="b")
    codes = [await status_of(served.rules.ListLegalCommands(ask, metadata=forged))]
    codes.append(
        await status_of(
            served.rules.ListLegalCommands(ask, metadata=bearer(issue_token("bot:toy:0")))
        )
    )
    # then neither holds the seat: the provider's player is idp:bot:toy:0, and our tokens
    # never name a reserved id; the service (the bots pool) still plays it
    assert codes == [grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED]
    assert (await served.rules.ListLegalCommands(ask, metadata=svc)).version >= 1


async def test_given_a_provider_token_when_it_plays_then_its_player_id_is_namespaced(
    served: Served,
) -> None:
    # given carol signed in with the provider
    carol = bearer(served.keys.token("k-es", sub="carol"))
    # when she creates a game seating herself by her namespaced id
    made = await served.rules.CreateGame(
        rules_pb2.CreateGameRequest(game="toy", seats={"a": "idp:carol", "b": "idp:dave"}),
        metadata=carol,
    )
    # then she holds seat a, and a game seating the bare sub "carol" is not hers
    mine = rules_pb2.ListLegalCommandsRequest(game_id=made.game_id, seat="a")
    assert (await served.rules.ListLegalCommands(mine, metadata=carol)).version >= 1
    code = await status_of(
        served.rules.CreateGame(
            rules_pb2.CreateGameRequest(game="toy", seats={"a": "carol", "b": "dave"}),
            metadata=carol,
        )
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED


async def test_given_a_kid_of_another_key_type_when_calling_then_unauthenticated(
    served: Served,
) -> None:
    # given a token signed RS256 whose kid names the provider's ES256 key
    key, _ = served.keys.private["k-rs"]
    now = int(time.time())
    claims = {"sub": "carol", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 60}
    token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k-es"})
    # when it calls the served API, then it is unauthenticated (not INTERNAL)
    code = await status_of(
        served.rules.ListGames(rules_pb2.ListGamesRequest(), metadata=bearer(token))
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED


async def test_given_no_token_when_reading_ratings_and_modes_then_answered_as_documented(
    served: Served,
) -> None:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{served.backend.port}")
    mm = mm_grpc.MatchmakingServiceStub(channel)
    try:
        # when an anonymous caller lists the modes, a leaderboard and a player's rating
        modes = await mm.ListModes(mm_pb.ListModesRequest())
        board = await mm.Leaderboard(mm_pb.LeaderboardRequest(game="fallen", mode="ranked"))
        rating = await mm.GetRating(
            mm_pb.GetRatingRequest(game="fallen", mode="ranked", player="idp:carol")
        )
        # then each is answered ("anyone", docs/matchmaking.md); its own rating needs a
        # player, and a queue needs a player token
        assert modes.modes and rating.rating.player == "idp:carol" and not board.ratings
        own = await status_of(mm.GetRating(mm_pb.GetRatingRequest(game="fallen", mode="ranked")))
        queue = await status_of(mm.Enqueue(mm_pb.EnqueueRequest(game="fallen", mode="ranked")))
        assert (own, queue) == (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNAUTHENTICATED)
    finally:
        await channel.close()
