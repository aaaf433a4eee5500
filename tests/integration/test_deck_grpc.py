"""DeckService through a real grpc.aio server: every RPC and every bad input."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from fallen.deck.v1 import deck_pb2 as pb
from fallen.deck.v1 import deck_pb2_grpc

from services.deck.engine import DeckEngine, deck_stream
from services.deck.service import mount
from services.dice.engine import DiceEngine, dice_stream
from services.platform.auth import issue_token
from services.platform.envelope import NewEvent
from services.platform.games import GAME_CREATED, game_stream
from services.platform.grpcx.server import start_server
from services.platform.store.sqlite import SqliteEventStore

GAME = "g1"
SECRET = "deck-integration-test-secret-0123456789abcdef"
CARDS = [f"creature.l{i % 3}.{i}" for i in range(12)]
Code = grpc.StatusCode


@dataclass
class Backend:
    """A running deck server, its store and a stub, with tokens for each kind of caller."""

    store: SqliteEventStore
    stub: deck_pb2_grpc.DeckServiceStub
    service: str
    player1: str
    player2: str

    def auth(self, token: str | None) -> tuple[tuple[str, str], ...]:
        """Return call metadata carrying token (none when token is None)."""
        return () if token is None else (("authorization", f"Bearer {token}"),)

    async def versions(self) -> tuple[int, int]:
        """Return the versions of the deck and dice streams of the game."""
        return (
            await self.store.version(deck_stream(GAME)),
            await self.store.version(dice_stream(GAME)),
        )


@pytest.fixture
async def backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Backend]:
    """Yield a deck server on 127.0.0.1 with game g1 set up: a deck, a pile and two hands."""
    monkeypatch.setenv("FALLEN_JWT_SECRET", SECRET)
    monkeypatch.delenv("FALLEN_DEV", raising=False)
    store = SqliteEventStore(tmp_path / "events.db")
    seats = {"hero": "player1", "dungeon_lord": "player2"}
    await store.append(game_stream(GAME), 0, [NewEvent(GAME_CREATED, {"seats": seats})])
    dice = DiceEngine(store)
    await dice.commit_seed(GAME)
    running = await start_server([mount(DeckEngine(store, dice))], "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    b = Backend(
        store,
        deck_pb2_grpc.DeckServiceStub(channel),
        issue_token("service:rules", service=True),
        issue_token("player1"),
        issue_token("player2"),
    )
    md = b.auth(b.service)
    deck = pb.CreateZoneRequest(game_id=GAME, zone="deck", kind=pb.ZONE_KIND_DECK, cards=CARDS)
    await b.stub.CreateZone(deck, metadata=md)
    await b.stub.CreateZone(
        pb.CreateZoneRequest(game_id=GAME, zone="discard", kind=pb.ZONE_KIND_PILE), metadata=md
    )
    for seat in seats:
        req = pb.CreateZoneRequest(
            game_id=GAME, zone=f"hand.{seat}", kind=pb.ZONE_KIND_HAND, owner=seat
        )
        await b.stub.CreateZone(req, metadata=md)
    try:
        yield b
    finally:
        await channel.close()
        await running.stop(0)
        await store.close()


async def test_every_rpc_works_for_its_caller(backend: Backend) -> None:
    b, md = backend, backend.auth(backend.service)
    created = await b.stub.CreateZone(
        pb.CreateZoneRequest(
            game_id=GAME, zone="deck2", kind=pb.ZONE_KIND_DECK, cards=CARDS[:5], shuffle=True
        ),
        metadata=md,
    )
    assert created.count == 5 and created.version == (await b.versions())[0]
    shuffled = await b.stub.Shuffle(pb.ShuffleRequest(game_id=GAME, zone="deck"), metadata=md)
    assert shuffled.nonce == 1

    draw = pb.DrawRequest(game_id=GAME, zone="deck", seat="hero", count=3, command_id="c1")
    drawn = await b.stub.Draw(draw, metadata=md)
    assert len(drawn.cards) == 3 and set(drawn.cards) <= set(CARDS)
    again = await b.stub.Draw(draw, metadata=md)
    assert list(again.cards) == list(drawn.cards) and again.version == drawn.version

    hand = await b.stub.GetHand(
        pb.GetHandRequest(game_id=GAME, seat="hero"), metadata=b.auth(b.player1)
    )
    assert list(hand.cards) == list(drawn.cards)

    put = await b.stub.PutCard(
        pb.PutCardRequest(
            game_id=GAME,
            card=drawn.cards[0],
            from_zone="hand.hero",
            to_zone="deck",
            position=pb.POSITION_BOTTOM,
        ),
        metadata=md,
    )
    assert put.count == 10
    discarded = await b.stub.Discard(
        pb.DiscardRequest(game_id=GAME, card=drawn.cards[1], from_zone="hand.hero", pile="discard"),
        metadata=md,
    )
    assert discarded.count == 1
    count = await b.stub.Count(pb.CountRequest(game_id=GAME, zone="hand.hero"), metadata=md)
    assert count.count == 1

    found = await b.stub.Search(
        pb.SearchRequest(
            game_id=GAME, zone="deck", seat="dungeon_lord", id_prefix="creature.l1.", limit=2,
            shuffle_after=True,
        ),
        metadata=md,
    )  # fmt: skip
    assert len(found.cards) == 2 and all(c.startswith("creature.l1.") for c in found.cards)
    dl_hand = await b.stub.GetHand(
        pb.GetHandRequest(game_id=GAME, seat="dungeon_lord"), metadata=b.auth(b.player2)
    )
    assert list(dl_hand.cards) == list(found.cards)

    re = await b.stub.ReshuffleDiscard(
        pb.ReshuffleDiscardRequest(game_id=GAME, pile="discard", zone="deck"), metadata=md
    )
    assert re.count == 9 and re.nonce == 3 and re.version == (await b.versions())[0]
    count = await b.stub.Count(pb.CountRequest(game_id=GAME, zone="discard"), metadata=md)
    assert count.count == 0


async def test_no_seat_visible_event_carries_the_deck_order(backend: Backend) -> None:
    b, md = backend, backend.auth(backend.service)
    await b.stub.Shuffle(pb.ShuffleRequest(game_id=GAME, zone="deck"), metadata=md)
    events = await b.store.read(deck_stream(GAME))
    (shuffled,) = [e for e in events if e.type == "DeckShuffled"]
    assert shuffled.visibility == "nobody"
    for env in events:
        if env.visibility != "nobody":
            assert shuffled.data["after"] not in env.data.values()


SERVICE, PLAYER1, NONE, GARBAGE, FOREIGN = "service", "player1", "none", "garbage", "foreign"

BAD: list[tuple[str, str, Any, str, Code, str]] = [
    # (id, method, request, caller, code, field named in the message)
    ("draw-too-many", "Draw", pb.DrawRequest(game_id=GAME, zone="deck", seat="hero", count=13),
     SERVICE, Code.FAILED_PRECONDITION, ""),
    ("draw-from-pile", "Draw", pb.DrawRequest(game_id=GAME, zone="discard", seat="hero", count=1),
     SERVICE, Code.FAILED_PRECONDITION, ""),
    ("shuffle-empty-pile", "Shuffle", pb.ShuffleRequest(game_id=GAME, zone="discard"),
     SERVICE, Code.FAILED_PRECONDITION, ""),
    ("reshuffle-empty", "ReshuffleDiscard",
     pb.ReshuffleDiscardRequest(game_id=GAME, pile="discard", zone="hand.hero"),
     SERVICE, Code.FAILED_PRECONDITION, ""),
    ("discard-to-deck", "Discard",
     pb.DiscardRequest(game_id=GAME, card=CARDS[0], from_zone="deck", pile="deck"),
     SERVICE, Code.FAILED_PRECONDITION, ""),
    ("zone-exists", "CreateZone",
     pb.CreateZoneRequest(game_id=GAME, zone="deck", kind=pb.ZONE_KIND_PILE),
     SERVICE, Code.ALREADY_EXISTS, ""),
    ("unknown-game-create", "CreateZone",
     pb.CreateZoneRequest(game_id="nope", zone="deck", kind=pb.ZONE_KIND_DECK, cards=["a"]),
     SERVICE, Code.NOT_FOUND, ""),
    ("unknown-game-draw", "Draw", pb.DrawRequest(game_id="nope", zone="deck", seat="hero", count=1),
     SERVICE, Code.NOT_FOUND, ""),
    ("unknown-deck-draw", "Draw", pb.DrawRequest(game_id=GAME, zone="deck9", seat="hero", count=1),
     SERVICE, Code.NOT_FOUND, ""),
    ("unknown-deck-shuffle", "Shuffle", pb.ShuffleRequest(game_id=GAME, zone="deck9"),
     SERVICE, Code.NOT_FOUND, ""),
    ("unknown-zone-count", "Count", pb.CountRequest(game_id=GAME, zone="deck9"),
     SERVICE, Code.NOT_FOUND, ""),
    ("unknown-card", "PutCard",
     pb.PutCardRequest(game_id=GAME, card="x", from_zone="deck", to_zone="discard",
                       position=pb.POSITION_TOP),
     SERVICE, Code.NOT_FOUND, ""),
    ("unknown-game-hand", "GetHand", pb.GetHandRequest(game_id="nope", seat="hero"),
     PLAYER1, Code.NOT_FOUND, ""),
    ("no-hand", "Search",
     pb.SearchRequest(game_id=GAME, zone="deck", seat="spectator", id_prefix="c", limit=1),
     SERVICE, Code.NOT_FOUND, ""),
    ("empty-game-id", "Count", pb.CountRequest(game_id="", zone="deck"),
     SERVICE, Code.INVALID_ARGUMENT, "game_id"),
    ("bad-game-id", "Shuffle", pb.ShuffleRequest(game_id="a b", zone="deck"),
     SERVICE, Code.INVALID_ARGUMENT, "game_id"),
    ("bad-zone", "CreateZone",
     pb.CreateZoneRequest(game_id=GAME, zone="a zone", kind=pb.ZONE_KIND_DECK),
     SERVICE, Code.INVALID_ARGUMENT, "zone"),
    ("no-kind", "CreateZone", pb.CreateZoneRequest(game_id=GAME, zone="z"),
     SERVICE, Code.INVALID_ARGUMENT, "kind"),
    ("bad-kind", "CreateZone", pb.CreateZoneRequest(game_id=GAME, zone="z", kind=99),
     SERVICE, Code.INVALID_ARGUMENT, "kind"),
    ("bad-card", "CreateZone",
     pb.CreateZoneRequest(game_id=GAME, zone="z", kind=pb.ZONE_KIND_DECK, cards=["a", ""]),
     SERVICE, Code.INVALID_ARGUMENT, "cards[1]"),
    ("hand-no-owner", "CreateZone",
     pb.CreateZoneRequest(game_id=GAME, zone="z", kind=pb.ZONE_KIND_HAND),
     SERVICE, Code.INVALID_ARGUMENT, "owner"),
    ("shuffle-pile", "CreateZone",
     pb.CreateZoneRequest(game_id=GAME, zone="z", kind=pb.ZONE_KIND_PILE, shuffle=True),
     SERVICE, Code.INVALID_ARGUMENT, "shuffle"),
    ("draw-zero", "Draw", pb.DrawRequest(game_id=GAME, zone="deck", seat="hero"),
     SERVICE, Code.INVALID_ARGUMENT, "count"),
    ("draw-no-seat", "Draw", pb.DrawRequest(game_id=GAME, zone="deck", count=1),
     SERVICE, Code.INVALID_ARGUMENT, "seat"),
    ("draw-long-command", "Draw",
     pb.DrawRequest(game_id=GAME, zone="deck", seat="hero", count=1, command_id="x" * 129),
     SERVICE, Code.INVALID_ARGUMENT, "command_id"),
    ("put-no-position", "PutCard",
     pb.PutCardRequest(game_id=GAME, card=CARDS[0], from_zone="deck", to_zone="discard"),
     SERVICE, Code.INVALID_ARGUMENT, "position"),
    ("put-no-card", "PutCard",
     pb.PutCardRequest(game_id=GAME, from_zone="deck", to_zone="discard", position=pb.POSITION_TOP),
     SERVICE, Code.INVALID_ARGUMENT, "card"),
    ("discard-no-pile", "Discard", pb.DiscardRequest(game_id=GAME, card=CARDS[0], from_zone="deck"),
     SERVICE, Code.INVALID_ARGUMENT, "pile"),
    ("reshuffle-no-pile", "ReshuffleDiscard", pb.ReshuffleDiscardRequest(game_id=GAME, zone="deck"),
     SERVICE, Code.INVALID_ARGUMENT, "pile"),
    ("search-no-predicate", "Search",
     pb.SearchRequest(game_id=GAME, zone="deck", seat="hero", limit=1),
     SERVICE, Code.INVALID_ARGUMENT, "id_prefix"),
    ("search-no-limit", "Search",
     pb.SearchRequest(game_id=GAME, zone="deck", seat="hero", id_prefix="c"),
     SERVICE, Code.INVALID_ARGUMENT, "limit"),
    ("hand-unknown-seat", "GetHand", pb.GetHandRequest(game_id=GAME, seat="bard"),
     PLAYER1, Code.INVALID_ARGUMENT, "seat"),
    ("hand-no-seat", "GetHand", pb.GetHandRequest(game_id=GAME),
     PLAYER1, Code.INVALID_ARGUMENT, "seat"),
    ("hand-of-other-seat", "GetHand", pb.GetHandRequest(game_id=GAME, seat="dungeon_lord"),
     PLAYER1, Code.PERMISSION_DENIED, ""),
    ("player-draws", "Draw", pb.DrawRequest(game_id=GAME, zone="deck", seat="hero", count=1),
     PLAYER1, Code.PERMISSION_DENIED, ""),
    ("player-shuffles", "Shuffle", pb.ShuffleRequest(game_id=GAME, zone="deck"),
     PLAYER1, Code.PERMISSION_DENIED, ""),
    ("player-counts", "Count", pb.CountRequest(game_id=GAME, zone="deck"),
     PLAYER1, Code.PERMISSION_DENIED, ""),
    ("player-searches", "Search",
     pb.SearchRequest(game_id=GAME, zone="deck", seat="hero", id_prefix="c", limit=1),
     PLAYER1, Code.PERMISSION_DENIED, ""),
    ("no-token", "Draw", pb.DrawRequest(game_id=GAME, zone="deck", seat="hero", count=1),
     NONE, Code.UNAUTHENTICATED, ""),
    ("garbage-token", "Shuffle", pb.ShuffleRequest(game_id=GAME, zone="deck"),
     GARBAGE, Code.UNAUTHENTICATED, ""),
    ("foreign-token", "CreateZone",
     pb.CreateZoneRequest(game_id=GAME, zone="z", kind=pb.ZONE_KIND_PILE),
     FOREIGN, Code.UNAUTHENTICATED, ""),
    ("no-token-hand", "GetHand", pb.GetHandRequest(game_id=GAME, seat="hero"),
     NONE, Code.UNAUTHENTICATED, ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "request_", "caller", "code", "field"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
async def test_bad_input_is_refused_and_appends_nothing(
    backend: Backend, method: str, request_: Any, caller: str, code: Code, field: str
) -> None:
    token = {
        SERVICE: backend.service,
        PLAYER1: backend.player1,
        NONE: None,
        GARBAGE: "not.a.jwt",
        FOREIGN: issue_token("service:x", service=True, secret="another-secret-" + "x" * 32),
    }[caller]
    before = await backend.versions()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await getattr(backend.stub, method)(request_, metadata=backend.auth(token))
    assert err.value.code() == code, err.value.details()
    if field:
        assert (err.value.details() or "").startswith(f"{field}:"), err.value.details()
    assert await backend.versions() == before
    for card in CARDS:
        assert card not in (err.value.details() or "")
