"""Split topology on Redis: a rules pool deals every card through the deck service over gRPC.

Dice, deck and the rules pools (rules-fallen, rules-worlds, rules-land) are separate servers
sharing one Redis store, wired as `fallenctl serve <pool> --dice ... --deck ...` wires them
(services.app.serve). A whole Fallen game, a whole Worlds game (whose sealed libraries live
in the deck service) and a two-turn Fallen Land game (its seven decks) are played through
the rules API; then the game's deck stream
verifies against the dice seed and the exported log verifies as `fallenctl replay --verify`
checks it. Bad input: what the deck service refuses comes back with its own status,
and a deck service that does not answer is UNAVAILABLE, never INTERNAL.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from fallen.deck.v1 import deck_pb2 as pb
from fallen.deck.v1 import deck_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from prometheus_client import REGISTRY

from services.app import Backend, serve
from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.deck.audit import verify_deck
from services.deck.client import GrpcDeck
from services.deck.dealing import DealRequest
from services.deck.engine import deck_stream
from services.deck.zones import CARD_DISCARDED, CARDS_DRAWN
from services.dice.engine import DiceEngine, dice_stream
from services.platform.auth import issue_token
from services.platform.decision import decision_key
from services.platform.envelope import NOBODY, NewEvent
from services.platform.errors import Unavailable
from services.platform.games import GAME_CREATED, game_stream
from services.platform.grpcx.client import Retry, ServiceCredentials, internal_channel
from services.platform.grpcx.server import start_server
from services.platform.grpcx.structs import to_struct
from services.platform.localservers import free_port
from services.platform.store.redis import RedisEventStore
from services.rules.engine.deck import DeckServicePort
from services.rules.registry import load
from services.rules.runner import GameRunner
from services.rules.service import mount as rules_mount

MAX_STEPS = 4000
FAST = Retry(attempts=3, first_s=0.01, max_s=0.05, timeout_s=5.0)
Code = grpc.StatusCode


@dataclass
class Split:
    """The running servers, a store reading their Redis keys, and their addresses."""

    store: RedisEventStore
    backends: dict[str, Backend]

    def address(self, name: str) -> str:
        return f"127.0.0.1:{self.backends[name].port}"


def rpc_count(method: str, code: str = "OK") -> float:
    """Return how many calls of an RPC this process answered with a status so far."""
    sample = REGISTRY.get_sample_value("fallen_rpc_total", {"method": method, "code": code})
    return sample or 0.0


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


def svc() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token('service:test', service=True)}"),)


@pytest.fixture
async def split(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Split]:
    """Dice, deck, rules-fallen and rules-worlds as separate servers on one Redis prefix."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    prefix = f"deal{uuid.uuid4().hex[:8]}"

    def store() -> RedisEventStore:
        return RedisEventStore(redis_url, prefix=prefix)

    backends: dict[str, Backend] = {}
    try:
        backends["dice"] = await serve(store(), "127.0.0.1:0", "dice")
        dice = f"127.0.0.1:{backends['dice'].port}"
        backends["deck"] = await serve(store(), "127.0.0.1:0", "deck", dice_addr=dice)
        deck = f"127.0.0.1:{backends['deck'].port}"
        for pool in ("rules-fallen", "rules-worlds", "rules-land"):
            backends[pool] = await serve(
                store(), "127.0.0.1:0", pool, dice_addr=dice, deck_addr=deck
            )
        reader = store()
        yield Split(reader, backends)
        await reader.close()
    finally:
        for backend in backends.values():
            await backend.stop()


