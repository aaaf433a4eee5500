"""Bots that keep playing toy games through gRPC while the server is killed and restarted.

A `Served` process is `fallenctl serve` on a store; `Bots` play games to the end, retrying
every request with the same command id after a transport error, and record what they
learn: acknowledged commands, stalls (a game waiting for chance too long), refusals.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.platform.auth import issue_token
from services.platform.games import game_stream
from services.platform.localservers import free_port
from services.platform.store.base import EventStore
from tests.support.projections_play import engines

ROOT = Path(__file__).resolve().parents[2]
TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.UNKNOWN,
}
RPC_TIMEOUT_S = 3.0
STALL_S = 20.0


class Served:
    """`fallenctl serve` (every service, or one: service and its flags) on a store, killed
    and restarted by the test."""

    def __init__(
        self,
        store_url: str,
        port: int | None = None,
        service: str = "all",
        flags: tuple[str, ...] = (),
    ) -> None:
        self.store_url = store_url
        self.port = port or free_port()
        self.service = service
        self.flags = flags
        self.proc: subprocess.Popen[bytes] | None = None
        self.kills = 0

    def start(self, timeout_s: float = 30.0) -> None:
        """Start the server and wait until it accepts connections."""
        env = dict(os.environ, FALLEN_DEV="1", FALLEN_PROJECTIONS="external")
        env.update(
            FALLEN_EXTRA_GAMES="toy=tests.support.toy_game:RULES",
            FALLEN_LOG_LEVEL="WARNING",
            PYTHONPATH=str(ROOT),
        )
        env.pop("FALLEN_JWT_SECRET", None)
        cmd = [
            sys.executable, "-m", "services.cli.main", "serve", self.service,
            "--port", str(self.port), "--store", self.store_url, "--metrics-port", "0",
            *self.flags,
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"fallenctl serve exited with {self.proc.returncode}")
            try:
                import socket

                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("fallenctl serve did not start")

    def kill(self) -> None:
        """SIGKILL the server (by its pid) and reap it."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.kills += 1

    def stop(self) -> None:
        """Stop the server if it runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Tally:
    """What the bots saw."""

    games: list[str] = field(default_factory=list)
    acked: list[tuple[str, str]] = field(default_factory=list)
    stalls: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    retries: int = 0


def _md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


async def call(tally: Tally, method: Any, request: Any, md: Any, give_up: float) -> Any:
    """Call an RPC, retrying the same request after transport errors until give_up."""
    while True:
        try:
            return await method(request, metadata=md, timeout=RPC_TIMEOUT_S)
        except grpc.aio.AioRpcError as err:
            if err.code() not in TRANSIENT or time.monotonic() > give_up:
                raise
            tally.retries += 1
            await asyncio.sleep(0.05)


async def play_toy(targets: list[str], gid: str, tally: Tally, race: bool = False) -> None:
    """Play one toy game to its end; with race, send every command to every target at once."""
    seats = {"a": f"p-a-{gid}", "b": f"p-b-{gid}"}
    md = {s: _md(p) for s, p in seats.items()}
    channels = [grpc.aio.insecure_channel(t) for t in targets]
    stubs = [rules_pb2_grpc.RulesServiceStub(c) for c in channels]
    give_up = time.monotonic() + 600
    tally.games.append(gid)
    try:
        try:
            req = rules_pb2.CreateGameRequest(game="toy", game_id=gid, seats=seats)
            await call(tally, stubs[0].CreateGame, req, md["a"], give_up)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.ALREADY_EXISTS:  # a retry after its first landed
                raise
        chance_since: float | None = None
        turn = 0
        while True:
            stub = stubs[turn % len(stubs)]
            turn += 1
            got = await call(
                tally, stub.GetGame, rules_pb2.GetGameRequest(game_id=gid), md["a"], give_up
            )
            if got.ended:
                return
            seat = got.waiting_for
            if seat == "chance" or seat not in md:
                chance_since = chance_since or time.monotonic()
                if time.monotonic() - chance_since > STALL_S:
                    tally.stalls.append(gid)
                    return
                await asyncio.sleep(0.05)
                continue
            chance_since = None
            legal = await call(
                tally,
                stub.ListLegalCommands,
                rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat),
                md[seat],
                give_up,
            )
            if not legal.commands or legal.waiting_for != seat:
                continue
            pick = legal.commands[0]
            command_id = f"{seat}-{legal.version}"
            req = rules_pb2.SubmitCommandRequest(
                game_id=gid,
                seat=seat,
                kind=pick.kind,
                args=pick.args,
                command_id=command_id,
                expected_version=legal.version,
            )
            senders = stubs if race else [stub]
            try:
                await asyncio.gather(
                    *(call(tally, s.SubmitCommand, req, md[seat], give_up) for s in senders)
                )
            except grpc.aio.AioRpcError as err:
                tally.refused.append(f"{gid} {command_id}: {err.code().name} {err.details()}")
                continue
            tally.acked.append((gid, command_id))
    finally:
        for c in channels:
            await c.close()


@dataclass
class Findings:
    """What checking the store after the run found."""

    games: int
    ended: int
    verified: int
    unused_draws: int
    lost_acks: list[tuple[str, str]]
    failures: list[str]

    def to_json(self) -> str:
        """Return the figures as one JSON line."""
        return json.dumps(self.__dict__, default=str)


async def check_store(store: EventStore, tally: Tally) -> Findings:
    """Verify every game the bots played and look for every acknowledged command."""
    ended = verified = unused = 0
    failures: list[str] = []
    causes: dict[str, set[str]] = {}
    for gid in tally.games:
        events = await store.read(game_stream(gid))
        causes[gid] = {e.causation_id for e in events}
        if not any(e.type == "GameEnded" for e in events):
            failures.append(f"{gid}: not ended at version {len(events)}")
            continue
        ended += 1
        report = verify_game(gid, await store_records(store, gid), engines().get)
        unused += len(report.unused_draws)
        if report.verified:
            verified += 1
        else:
            failures.append(f"{gid}: {report.mismatch}")
    lost = [(g, c) for g, c in tally.acked if c not in causes.get(g, set())]
    return Findings(len(tally.games), ended, verified, unused, lost, failures)
