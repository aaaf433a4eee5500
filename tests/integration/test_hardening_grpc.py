"""Hostile requests against the served backend (issue 17), on SQLite and on Redis.

Each probe that once answered INTERNAL or UNKNOWN, echoed megabytes, or let one player
swallow another's command now answers its documented status, and appends nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from fallen.deck.v1 import deck_pb2, deck_pb2_grpc
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from fallen.projections.v1 import projections_pb2 as ppb
from fallen.projections.v1 import projections_pb2_grpc as ppb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from google.protobuf.struct_pb2 import Struct

from services.app import Backend, serve
from services.platform.auth import issue_token
from services.platform.store.base import EventStore
from tests.support.toy_game import RULES as TOY

SEATS = {"a": "alice", "b": "bob"}
INVALID = grpc.StatusCode.INVALID_ARGUMENT
MAX_DETAILS = 600


def md(player: str, service: bool = False) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, service=service)}"),)


@dataclass
class Api:
    channel: grpc.aio.Channel
    rules: rules_pb2_grpc.RulesServiceStub
    dice: dice_pb2_grpc.DiceServiceStub
    deck: deck_pb2_grpc.DeckServiceStub
    proj: ppb_grpc.ProjectionServiceStub
    store: EventStore
    backend: Backend

    async def head(self) -> int:
        return await self.store.head_position()


@pytest.fixture
async def api(event_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Api]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_PROJECTIONS", "none")
    backend = await serve(event_store, "127.0.0.1:0", extra_games={"toy": TOY})
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Api(
            channel,
            rules_pb2_grpc.RulesServiceStub(channel),
            dice_pb2_grpc.DiceServiceStub(channel),
            deck_pb2_grpc.DeckServiceStub(channel),
            ppb_grpc.ProjectionServiceStub(channel),
            event_store,
            backend,
        )
    finally:
        await channel.close()
        await backend.stop()


async def refused(call, code: grpc.StatusCode, *words: str) -> str:
    """Await call, expect code; return the details after checking they are short."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    details = err.value.details() or ""
    assert err.value.code() == code, details
    assert len(details) < MAX_DETAILS
    for w in words:
        assert w in details, details
    return details


async def create(api: Api, game_id: str = "h1") -> None:
    await api.rules.CreateGame(
        rules_pb2.CreateGameRequest(game="toy", game_id=game_id, seats=SEATS), metadata=md("alice")
    )


def submit(api: Api, seat: str, command_id: str, kind: str = "ask_roll", **kw):
    return api.rules.SubmitCommand(
        rules_pb2.SubmitCommandRequest(
            game_id="h1", seat=seat, kind=kind, command_id=command_id, **kw
        ),
        metadata=md(SEATS[seat]),
    )


def varint(n: int) -> bytes:
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def wrap(field: int, body: bytes) -> bytes:
    """Return body as a length-delimited field."""
    return varint(field << 3 | 2) + varint(len(body)) + body


def nested_args(levels: int) -> bytes:
    """Return SubmitCommandRequest bytes whose args Struct nests lists levels deep."""
    value = wrap(3, b"x")  # Value.string_value
    for _ in range(levels):
        value = wrap(6, wrap(1, value))  # Value.list_value -> ListValue.values
    entry = wrap(1, b"x") + wrap(2, value)  # Struct.fields entry: key, value
    request = wrap(1, b"h1") + wrap(2, b"a") + wrap(3, b"ask_roll") + wrap(5, b"c-deep")
    return request + wrap(4, wrap(1, entry))


async def test_1_deeply_nested_arguments_are_invalid_argument(api: Api) -> None:
    # given a game
    await create(api)
    head = await api.head()
    raw = api.channel.unary_unary("/fallen.rules.v1.RulesService/SubmitCommand")
    # when arguments nest 40 levels (parseable) or 1,000 levels (beyond the parser) deep
    # then each answers INVALID_ARGUMENT (naming args when the request parses at all)
    await refused(raw(nested_args(40), metadata=md("alice")), INVALID, "args")
    await refused(raw(nested_args(1000), metadata=md("alice")), INVALID, "not a valid")
    tree: dict[str, object] = {"o": 1}
    for _ in range(25):
        tree = {"o": tree}
    options = Struct()
    options.update(tree)
    await refused(
        api.rules.CreateGame(
            rules_pb2.CreateGameRequest(game="toy", seats=SEATS, options=options),
            metadata=md("alice"),
        ),
        INVALID,
        "options",
    )
    # and nothing is appended
    assert await api.head() == head


async def test_2_integers_beyond_the_store_are_invalid_argument(api: Api) -> None:
    # given a game
    await create(api)
    # when reading events from version 2^63
    # then INVALID_ARGUMENT names the field (no OverflowError from the store)
    request = ppb.ReadEventsRequest(game_id="h1", seat="a", from_version=2**63)
    await refused(api.proj.ReadEvents(request, metadata=md("alice")), INVALID, "from_version")
    ok = ppb.ReadEventsRequest(game_id="h1", seat="a", from_version=2**62)
    assert list((await api.proj.ReadEvents(ok, metadata=md("alice"))).events) == []


