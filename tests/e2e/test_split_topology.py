"""End to end in the split topology: dice, deck and rules as separate OS processes on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from fallen.deck.v1 import deck_pb2, deck_pb2_grpc
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.deck.audit import verify_deck
from services.platform.auth import issue_token
from services.platform.envelope import NewEvent
from services.platform.healthcheck import check
from services.platform.localservers import free_port
from services.platform.store.factory import open_store

SECRET = "e2e-secret-0123456789-0123456789-0123456789"


def start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start `fallenctl serve ...` as its own process."""
    return subprocess.Popen(
        [sys.executable, "-m", "services.cli.main", "serve", *args, "--metrics-port", "0"],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env=env,
    )


def wait_serving(address: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited: {log.read_text()[-2000:]}")
        if check(address, timeout=0.5) == "SERVING":
            return
        time.sleep(0.1)
    pytest.fail(f"{address} never became SERVING: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Yield addresses of dice, deck and rules processes sharing one SQLite store (the rules
    process rolls through the dice process and deals through the deck process)."""
    tmp = tmp_path_factory.mktemp("split")
    env = {**os.environ, "FALLEN_JWT_SECRET": SECRET, "FALLEN_STORE": f"sqlite:///{tmp}/s.db"}
    env.pop("FALLEN_DEV", None)
    addrs = {name: f"127.0.0.1:{free_port()}" for name in ("dice", "deck", "rules")}
    procs: list[subprocess.Popen[bytes]] = []
    try:
        dice = start(["dice", "--address", addrs["dice"]], tmp / "dice.log", env)
        procs.append(dice)
        wait_serving(addrs["dice"], dice, tmp / "dice.log")
        for name in ("deck", "rules"):
            args = [name, "--address", addrs[name], "--dice", addrs["dice"]]
            if name == "rules":  # the rules process deals through the deck process
                args += ["--deck", addrs["deck"]]
            proc = start(args, tmp / f"{name}.log", env)
            procs.append(proc)
            wait_serving(addrs[name], proc, tmp / f"{name}.log")
        yield {**addrs, "store": env["FALLEN_STORE"]}
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


def player_md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player, secret=SECRET)}"),)


def svc_md() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token('service:e2e', service=True, secret=SECRET)}"),)


async def test_deck_shuffles_through_the_remote_dice_service(split):
    # given a game whose seed the dice process committed
    async with (
        grpc.aio.insecure_channel(split["dice"]) as dch,
        grpc.aio.insecure_channel(split["deck"]) as kch,
    ):
        dice = dice_pb2_grpc.DiceServiceStub(dch)
        deck = deck_pb2_grpc.DeckServiceStub(kch)
        store = open_store(split["store"])
        seats = {"hero": "alice", "dungeon_lord": "bob"}
        await store.append("game-e1", 0, [NewEvent("GameCreated", {"game": "x", "seats": seats})])
        await dice.CommitSeed(dice_pb2.CommitSeedRequest(game_id="e1"), metadata=svc_md())
        cards = [f"card.{i}" for i in range(20)]
        # when the deck process creates a shuffled deck and draws from it
        await deck.CreateZone(
            deck_pb2.CreateZoneRequest(
                game_id="e1", zone="main", kind=deck_pb2.ZONE_KIND_DECK, cards=cards, shuffle=True
            ),
            metadata=svc_md(),
        )
        await deck.CreateZone(
            deck_pb2.CreateZoneRequest(
                game_id="e1", zone="hand.hero", kind=deck_pb2.ZONE_KIND_HAND, owner="hero"
            ),
            metadata=svc_md(),
        )
        drawn = await deck.Draw(
            deck_pb2.DrawRequest(game_id="e1", zone="main", seat="hero", count=5), metadata=svc_md()
        )
        # then the cards come from the deck and the shuffle consumed dice nonce 0
        assert len(drawn.cards) == 5 and set(drawn.cards) <= set(cards)
        roll = await dice.Roll(
            dice_pb2.RollRequest(game_id="e1", purpose="after", dice=["d6"]), metadata=svc_md()
        )
        assert roll.nonce == 1
        count = await deck.Count(
            deck_pb2.CountRequest(game_id="e1", zone="main"), metadata=svc_md()
        )
        assert count.count == 15
        # and only the hero's player reads the hand
        hand = await deck.GetHand(
            deck_pb2.GetHandRequest(game_id="e1", seat="hero"), metadata=player_md("alice")
        )
        assert list(hand.cards) == list(drawn.cards)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await deck.GetHand(
                deck_pb2.GetHandRequest(game_id="e1", seat="hero"), metadata=player_md("bob")
            )
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert not any(c in (err.value.details() or "") for c in cards)
        await store.close()


async def test_split_servers_refuse_tokens_signed_with_another_secret(split):
    async with grpc.aio.insecure_channel(split["deck"]) as ch:
        deck = deck_pb2_grpc.DeckServiceStub(ch)
        bad = (("authorization", f"Bearer {issue_token('x', service=True, secret='y' * 40)}"),)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await deck.Count(deck_pb2.CountRequest(game_id="e1", zone="main"), metadata=bad)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_every_split_server_serves_health_and_reflection(split):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    expected = {
        "dice": "fallen.dice.v1.DiceService",
        "deck": "fallen.deck.v1.DeckService",
        "rules": "fallen.rules.v1.RulesService",
    }
    for name, address in split.items():
        if name == "store":
            continue
        assert check(address, expected[name]) == "SERVING"
        async with grpc.aio.insecure_channel(address) as ch:
            stub = reflection_pb2_grpc.ServerReflectionStub(ch)

            async def ask():
                yield reflection_pb2.ServerReflectionRequest(list_services="")

            async for resp in stub.ServerReflectionInfo(ask()):
                names = {s.name for s in resp.list_services_response.service}
                assert expected[name] in names and "grpc.health.v1.Health" in names


async def test_a_fallen_game_plays_through_the_split_rules_and_dice_processes(split):
    from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

    from services.bots.policies import Turn, parse_choices, random_legal
    from services.platform.grpcx.structs import to_struct

    # given the rules process, which reaches dice over gRPC
    async with (
        grpc.aio.insecure_channel(split["rules"]) as rch,
        grpc.aio.insecure_channel(split["dice"]) as dch,
    ):
        rules = rules_pb2_grpc.RulesServiceStub(rch)
        players = {"hero": "alice", "dungeon_lord": "bob"}
        created = await rules.CreateGame(
            rules_pb2.CreateGameRequest(game="fallen", game_id="split1", seats=players),
            metadata=player_md("alice"),
        )
        # when both seats play random legal commands to the end
        for _ in range(5000):
            game = await rules.GetGame(
                rules_pb2.GetGameRequest(game_id="split1"), metadata=player_md("alice")
            )
            if game.ended:
                break
            seat = game.waiting_for
            md = player_md(players[seat])
            legal = await rules.ListLegalCommands(
                rules_pb2.ListLegalCommandsRequest(game_id="split1", seat=seat), metadata=md
            )
            choices = parse_choices(legal.commands)
            pick = choices[
                random_legal(Turn("fallen", "split1", seat, legal.version, {}, choices, "e2e"))
            ]
            await rules.SubmitCommand(
                rules_pb2.SubmitCommandRequest(
                    game_id="split1", seat=seat, kind=pick.kind, args=to_struct(pick.args)
                ),
                metadata=md,
            )
        # then it ended with a winner, and the dice process revealed and verifies the seed
        assert game.ended and game.outcome["winner"] in players
        dice = dice_pb2_grpc.DiceServiceStub(dch)
        reveal = await dice.Reveal(dice_pb2.RevealRequest(game_id="split1"), metadata=svc_md())
        assert reveal.commitment == created.dice_commitment
        verify = await dice.Verify(dice_pb2.VerifyRequest(game_id="split1"), metadata=svc_md())
        assert verify.ok and verify.checked > 10
        # and the deck process dealt the game: its deck stream verifies against the seed
        store = open_store(split["store"])
        deck_events = await store.read("deck-split1")
        dice_events = await store.read("dice-split1")
        await store.close()
        dealt = verify_deck("split1", deck_events, dice_events)
        assert dealt.ok and dealt.checked >= 9, dealt.mismatch
        assert sum(e.type == "CardsDrawn" for e in deck_events) > 5