def choose(commands: list[rules_pb2.LegalCommand], game_id: str, step: int) -> int:
    """Return a fixed pseudo-random index into the legal commands (a test policy, no dice)."""
    digest = hashlib.sha256(f"{game_id}:{step}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % len(commands)


async def play(
    target: str, game: str, game_id: str, seats: dict[str, str], options: dict | None = None
) -> int:
    """Play a game to its end through the rules API with every seat's player; return steps."""
    async with grpc.aio.insecure_channel(target) as channel:
        rules = rules_pb2_grpc.RulesServiceStub(channel)
        await rules.CreateGame(
            rules_pb2.CreateGameRequest(
                game=game, game_id=game_id, seats=seats, options=to_struct(options or {})
            ),
            metadata=md(next(iter(seats.values()))),
        )
        for step in range(MAX_STEPS):
            state = await rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=svc())
            if state.ended:
                return step
            who = md(seats[state.waiting_for])
            legal = await rules.ListLegalCommands(
                rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=state.waiting_for),
                metadata=who,
            )
            pick = legal.commands[choose(list(legal.commands), game_id, step)]
            await rules.SubmitCommand(
                rules_pb2.SubmitCommandRequest(
                    game_id=game_id,
                    seat=state.waiting_for,
                    kind=pick.kind,
                    args=pick.args,
                    command_id=f"t-{step}",
                    expected_version=legal.version,
                ),
                metadata=who,
            )
    raise AssertionError(f"{game} game {game_id} did not end in {MAX_STEPS} steps")


async def check_dealt_and_verified(store: RedisEventStore, game_id: str, shuffles: int) -> int:
    """The game stream reveals no deck order; the deck stream verifies against the dice seed;
    the exported log verifies card by card (fallenctl replay --verify's check); return the
    number of cards the deck stream dealt."""
    game = await store.read(game_stream(game_id))
    deck = await store.read(deck_stream(game_id))
    dice = await store.read(dice_stream(game_id))
    assert game[-1].type == "GameEnded"
    assert all(e.visibility != NOBODY for e in game)
    checked = verify_deck(game_id, deck, dice)
    assert checked.ok, checked.mismatch
    assert checked.checked >= shuffles
    report = verify_game(game_id, await store_records(store, game_id), load)
    assert report.verified, report.mismatch
    taken = [e for e in deck if e.type in (CARDS_DRAWN, CARD_DISCARDED)]
    return sum(len(e.data.get("cards", [e.data.get("card")])) for e in taken)


# Fallen Land is played short (the short game, two turns) to keep the suite's budget.
LAND_OPTIONS = {"short_game": True, "max_turns": 2}


@pytest.mark.parametrize(
    ("game", "pool", "seats", "shuffles"),
    [
        ("fallen", "rules-fallen", {"hero": "hana", "dungeon_lord": "dmitri"}, 9),
        ("worlds", "rules-worlds", {"p1": "alice", "p2": "bob"}, 2),
        ("land", "rules-land", {"p1": "lena", "p2": "lars"}, 7),
    ],
)
async def test_given_a_rules_pool_apart_when_a_game_is_played_then_the_deck_service_deals_it(
    split: Split, game: str, pool: str, seats: dict[str, str], shuffles: int
) -> None:
    # given a rules pool that reaches the deck service only through its gRPC address
    deals, seals = rpc_count("DeckServicer.Deal"), rpc_count("DeckServicer.Seal")
    # when a whole game is played through the rules API
    game_id = f"{game[:2]}{uuid.uuid4().hex[:8]}"
    options = LAND_OPTIONS if game == "land" else None
    steps = await play(split.address(pool), game, game_id, seats, options)
    # then every deck request went to the deck service's Deal RPC (Worlds: Seal too)
    assert steps > 10
    assert rpc_count("DeckServicer.Deal") - deals >= 3
    if game == "worlds":
        assert rpc_count("DeckServicer.Seal") - seals == 2  # one library per seat
    # and nothing was refused on the way
    assert not rpc_count("DeckServicer.Deal", "INTERNAL")
    # and the deck stream and the exported log verify, card by card
    dealt = await check_dealt_and_verified(split.store, game_id, shuffles)
    assert dealt >= 10
    print(f"{game}: {steps} commands, {dealt} cards dealt over gRPC")