async def test_3_malformed_bytes_are_invalid_argument_or_unauthenticated_and_logged_rarely(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    # given raw byte calls (a truncated message, invalid UTF-8 in a string field)
    await create(api)
    head = await api.head()
    raw = api.channel.unary_unary("/fallen.rules.v1.RulesService/SubmitCommand")
    truncated = b"\x0a\x0ah1"  # field 1 (game_id) announces 10 bytes, 2 follow
    bad_utf8 = b"\x0a\x02\xff\xfe"  # field 1 (game_id), two bytes that are not UTF-8
    caplog.set_level(logging.INFO, logger="fallen.rpc")
    # when each is sent with a token, many times, and once without
    for _ in range(20):
        for body in (truncated, bad_utf8):
            details = await refused(raw(body, metadata=md("alice")), INVALID, "not a valid")
            assert "Error" not in details and "Exception" not in details
    await refused(raw(bad_utf8), grpc.StatusCode.UNAUTHENTICATED)
    # then nothing is appended, and the log holds one INFO line for the client, no ERROR
    assert await api.head() == head
    guard = [r for r in caplog.records if r.getMessage() == "request refused before its handler"]
    assert len(guard) == 1 and guard[0].levelno == logging.INFO
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_4_long_client_strings_are_refused_with_a_short_echo(api: Api) -> None:
    # given a game
    await create(api)
    head = await api.head()
    big = "S" * 100_000
    # when a seat, a kind, a seats key, an args key and a dice kind are 100 kB long
    # then each answers INVALID_ARGUMENT with a short text, and nothing is appended
    await refused(submit(api, "a", "c-1", kind=big), INVALID, "kind")
    await refused(
        api.rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(game_id="h1", seat=big, kind="ask_roll"),
            metadata=md("alice"),
        ),
        INVALID,
        "seat",
    )
    await refused(
        api.rules.CreateGame(
            rules_pb2.CreateGameRequest(game="toy", seats={big: "alice", "b": "bob"}),
            metadata=md("alice"),
        ),
        INVALID,
        "seats",
    )
    args = Struct()
    args.update({big: 1})
    await refused(submit(api, "a", "c-2", args=args), INVALID, "args")
    roll = dice_pb2.RollRequest(game_id="h1", purpose="p", dice=["d" * 4000])
    await refused(api.dice.Roll(roll, metadata=md("svc", True)), INVALID, "dice")
    assert await api.head() == head
    # and a request beyond the server's maximum size is refused by gRPC itself
    huge = rules_pb2.SubmitCommandRequest(game_id="h1", seat="a", kind="x" * 2_000_000)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await api.rules.SubmitCommand(huge, metadata=md("alice"))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_5_command_ids_are_per_seat_and_a_reused_id_with_new_content_is_refused(
    api: Api,
) -> None:
    # given the seat a's command c-1 landed (the toy game then waits for seat b)
    await create(api)
    first = await submit(api, "a", "c-1")
    # when seat b sends its own command with the same id
    theirs = await submit(api, "b", "c-1")
    # then it is b's command: appended, not "deduplicated"
    assert not theirs.deduplicated and theirs.version > first.version
    head = await api.head()
    # and a's retry of c-1, even at its old expected version, answers the first result
    again = await submit(api, "a", "c-1", expected_version=first.version - 1)
    assert again.deduplicated and again.version == first.version
    # and a reusing c-1 for another command is ALREADY_EXISTS naming the id
    await refused(submit(api, "a", "c-1", kind="other"), grpc.StatusCode.ALREADY_EXISTS, "c-1")
    assert await api.head() == head


async def test_5_a_retry_after_the_game_ended_answers_the_first_result(api: Api) -> None:
    # given a toy game played to its end with one command id per submission
    await create(api)
    last = None
    for n in range(60):
        game = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id="h1"), metadata=md("bob"))
        if game.ended:
            break
        seat = game.waiting_for
        last = (seat, f"c-{n}", await submit(api, seat, f"c-{n}"))
    assert last is not None and game.ended
    # when the command that ended the game is retried
    seat, command_id, answer = last
    again = await submit(api, seat, command_id)
    # then its first result comes back, not "game is over"
    assert again.deduplicated and again.version == answer.version
    assert again.ended and again.outcome["winner"] in SEATS

    # and dispute ids, too, belong to the player who opened the dispute
    def dispute(seat: str, reason: str = "check"):
        request = ppb.OpenDisputeRequest(game_id="h1", seat=seat, reason=reason, command_id="d1")
        return api.proj.OpenDispute(request, metadata=md(SEATS[seat]))

    mine, theirs = await dispute("a"), await dispute("b")
    assert not mine.deduplicated and not theirs.deduplicated and theirs.version > mine.version
    retry = await dispute("a")
    assert retry.deduplicated and retry.version == mine.version
    await refused(dispute("a", "other"), grpc.StatusCode.ALREADY_EXISTS, "d1")


