"""Pools at two replicas, each an OS process as deploy/ runs them, on one real redis-server:
the bots-worlds pool's calls spread over both rules-worlds replicas (every address of the
pool's name; each game's calls to one of them), and a bot worker killed mid-game hands its
games to the other.

A DNS name that resolves to both replicas is what a headless Service gives in Kubernetes;
on loopback the same client target is the `ipv4:` list of both addresses.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.platform.auth import issue_token
from services.platform.grpcx.affinity import owner
from services.platform.grpcx.client import pool_target
from services.platform.grpcx.structs import to_struct
from services.platform.healthcheck import check
from services.platform.localservers import free_port

SECRET = "e2e-secret-0123456789-0123456789-0123456789"
GAMES = 6


class Procs:
    """`fallenctl serve ...` processes, stopped at the end."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.tmp, self.env = tmp, env
        self.running: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, args: list[str], metrics: int = 0) -> subprocess.Popen[bytes]:
        """Start one and wait until its gRPC port serves."""
        log = self.tmp / f"{name}.log"
        port = free_port()
        proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "services.cli.main", "serve", *args),
                *("--address", f"127.0.0.1:{port}", "--metrics-port", str(metrics)),
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            env=self.env,
        )
        self.running.append(proc)
        deadline = time.monotonic() + 60
        while check(f"127.0.0.1:{port}", timeout=0.5) != "SERVING":
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{name} did not serve: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        proc.address = f"127.0.0.1:{port}"  # type: ignore[attr-defined]
        return proc

    def stop(self) -> None:
        for proc in reversed(self.running):
            if proc.poll() is None:
                proc.terminate()
        for proc in self.running:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def procs(tmp_path: Path, redis_url: str) -> Iterator[Procs]:
    prefix = f"rep{uuid.uuid4().hex[:8]}"  # its own keys on the shared redis-server
    store = f"{redis_url.split('?')[0]}?prefix={prefix}"
    env = {**os.environ, "FALLEN_JWT_SECRET": SECRET, "FALLEN_STORE": store}
    for var in ("FALLEN_DEV", "FALLEN_VIEWS", "FALLEN_PROJECTIONS", "FALLEN_BOT_WORKERS"):
        env.pop(var, None)
    running = Procs(tmp_path, env)
    try:
        yield running
    finally:
        running.stop()


def submits(metrics_port: int) -> float:
    """Return the SubmitCommand RPCs a process has answered, from its /metrics."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.decode().splitlines()
        if line.startswith("fallen_rpc_total{")
        and 'method="RulesServicer.SubmitCommand"' in line
        and 'code="OK"' in line
    )


def game_ids(replicas: list[str]) -> list[str]:
    """Return GAMES game ids, half of them owned by each replica (the bots send all of a
    game's calls to its owner: services/platform/grpcx/affinity.py)."""
    ids: dict[str, list[str]] = {r: [] for r in replicas}
    n = 0
    while any(len(v) < GAMES // 2 for v in ids.values()):
        gid = "g" + hashlib.sha256(f"rep-{n}".encode()).hexdigest()[:16]
        if len(ids[owner(gid, sorted(replicas))]) < GAMES // 2:
            ids[owner(gid, sorted(replicas))].append(gid)
        n += 1
    return [g for v in ids.values() for g in v]


async def _create_and_play(
    target: str, kill: subprocess.Popen[bytes], wanted: list[str]
) -> list[bool]:
    """Create bot-only Worlds games, kill one bot worker mid-game; return which ended."""
    md = (("authorization", f"Bearer {issue_token('mm', service=True, secret=SECRET)}"),)
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        gids = []
        for n, gid in enumerate(wanted):
            req = rules_pb2.CreateGameRequest(
                game_id=gid,
                game="worlds",
                seats={"p1": "bot:a", "p2": "bot:b"},
                options=to_struct({"bot_seed": f"rep-{n}", "bot_policy": "easy"}),
            )
            async with asyncio.timeout(30):  # the bot pool may still be announcing itself
                while True:
                    try:
                        gids.append((await stub.CreateGame(req, metadata=md)).game_id)
                        break
                    except grpc.aio.AioRpcError as err:
                        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
                        await asyncio.sleep(0.5)

        async def versions() -> list[int]:
            got = [
                await stub.GetGame(rules_pb2.GetGameRequest(game_id=g), metadata=md) for g in gids
            ]
            return [0 if s.ended else s.version for s in got]

        async with asyncio.timeout(120):
            while sum(await versions()) < 30 * GAMES:  # the games are under way
                await asyncio.sleep(0.1)
        kill.send_signal(signal.SIGKILL)  # a bot worker dies mid-game
        async with asyncio.timeout(240):
            while any(await versions()):
                await asyncio.sleep(0.3)
        return [
            (await stub.GetGame(rules_pb2.GetGameRequest(game_id=g), metadata=md)).ended
            for g in gids
        ]


def test_two_replicas_of_each_pool_share_the_games_and_survive_a_dead_worker(
    procs: Procs,
) -> None:
    # given dice, deck and views in one process, two rules-worlds replicas, and two replicas
    # of the bots-worlds pool whose rules target is every address of the rules pool
    main = procs.start("main", ["all", "--workers", "0"])
    metrics = [free_port(), free_port()]
    rules = [
        procs.start(f"rules-worlds-{i}", ["rules-worlds", "--dice", main.address], metrics[i])  # type: ignore[attr-defined]
        for i in range(2)
    ]
    target = pool_target("ipv4:" + ",".join(r.address for r in rules))  # type: ignore[attr-defined]
    bot_args = ["bots-worlds", "--rules", target, "--projections-addr", main.address]  # type: ignore[attr-defined]
    bots = [procs.start(f"bots-worlds-{i}", bot_args) for i in range(2)]
    # when bot games are played and one bot worker is killed mid-game
    wanted = game_ids([r.address for r in rules])  # type: ignore[attr-defined]
    ended = asyncio.run(_create_and_play(rules[0].address, bots[0], wanted))  # type: ignore[attr-defined]
    # then every game ends (the survivor claimed the dead worker's entries)
    assert ended == [True] * GAMES
    # and both rules replicas answered bot commands, each for the games it owns
    assert all(submits(port) > 0 for port in metrics), [submits(p) for p in metrics]
