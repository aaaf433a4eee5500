"""Fallen through the real backend (gRPC, in process): every bad input is refused usefully.

Each refusal is checked for its exact gRPC status, for words a client can act on, and
for appending nothing (the game stream's version does not move).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from fallen.projections.v1 import projections_pb2, projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from google.protobuf.struct_pb2 import Struct

from services.app import Backend, serve
from services.bots.policies import Turn, parse_choices
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.rules.fallen.bot import heuristic
from services.rules.fallen.cards import card

SEATS = {"hero": "alice", "dungeon_lord": "bob"}
ROLL_WINDOWS = {"dl_roll", "hero_roll"}
# window decisions' prompts read "<name>: ..." (the when_wounded reaction reads otherwise)
WINDOWS = {
    "before_activation",
    "creature_exhausted",
    "dl_roll",
    "hero_roll",
    "after_result",
    "rewards_claimed",
}
SEARCH_GAMES = 4  # bot games tried before giving up on finding a situation
SEARCH_STEPS = 400  # decisions per game


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@dataclass
class Api:
    rules: rules_pb2_grpc.RulesServiceStub
    dice: dice_pb2_grpc.DiceServiceStub
    backend: Backend
    views: projections_pb2_grpc.ProjectionServiceStub


@pytest.fixture
async def api(tmp_path, monkeypatch) -> AsyncIterator[Api]:
    """Yield stubs of the whole backend serving on a loopback port."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    backend = await serve(SqliteEventStore(tmp_path / "fallen.db"), "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Api(
            rules_pb2_grpc.RulesServiceStub(channel),
            dice_pb2_grpc.DiceServiceStub(channel),
            backend,
            projections_pb2_grpc.ProjectionServiceStub(channel),
        )
    finally:
        await channel.close()
        await backend.stop()


async def create(api: Api, game_id: str) -> rules_pb2.CreateGameResponse:
    return await api.rules.CreateGame(
        rules_pb2.CreateGameRequest(game="fallen", game_id=game_id, seats=SEATS),
        metadata=md("alice"),
    )


async def version(api: Api, game_id: str) -> int:
    return (
        await api.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=md("alice"))
    ).version


def submit(
    game_id: str, seat: str, kind: str, args: Any = None, **extra: Any
) -> rules_pb2.SubmitCommandRequest:
    struct = args if isinstance(args, Struct) else to_struct(args or {})
    return rules_pb2.SubmitCommandRequest(
        game_id=game_id, seat=seat, kind=kind, args=struct, **extra
    )


async def refused(
    api: Api,
    req: rules_pb2.SubmitCommandRequest,
    player: str,
    code: grpc.StatusCode,
    *words: str,
) -> str:
    """Submit a command expected to fail; check status, words and that nothing is appended."""
    before = await version(api, req.game_id)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await api.rules.SubmitCommand(req, metadata=md(player))
    details = err.value.details() or ""
    assert err.value.code() == code, details
    for word in words:
        assert word in details, f"{word!r} not in {details!r}"
    assert await version(api, req.game_id) == before, "a refused command appended events"
    return details


# --- refusals at the first decision -----------------------------------------------------------
async def test_a_new_game_waits_for_the_hero_to_choose_a_character(api):
    # given a Fallen game created through gRPC
    created = await create(api, "f1")
    # when the Hero asks what he may do
    legal = await api.rules.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id="f1", seat="hero"), metadata=md("alice")
    )
    # then he must choose a Hero, and the dice seed is committed
    assert legal.waiting_for == "hero" and legal.decision == "choose_hero"
    assert {c.args["character"] for c in legal.commands} >= {"merace"}
    assert legal.version == created.version and len(created.dice_commitment) == 64


async def test_an_illegal_answer_is_failed_precondition_with_the_choices(api):
    await create(api, "f1")
    await refused(
        api,
        submit("f1", "hero", "choose_hero", {"character": "bob"}),
        "alice",
        grpc.StatusCode.FAILED_PRECONDITION,
        "unknown character 'bob'",
        "choose one of",
        "merace",
    )


async def test_a_command_for_another_players_seat_is_permission_denied(api):
    await create(api, "f1")
    await refused(
        api,
        submit("f1", "hero", "choose_hero", {"character": "merace"}),
        "bob",
        grpc.StatusCode.PERMISSION_DENIED,
        "seat 'hero'",
        "not yours",
    )


