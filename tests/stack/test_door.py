"""The stack through its one address only: the door (deploy/door), as a client uses it.

Every kind of game is played through the door's plaintext gRPC port (and the program of
docs/clients.md plays and disputes a Fallen game there): Fallen, a Fallen Land
game of 3 seats, an Epic (6 seats) and a solo game by `fallenctl play --target DOOR`, and
Fallen Worlds against the bots pool from matchmaking's `vs_bot` queue, its pool taken from
MatchFound. The Worlds game is watched live (WatchView) while it is played, its audit log
is downloaded with `fallenctl audit export` and verified with `fallenctl replay --log
--verify`; the web page and its JSON routes are opened on the door's web port; TLS answers
with the certificate the door made; internal RPCs and calls without a pool are refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from fallen.matchmaking.v1.matchmaking_pb2_grpc import MatchmakingServiceStub
from fallen.projections.v1 import projections_pb2, projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.driver import _md
from services.bots.policies import policy_for
from services.platform.auth import issue_token
from services.platform.grpcx.pool_routing import PoolRouting
from tests.integration.test_client_guide import guide_example
from tests.stack.compose import Stack, docker
from tests.stack.play import Ack, Replicas, matched, play

GRPC_PORT, TLS_PORT, WEB_PORT = 50051, 50443, 8080
CERT = "/var/lib/fallen-door/tls.crt"
CLI_TIMEOUT_S = 300.0
FALLENCTL = [sys.executable, "-m", "services.cli.main"]
ROOT = Path(__file__).resolve().parents[2]
# fallenctl play: every Fallen Land game ends after its first turn (as the stack tests' games)
SHORT = ["--options", '{"short_game": true}', "--max-turns", "1"]
KINDS = {
    "fallen": ["fallen"],
    "land 3 seats": ["land", "--seats", "3", *SHORT],
    "land epic": ["land", "--seats", "6", *SHORT],
    "land solo": ["land", "--variant", "solo1", *SHORT],
}

pytestmark = pytest.mark.timeout(900)


@dataclass(frozen=True)
class Door:
    """The stack's one address: gRPC, TLS gRPC and web ports, and the door's certificate."""

    grpc: str
    tls: str
    web: str
    cert: bytes


@pytest.fixture(scope="module")
def door(stack: Stack) -> Door:
    (cid,) = stack.containers("door")
    at = {p: f"127.0.0.1:{stack.port(cid, p)}" for p in (GRPC_PORT, TLS_PORT, WEB_PORT)}
    cert = docker("exec", cid, "cat", CERT).encode()
    return Door(at[GRPC_PORT], at[TLS_PORT], at[WEB_PORT], cert)


def fallenctl(*args: str) -> str:
    """Run fallenctl (the stack's JWT secret in the environment); return its stdout."""
    done = subprocess.run(
        [*FALLENCTL, *args], capture_output=True, text=True, timeout=CLI_TIMEOUT_S, cwd=ROOT,
        env={**os.environ}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"fallenctl {' '.join(args)}: {done.stderr[-2000:]}"
    return done.stdout


async def test_fallenctl_plays_every_kind_of_game_through_the_door(door: Door):
    # given only the door's address
    # when fallenctl plays a game of each kind through it (bots in every seat)
    results = {}
    for name, args in KINDS.items():
        out = await asyncio.to_thread(fallenctl, "play", *args, "--target", door.grpc)
        results[name] = json.loads(out.strip().splitlines()[-1])
    # then every game ended, with its final state hash
    for name, result in results.items():
        assert result["final_state_hash"], (name, result)
    # and `fallenctl view` reads the last one's spectator view through the same address
    last = results["land solo"]["game_id"]
    seen = json.loads(fallenctl("view", last, "--target", door.grpc))
    assert seen["view"] and seen["version"] >= 1, seen


def test_the_client_guides_program_plays_and_disputes_a_game_through_the_door(
    door: Door, tmp_path: Path
):
    # given the program of docs/clients.md, pointed at the door
    script = tmp_path / "client.py"
    script.write_text(guide_example())
    env = {
        **os.environ,
        "FALLEN_TARGET": door.grpc,
        "ALICE_TOKEN": issue_token("alice"),
        "BOB_TOKEN": issue_token("bob"),
    }
    # when it runs as a client process
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True,
        timeout=CLI_TIMEOUT_S, check=False,
    )  # fmt: skip
    # then it played the game to its end, watched it, and the dispute verified it
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "chain True, dice True" in done.stdout and "verified=True" in done.stdout


async def watch(views: projections_pb2_grpc.ProjectionServiceStub, game_id: str) -> list[int]:
    """Follow the spectator view through the door until the game ends; return the versions."""
    seen: list[int] = []
    request = projections_pb2.WatchViewRequest(game_id=game_id)
    for _ in range(60):  # NOT_FOUND until the faust workers wrote the game's first view
        try:
            async for msg in views.WatchView(request, metadata=_md("door-watcher")):
                seen.append(msg.version)
                if msg.ended:
                    return seen
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.NOT_FOUND:
                raise
        await asyncio.sleep(1)
    raise AssertionError(f"{game_id}: the watch never saw the end ({seen[-5:]})")


async def test_worlds_vs_bot_from_matchmaking_is_watched_live_and_its_audit_log_verifies(
    door: Door, tmp_path: Path
):
    # given a player who queues for Worlds against a bot, through the door
    player = f"door-{os.getpid()}"
    mm = Replicas([door.grpc], MatchmakingServiceStub)
    match = await matched(mm, 0, "worlds", "vs_bot", player)
    await mm.close()
    # when it plays its seat where MatchFound says (its pool echoed), watched live meanwhile
    routing = PoolRouting(match.pool)
    rules = Replicas([door.grpc], interceptors=[routing])
    get = rules_pb2.GetGameRequest(game_id=match.game_id)
    seats = dict((await rules.call(0, "GetGame", get, _md(player))).seats)
    async with grpc.aio.insecure_channel(door.grpc) as channel:
        watcher = asyncio.create_task(
            watch(projections_pb2_grpc.ProjectionServiceStub(channel), match.game_id)
        )
        views = Replicas([door.grpc], projections_pb2_grpc.ProjectionServiceStub)
        acks: list[Ack] = []
        policies = {seat: policy_for("worlds", "random") for seat in seats}
        try:
            result = await play(
                rules, views, 0, "worlds", match.game_id, seats, policies, acks, created=True
            )
            versions = await asyncio.wait_for(watcher, 120)
        finally:
            await rules.close()
            await views.close()
    # then the game ended with moves by the bots pool, and the watch was pushed live views
    assert match.pool == "rules-worlds" and "stalled" not in result, result
    assert result["bots"] and acks, result
    assert len(versions) >= 2 and versions == sorted(versions), versions
    assert versions[-1] == result["version"], (versions[-5:], result)
    # and its audit log, downloaded through the door by the player, verifies
    token = fallenctl("token", "--player", player).strip()
    log = tmp_path / "audit.jsonl"
    fallenctl(
        "audit", "export", match.game_id, "--target", door.grpc, "--token", token, "-o", str(log)
    )
    report = json.loads(fallenctl("replay", match.game_id, "--log", str(log), "--verify"))
    assert report["verified"] is True, report
    # and replay --target reads and verifies it through the door too
    again = json.loads(
        fallenctl("replay", match.game_id, "--verify", "--target", door.grpc, "--token", token)
    )
    assert again["verified"] is True and again["events"] == report["events"], again
    # and the web page shows it: the page, the lobby, the game's view and audit routes
    web = f"http://{door.web}"
    page = await asyncio.to_thread(read_url, f"{web}/")
    assert b"<html" in page.lower(), page[:200]
    lobby = json.loads(await asyncio.to_thread(read_url, f"{web}/api/games?limit=200"))
    assert match.game_id in json.dumps(lobby), lobby
    view = json.loads(await asyncio.to_thread(read_url, f"{web}/api/games/{match.game_id}/view"))
    assert view["version"] == result["version"], view
    events = await asyncio.to_thread(read_url, f"{web}/api/games/{match.game_id}/watch")
    assert b'"ended":true' in events and events.endswith(b"event: end\ndata: {}\n\n"), events[-300:]


def read_url(url: str) -> bytes:
    """GET url; return the body (an HTTP error fails the test)."""
    with urllib.request.urlopen(url, timeout=30) as resp:
        assert resp.status == 200, (url, resp.status)
        return bytes(resp.read())


async def test_tls_answers_with_the_door_certificate_and_internal_rpcs_stay_inside(door: Door):
    # given a TLS channel that trusts the door's self-signed certificate
    creds = grpc.ssl_channel_credentials(root_certificates=door.cert)
    async with grpc.aio.secure_channel(door.tls, creds) as tls:
        # when a client lists the games kinds of a pool over TLS
        kinds = await rules_pb2_grpc.RulesServiceStub(tls).ListGames(
            rules_pb2.ListGamesRequest(), metadata=(*_md("tls"), ("x-fallen-pool", "rules-land"))
        )
        listed = await projections_pb2_grpc.ProjectionServiceStub(tls).ListGames(
            projections_pb2.ListGamesRequest(limit=5), metadata=_md("tls")
        )
    # then the pool answers, and so does the read side
    assert [k.game for k in kinds.games] == ["land"]
    assert listed is not None
    async with grpc.aio.insecure_channel(door.grpc) as plain:
        rules = rules_pb2_grpc.RulesServiceStub(plain)
        dice = dice_pb2_grpc.DiceServiceStub(plain)
        # when calls come without a pool, or name one that is not a pool
        for meta in (_md("p"), (*_md("p"), ("x-fallen-pool", "deck"))):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await rules.GetGame(rules_pb2.GetGameRequest(game_id="g1"), metadata=meta)
            # then the door refuses them, naming the metadata to send
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
            assert "x-fallen-pool" in (err.value.details() or "")
        # and the dice service's internal calls are not routed, its player calls are
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await dice.Roll(dice_pb2.RollRequest(game_id="g1"), metadata=_md("p"))
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED, err.value
        assert "internal" in (err.value.details() or "")
        kinds_of_dice = await dice.ListKinds(dice_pb2.ListKindsRequest(), metadata=_md("p"))
        assert kinds_of_dice.ListFields(), kinds_of_dice