@pytest.fixture
async def deck_game(split: Split) -> AsyncIterator[deck_pb2_grpc.DeckServiceStub]:
    """A game g-bad with seats a and b whose deck "d" holds 3 cards, and a DeckService stub."""
    seats = {"a": "pa", "b": "pb"}
    await split.store.append(game_stream("gbad"), 0, [NewEvent(GAME_CREATED, {"seats": seats})])
    await DiceEngine(split.store).commit_seed("gbad")
    async with grpc.aio.insecure_channel(split.address("deck")) as channel:
        stub = deck_pb2_grpc.DeckServiceStub(channel)
        await stub.Deal(
            pb.DealRequest(game_id="gbad", kind=pb.DEAL_KIND_FORM, deck="d", cards=["x", "y", "z"]),
            metadata=svc(),
        )
        yield stub


BAD = [
    ("no kind", dict(deck="d"), Code.INVALID_ARGUMENT, "kind"),
    ("bad deck name", dict(kind=pb.DEAL_KIND_SHUFFLE, deck="d d"), Code.INVALID_ARGUMENT, "deck"),
    (
        "put without position",
        dict(kind=pb.DEAL_KIND_PUT, deck="d", cards=["q"]),
        Code.INVALID_ARGUMENT,
        "position",
    ),
    (
        "search for nobody",
        dict(kind=pb.DEAL_KIND_SEARCH, deck="d", count=1, match=["x"]),
        Code.INVALID_ARGUMENT,
        "visible_to",
    ),
    (
        "key of another game",
        dict(kind=pb.DEAL_KIND_SHUFFLE, deck="d", key="game-other@3"),
        Code.INVALID_ARGUMENT,
        "key",
    ),
    ("unknown deck", dict(kind=pb.DEAL_KIND_SHUFFLE, deck="nope"), Code.NOT_FOUND, "nope"),
    (
        "draw past the bottom",
        dict(kind=pb.DEAL_KIND_DRAW, deck="d", count=4, visible_to=["a"]),
        Code.FAILED_PRECONDITION,
        "holds 3",
    ),
    (
        "move past the bottom",
        dict(kind=pb.DEAL_KIND_MOVE, deck="d", count=9, to="e", position=pb.POSITION_TOP),
        Code.FAILED_PRECONDITION,
        "holds 3",
    ),
    (
        "hand for a stranger",
        dict(kind=pb.DEAL_KIND_DRAW, deck="d", count=1, visible_to=["zz"]),
        Code.INVALID_ARGUMENT,
        "owner",
    ),
]


@pytest.mark.parametrize(("case", "fields", "code", "text"), BAD, ids=[b[0] for b in BAD])
async def test_given_a_deal_the_deck_service_refuses_then_its_status_says_why(
    split: Split,
    deck_game: deck_pb2_grpc.DeckServiceStub,
    case: str,
    fields: dict[str, object],
    code: grpc.StatusCode,
    text: str,
) -> None:
    before = await split.store.version(deck_stream("gbad"))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await deck_game.Deal(pb.DealRequest(game_id="gbad", **fields), metadata=svc())  # type: ignore[arg-type]
    assert err.value.code() == code, (case, err.value.details())
    assert text in (err.value.details() or ""), case
    assert await split.store.version(deck_stream("gbad")) == before


async def test_given_a_player_or_no_token_then_deal_and_seal_are_refused(
    deck_game: deck_pb2_grpc.DeckServiceStub,
) -> None:
    shuffle = pb.DealRequest(game_id="gbad", kind=pb.DEAL_KIND_SHUFFLE, deck="d")
    seal = pb.SealRequest(game_id="gnew", deck="lib", cards=["a"])
    for call, req in ((deck_game.Deal, shuffle), (deck_game.Seal, seal)):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call(req, metadata=md("pa"))
        assert err.value.code() == Code.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call(req)
        assert err.value.code() == Code.UNAUTHENTICATED