async def test_out_of_turn_is_failed_precondition_naming_who_the_game_waits_for(api):
    await create(api, "f1")
    await refused(
        api,
        submit("f1", "dungeon_lord", "choose_dungeon_lord", {"character": "archivist"}),
        "bob",
        grpc.StatusCode.FAILED_PRECONDITION,
        "not your turn",
        "waits for the Hero",
        "'choose_hero'",
    )


async def test_a_stale_expected_version_is_aborted(api):
    created = await create(api, "f1")
    await refused(
        api,
        submit(
            "f1",
            "hero",
            "choose_hero",
            {"character": "merace"},
            expected_version=created.version - 1,
        ),
        "alice",
        grpc.StatusCode.ABORTED,
        f"expected {created.version - 1}",
        "reload and retry",
    )


@pytest.mark.parametrize(
    ("kind", "args", "words"),
    [
        ("choose_hero", {"character": [[[[[[[[[[[[[[[[[["x"]]]]]]]]]]]]]]]]]]}, ("args", "deeper")),
        ("choose_hero", {"character": 3}, ("args.character", "must be str")),
        ("choose_hero", {}, ("args.character", "required")),
        ("choose_hero", {"character": "merace", "x": 1}, ("args.x", "unexpected field")),
        ("fly", {}, ("kind", "unknown command kind 'fly'")),
        ("", {}, ("kind", "required")),
    ],
)
async def test_a_malformed_command_is_invalid_argument_naming_the_field(api, kind, args, words):
    await create(api, "f1")
    await refused(
        api, submit("f1", "hero", kind, args), "alice", grpc.StatusCode.INVALID_ARGUMENT, *words
    )


async def test_a_replayed_command_id_is_deduplicated_and_appends_nothing(api):
    # given the Hero's character chosen with a command id
    await create(api, "f1")
    req = submit("f1", "hero", "choose_hero", {"character": "merace"}, command_id="c-1")
    first = await api.rules.SubmitCommand(req, metadata=md("alice"))
    assert not first.deduplicated and await version(api, "f1") == first.version
    # when the same command id is sent again (a client retry)
    again = await api.rules.SubmitCommand(req, metadata=md("alice"))
    # then it answers as before and nothing is appended
    assert again.deduplicated and again.version == first.version
    assert await version(api, "f1") == first.version


# --- refusals found by driving the game with bots
Found = tuple[str, str, dict[str, Any]]  # game id, window name, situation


def window_name(prompt: str) -> str:
    """Return the window name of a window decision's public prompt ("hero_roll: ...")."""
    return prompt.split(":", 1)[0]


def unaffordable(view: dict[str, Any], legal: list[Any], name: str) -> dict[str, Any] | None:
    """Return a Power card in the Hero's hand that fits the open window but costs too much."""
    fortune = int(view["counters"].get("fortune.hero", 0))
    playable = {c.args.get("card") for c in legal if c.kind == "play"}
    for cid in view["zones"].get("hero.hand", []):
        c = card(cid)
        fits = c["timing"] == name or (c["timing"] == "any_roll" and name in ROLL_WINDOWS)
        cost = int(c["cost"][0 if view["light"] else 1])
        if c["type"] == "power" and fits and cost > fortune and cid not in playable:
            return {"card": cid, "cost": cost, "fortune": fortune}
    return None


def wrong_window(view: dict[str, Any], legal: list[Any], name: str) -> dict[str, Any] | None:
    """Return a Power card in the Hero's hand whose timing does not fit the open window."""
    for cid in view["zones"].get("hero.hand", []):
        timing = card(cid)["timing"]
        if timing in ("before_activation", "dl_roll", "hero_roll", "when_wounded") and (
            timing != name
        ):
            return {"card": cid, "timing": timing}
    return None