async def test_6_echo_is_not_served_and_outsiders_see_no_player_ids(api: Api) -> None:
    from fallen.echo.v1 import echo_pb2, echo_pb2_grpc

    # given a served backend and a game
    await create(api)
    # when an outsider calls Echo, reads the game, or seats two other players
    echo = echo_pb2_grpc.EchoServiceStub(api.channel)
    await refused(echo.Echo(echo_pb2.EchoRequest(payload=b"x")), grpc.StatusCode.UNIMPLEMENTED)
    outsider = await api.rules.GetGame(
        rules_pb2.GetGameRequest(game_id="h1"), metadata=md("mallory")
    )
    player = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id="h1"), metadata=md("bob"))
    other_people = rules_pb2.CreateGameRequest(game="toy", game_id="h2", seats=SEATS)
    # then Echo is unimplemented, the outsider sees seats without player ids,
    assert dict(outsider.seats) == {"a": "", "b": ""} and outsider.version == player.version
    assert dict(player.seats) == SEATS
    # and a player may not create a game without a seat, while a service (matchmaker) may
    await refused(
        api.rules.CreateGame(other_people, metadata=md("mallory")),
        grpc.StatusCode.PERMISSION_DENIED,
        "seat",
    )
    made = await api.rules.CreateGame(other_people, metadata=md("service:match", True))
    assert made.game_id == "h2"


async def test_7_internal_rpcs_validate_like_public_ones(api: Api) -> None:
    # given a game
    await create(api)
    head = await api.head()
    svc = md("service:rules", True)
    # when internal RPCs get garbage, then each is refused with the right status
    await refused(
        api.dice.CommitSeed(dice_pb2.CommitSeedRequest(game_id="h1"), metadata=md("alice")),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    await refused(
        api.dice.CommitSeed(dice_pb2.CommitSeedRequest(game_id="no such/game"), metadata=svc),
        INVALID,
        "game_id",
    )
    long_purpose = dice_pb2.RollRequest(game_id="h1", purpose="p" * 1_000_000, dice=["d6"])
    await refused(api.dice.Roll(long_purpose, metadata=svc), INVALID, "purpose")
    crowd = dice_pb2.RollRequest(
        game_id="h1", purpose="p", dice=["d6"], visible_to=[f"s{i}" for i in range(10_000)]
    )
    await refused(api.dice.Roll(crowd, metadata=svc), INVALID, "visible_to")
    strangers = dice_pb2.RollRequest(game_id="h1", purpose="p", dice=["d6"], visible_to=["zz"])
    await refused(api.dice.Roll(strangers, metadata=svc), INVALID, "visible_to", "'zz'")
    shuffle = dice_pb2.ShuffleRequest(game_id="h1", purpose="q" * 200, count=3)
    await refused(api.dice.Shuffle(shuffle, metadata=svc), INVALID, "purpose")
    draw = deck_pb2.DrawRequest(game_id="h1", zone="deck", seat="a", count=1, command_id="x\x00y")
    await refused(api.deck.Draw(draw, metadata=svc), INVALID, "command_id")
    dispute = ppb.OpenDisputeRequest(game_id="h1", seat="a", reason="r", command_id="d\x07")
    await refused(api.proj.OpenDispute(dispute, metadata=md("alice")), INVALID, "command_id")
    # and nothing was appended
    assert await api.head() == head


RACERS = 16


async def test_r2_racing_writers_exactly_one_wins_the_rest_aborted_nothing_else_appended(
    api: Api,
) -> None:
    # given a game waiting for seat a at a known version, and many clients of their own
    await create(api)
    game = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id="h1"), metadata=md("alice"))
    version = game.version
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{api.backend.port}") for _ in range(RACERS)]
    try:
        stubs = [rules_pb2_grpc.RulesServiceStub(ch) for ch in channels]
        # when every client submits its own command at that expected version at once
        calls = [
            stub.SubmitCommand(
                rules_pb2.SubmitCommandRequest(
                    game_id="h1",
                    seat="a",
                    kind="ask_roll",
                    command_id=f"race-{i}",
                    expected_version=version,
                ),
                metadata=md("alice"),
            )
            for i, stub in enumerate(stubs)
        ]
        answers = await asyncio.gather(*calls, return_exceptions=True)
    finally:
        for ch in channels:
            await ch.close()
    # then exactly one wins and every other answer is ABORTED
    wins = [a for a in answers if isinstance(a, rules_pb2.SubmitCommandResponse)]
    codes = [a.code() for a in answers if isinstance(a, grpc.aio.AioRpcError)]
    assert len(wins) == 1, answers
    assert codes == [grpc.StatusCode.ABORTED] * (RACERS - 1)
    # and the stream holds the winner's command (and the chance it caused), nothing else
    events = await api.store.read("game-h1", version + 1)
    # (chance answers carry their decision key "game-h1@<version>" as causation id)
    commands = [
        e.causation_id
        for e in events
        if e.causation_id and not e.causation_id.startswith("game-h1@")
    ]
    assert commands == [e.causation_id for e in events if e.type == "RollAsked"]
    assert sum(e.type == "RollAsked" for e in events) == 1
    assert events[-1].version == wins[0].version