async def test_given_a_keyed_draw_sent_twice_then_the_cards_are_drawn_once(
    split: Split, deck_game: deck_pb2_grpc.DeckServiceStub
) -> None:
    # given a draw for seat a under its decision key, answered once
    req = pb.DealRequest(
        game_id="gbad",
        kind=pb.DEAL_KIND_DRAW,
        deck="d",
        count=2,
        visible_to=["a"],
        key=decision_key("gbad", 4),
    )
    first = await deck_game.Deal(req, metadata=svc())
    # when the same request is sent again (the client's retry after a lost answer)
    again = await deck_game.Deal(req, metadata=svc())
    # then it answers the same cards and the deck still holds the third
    assert list(again.cards) == list(first.cards) and len(first.cards) == 2
    assert again.version == first.version
    count = await deck_game.Count(pb.CountRequest(game_id="gbad", zone="d"), metadata=svc())
    assert count.count == 1


async def test_given_the_deck_service_starts_late_then_a_keyed_deal_is_retried_until_answered(
    split: Split, deck_game: deck_pb2_grpc.DeckServiceStub
) -> None:
    # given a client of a deck address nobody serves yet
    port = free_port()
    channel = internal_channel(f"127.0.0.1:{port}")
    client = GrpcDeck(channel, ServiceCredentials("rules-test"), Retry(attempts=20, max_s=0.2))
    req = DealRequest("deck_draw", "d", count=1, visible_to=("b",))
    # when a keyed draw is asked, and the deck service comes up while the client retries
    asking = asyncio.create_task(client.deal("gbad", req, decision_key("gbad", 6)))
    await asyncio.sleep(0.3)
    assert not asking.done()
    late = await serve(
        RedisEventStore(split.store.url, prefix=split.store.prefix),
        f"127.0.0.1:{port}",
        "deck",
        dice_addr=split.address("dice"),
    )
    try:
        dealt = await asyncio.wait_for(asking, 10)
        # then the draw is answered once: one card to b's hand
        assert len(dealt.cards) == 1
        hand = await deck_game.GetHand(pb.GetHandRequest(game_id="gbad", seat="b"), metadata=svc())
        assert list(hand.cards) == list(dealt.cards)
    finally:
        await channel.close()
        await late.stop()


async def test_given_no_deck_service_then_an_unkeyed_deal_fails_at_once_as_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an unkeyed request is not safe to repeat: one attempt, then Unavailable
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    async with internal_channel(f"127.0.0.1:{free_port()}") as channel:
        client = GrpcDeck(channel, ServiceCredentials("rules-test"), FAST)
        with pytest.raises(Unavailable, match="UNAVAILABLE"):
            await client.deal("gx", DealRequest("deck_shuffle", "d"))


async def test_given_a_rules_service_whose_deck_service_is_down_then_create_is_unavailable(
    split: Split,
) -> None:
    # given a rules service whose deck port points at an address nobody serves
    channel = internal_channel(f"127.0.0.1:{free_port()}")
    deck = DeckServicePort(GrpcDeck(channel, ServiceCredentials("rules-test"), FAST))
    runner = GameRunner(split.store, DiceEngine(split.store), deck=deck)
    running = await start_server([rules_mount(runner)], "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as ch:
            rules = rules_pb2_grpc.RulesServiceStub(ch)
            # when a Fallen game (whose decks are formed at creation) is created
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await rules.CreateGame(
                    rules_pb2.CreateGameRequest(
                        game="fallen", game_id="gdown", seats={"hero": "h", "dungeon_lord": "d"}
                    ),
                    metadata=md("h"),
                )
        # then the client reads UNAVAILABLE (retry later), not INTERNAL
        assert err.value.code() == Code.UNAVAILABLE, err.value.details()
        assert "did not answer" in (err.value.details() or "")
    finally:
        await running.stop(0.5)
        await channel.close()