async def drive_until(
    api: Api,
    prefix: str,
    wanted: Callable[[dict[str, Any], list[Any], str], dict[str, Any] | None],
) -> Found:
    """Play bot games (heuristic both sides) until the Hero faces a wanted window situation."""
    for g in range(SEARCH_GAMES):
        gid = f"{prefix}{g}"
        await create(api, gid)
        for _ in range(SEARCH_STEPS):
            summary = await api.rules.GetGame(
                rules_pb2.GetGameRequest(game_id=gid), metadata=md("alice")
            )
            seat = summary.waiting_for
            if not seat:
                break
            player = SEATS[seat]
            legal = await api.rules.ListLegalCommands(
                rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat), metadata=md(player)
            )
            view = struct_to_py(
                (
                    await api.views.GetView(
                        projections_pb2.GetViewRequest(
                            game_id=gid, seat=seat, min_version=legal.version, wait_ms=10_000
                        ),
                        metadata=md(player),
                    )
                ).view
            )
            choices = parse_choices(legal.commands)
            if seat == "hero" and legal.decision == "window":
                name = window_name(view["pending"]["prompt"])
                hit = wanted(view, choices, name) if name in WINDOWS else None
                if hit is not None:
                    return gid, name, hit
            pick = choices[heuristic(Turn("fallen", gid, seat, legal.version, view, choices, gid))]
            await api.rules.SubmitCommand(
                submit(gid, seat, pick.kind, pick.args, expected_version=legal.version),
                metadata=md(player),
            )
    pytest.fail(f"no such situation in {SEARCH_GAMES} bot games of {SEARCH_STEPS} decisions")


async def test_an_unaffordable_card_is_failed_precondition_naming_its_cost(api):
    # given the Hero in an open window, holding a Power card that fits it but costs too much
    gid, _, hit = await drive_until(api, "cost", unaffordable)
    # when he plays it
    details = await refused(
        api,
        submit(gid, "hero", "play", {"card": hit["card"]}),
        "alice",
        grpc.StatusCode.FAILED_PRECONDITION,
        hit["card"],
        f"you have {hit['fortune']}",
    )
    # then the refusal names what the card costs now: its printed cost, or more when a
    # modifier on the table raises Power costs (the test reads only the printed one)
    cost = re.search(r"costs (\d+) Fortune", details)
    assert cost is not None, details
    assert int(cost.group(1)) >= hit["cost"] > hit["fortune"]
    # and the refusal is about the cost, not the window
    assert "window" not in details.split("(not a legal answer")[0]


async def test_a_card_outside_its_window_is_failed_precondition_naming_the_window(api):
    # given the Hero in an open window, holding a Power card of another timing
    gid, name, hit = await drive_until(api, "timing", wrong_window)
    # when he plays it / then the card's timing and the open window are named
    await refused(
        api,
        submit(gid, "hero", "play", {"card": hit["card"]}),
        "alice",
        grpc.StatusCode.FAILED_PRECONDITION,
        hit["card"],
        "is played",
        f"window ({name})",
    )


# --- a whole game with nothing but ListLegalCommands
async def test_a_random_legal_game_ends_with_the_seed_revealed_and_verified(api):
    # given a Fallen game and a seeded random player for each seat
    created = await create(api, "full")
    rng = random.Random(7)
    seat, outcome, steps = "hero", False, 0
    # when each seat submits a random command of its ListLegalCommands until the game ends
    while not outcome:
        steps += 1
        assert steps < 3000, "the game did not end"
        legal = await api.rules.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id="full", seat=seat), metadata=md(SEATS[seat])
        )
        if legal.waiting_for != seat:
            assert legal.waiting_for in SEATS and not legal.commands
            seat = legal.waiting_for
            continue
        pick = rng.choice(list(legal.commands))
        resp = await api.rules.SubmitCommand(
            submit(
                "full",
                seat,
                pick.kind,
                pick.args,
                command_id=f"{seat}-{legal.version}",
                expected_version=legal.version,
            ),
            metadata=md(SEATS[seat]),
        )
        outcome = resp.ended
    # then the game is over with a winner and a GameEnded event
    summary = await api.rules.GetGame(rules_pb2.GetGameRequest(game_id="full"), metadata=md("bob"))
    assert summary.ended and summary.outcome["winner"] in SEATS
    assert len(summary.final_state_hash) == 64
    assert (await api.backend.store.read("game-full"))[-1].type == "GameEnded"
    # and the dice seed is revealed, matches the commitment, and re-derives every roll
    revealed = await api.dice.Reveal(dice_pb2.RevealRequest(game_id="full"), metadata=md("bob"))
    assert revealed.commitment == created.dice_commitment
    assert hashlib.sha256(bytes.fromhex(revealed.server_seed)).hexdigest() == revealed.commitment
    verified = await api.dice.Verify(dice_pb2.VerifyRequest(game_id="full"), metadata=md("alice"))
    assert verified.ok and verified.checked > 0, verified.mismatch
