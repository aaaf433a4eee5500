"""`fallenctl bench bots GAME --latency`: how soon a bot answers the human's command.

A human client plays vs-bot games (easy bots: a random legal move) against a served
backend, in two deployments: the embedded server (`fallenctl serve all` on SQLite with its
in-process bot worker, what `make run` serves) and the Redis deployment (`serve all
--workers 0` on a Redis store plus a `serve bots` pool process on its feed). For each
human command that hands the bot the turn, the bot answer latency is the time from the
human's SubmitCommand returning until GetGame shows the game moved on (polled every
POLL_S, so a figure is at most POLL_S late). The same run times the human's own
SubmitCommand round trips: the baseline a bot answer is compared with.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from typing import Any

import grpc

from services.platform.localservers import free_port, redis_server

POLL_S = 0.002
HUMAN_SEAT = {"fallen": "hero", "worlds": "p1", "land": "p1"}
BOT_SEAT = {"fallen": "dungeon_lord", "worlds": "p2", "land": "p2"}
CREATE_WAIT_S = 15.0  # a bot pool process may still be joining the feed


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    """Return p50, p90, p99 and max of samples (seconds) in ms."""
    if not samples:
        return {}
    ordered = sorted(samples)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)

    return {
        "p50": at(0.50),
        "p90": at(0.90),
        "p99": at(0.99),
        "max": round(ordered[-1] * 1000, 2),
        "mean": round(statistics.fmean(ordered) * 1000, 2),
    }


async def _create(stub: Any, game: str, n: int, seed: str, md: Any) -> str:
    from fallen.rules.v1 import rules_pb2

    from services.platform.grpcx.structs import to_struct

    options: dict[str, Any] = {"bots": [BOT_SEAT[game]], "bot_policy": "easy"}
    options["bot_seed"] = f"{seed}-{n}"
    if game == "land":
        options.update({"short_game": True, "max_turns": 3})
    req = rules_pb2.CreateGameRequest(
        game=game,
        seats={HUMAN_SEAT[game]: "human", BOT_SEAT[game]: "bot:bench"},
        options=to_struct(options),
        client_seed=f"{seed}-human-{n}",  # the human's seed: chance need not wait for it
    )
    deadline = time.monotonic() + CREATE_WAIT_S
    while True:
        try:
            return str((await stub.CreateGame(req, metadata=md)).game_id)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.FAILED_PRECONDITION or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


async def _human_game(
    stub: Any, game: str, gid: str, md: Any, bot_ms: list[float], submit_ms: list[float]
) -> None:
    """Play the human seat to the end, timing its commands and the bot's answers."""
    from fallen.rules.v1 import rules_pb2

    from services.bots.policies import parse_choices
    from services.platform.grpcx.structs import to_struct

    seat = HUMAN_SEAT[game]
    commands: list[Any] = []
    while True:
        if not commands:
            g = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md)
            if g.ended:
                return
            if g.waiting_for != seat:
                await asyncio.sleep(POLL_S)
                continue
            legal = await stub.ListLegalCommands(
                rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat), metadata=md
            )
            commands, version = list(legal.commands), legal.version
            if legal.waiting_for != seat or not commands:
                commands = []
                continue
        choices = parse_choices(commands)
        digest = hashlib.sha256(f"{gid}:{version}".encode()).digest()
        pick = choices[int.from_bytes(digest[:8], "big") % len(choices)]
        sent = time.perf_counter()
        answer = await stub.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=gid,
                seat=seat,
                kind=pick.kind,
                args=to_struct(pick.args),
                command_id=f"h{version}",
                expected_version=version,
            ),
            metadata=md,
        )
        back = time.perf_counter()
        submit_ms.append(back - sent)
        commands = []
        if answer.ended:
            return
        nxt = answer.next_turn
        if nxt.waiting_for == seat and nxt.commands:
            commands, version = list(nxt.commands), answer.version
            continue
        if nxt.waiting_for == BOT_SEAT[game]:  # handed to the bot: wait for its answer
            while True:
                g = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md)
                if g.version > answer.version or g.ended:
                    bot_ms.append(time.perf_counter() - back)
                    break
                await asyncio.sleep(POLL_S)


async def measure(target: str, game: str, games: int, seed: str) -> dict[str, Any]:
    """Play `games` vs-bot games one after another; return the latency figures."""
    from fallen.rules.v1 import rules_pb2_grpc

    from services.platform.auth import issue_token

    md = (("authorization", f"Bearer {issue_token('human')}"),)
    bot_s: list[float] = []
    submit_s: list[float] = []
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        start = time.perf_counter()
        for n in range(games):
            gid = await _create(stub, game, n, seed, md)
            await _human_game(stub, game, gid, md, bot_s, submit_s)
        took = time.perf_counter() - start
    return {
        "game": game,
        "policy": "easy",
        "games": games,
        "seconds": round(took, 2),
        "bot_answers": len(bot_s),
        "bot_answer_ms": percentiles(bot_s),
        "human_submits": len(submit_s),
        "human_submit_ms": percentiles(submit_s),
    }


@contextlib.contextmanager
def _deployment(name: str) -> Iterator[str]:
    """Serve a deployment; yield the rules address a client uses."""
    from benchmarks.bots import _process

    port = free_port()
    if name == "embedded":
        with (
            tempfile.TemporaryDirectory() as tmp,
            _process(["all", "--store", f"sqlite:///{tmp}/bench.db", "--workers", "1"], port),
        ):
            yield f"127.0.0.1:{port}"
        return
    with (
        redis_server() as url,
        _process(["all", "--store", url, "--workers", "0"], port),
        _process(["bots", "--store", url, "--rules", f"127.0.0.1:{port}"], free_port()),
    ):
        yield f"127.0.0.1:{port}"


def run_latency(
    game: str, games: int, seed: str, deployments: Sequence[str] = ("embedded", "redis")
) -> list[dict[str, Any]]:
    """Return the latency figures of each deployment, measured one after the other."""
    out = []
    for name in deployments:
        with _deployment(name) as target:
            out.append({"deployment": name, **asyncio.run(measure(target, game, games, seed))})
    return out
