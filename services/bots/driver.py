"""Play whole games through the rules gRPC API, every seat driven by a bot policy."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
from fallen.projections.v1 import projections_pb2, projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.policies import Policy, Turn, parse_choices, reads_view
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct

MAX_TURNS = 20_000


@dataclass(frozen=True)
class Result:
    """One finished game as `fallenctl play` prints it."""

    game_id: str
    winner: str
    events: int
    final_state_hash: str
    kind: str = ""  # how the game was won, for games that name it (land: prestige, ...)
    turns: int = 0  # turns played, for games that count them (land)

    def to_json(self) -> str:
        """Return the JSON line."""
        line = {
            "game_id": self.game_id,
            "winner": self.winner,
            "events": self.events,
            "final_state_hash": self.final_state_hash,
        }
        if self.kind:
            line["kind"] = self.kind
        if self.turns:
            line["turns"] = self.turns
        return json.dumps(line)


def _md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


VIEW_WAIT_S = 10.0


class SeatView:
    """A seat's latest view, pushed by one WatchView stream for the whole game."""

    def __init__(
        self, views: projections_pb2_grpc.ProjectionServiceStub, gid: str, seat: str, md: Any
    ) -> None:
        self.views, self.gid, self.seat, self.md = views, gid, seat, md
        self.version = -1
        self._latest: Any = None  # the last pushed message, converted only when a bot needs it
        self._moved = asyncio.Condition()
        self._task = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        """Keep the latest pushed view until the stream ends (after the final view)."""
        request = projections_pb2.WatchViewRequest(game_id=self.gid, seat=self.seat)
        async for msg in self.views.WatchView(request, metadata=self.md):
            async with self._moved:
                self.version, self._latest = msg.version, msg
                self._moved.notify_all()

    async def at_least(self, version: int) -> dict[str, Any]:
        """Return the view once it reflects version (GetView if no push comes in time)."""
        async with self._moved:
            try:
                await asyncio.wait_for(
                    self._moved.wait_for(lambda: self.version >= version or self._task.done()),
                    VIEW_WAIT_S,
                )
            except TimeoutError:
                pass
            if self.version >= version:
                return struct_to_py(self._latest.view)
        got = await self.views.GetView(
            projections_pb2.GetViewRequest(
                game_id=self.gid, seat=self.seat, min_version=version, wait_ms=10_000
            ),
            metadata=self.md,
        )
        return struct_to_py(got.view)

    async def close(self) -> None:
        """Stop following the stream."""
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await self._task


@dataclass(frozen=True)
class Next:
    """The turn the bots play next: seat, version and (when known) its legal commands."""

    seat: str
    version: int
    commands: list[Any]


async def play_game(
    stub: rules_pb2_grpc.RulesServiceStub,
    views: projections_pb2_grpc.ProjectionServiceStub,
    game: str,
    seats: Mapping[str, str],
    policies: Mapping[str, Policy],
    seed: str,
    options: Mapping[str, Any] | None = None,
    game_id: str = "",
    pace_s: float = 0.0,
    dice: dice_pb2_grpc.DiceServiceStub | None = None,
) -> Result:
    """Create a game and play it to the end; return its result.

    Like a good client, at most two RPCs per command: SubmitCommand, whose answer names
    the next turn and, when the same player holds that seat, its legal commands; else
    ListLegalCommands as that seat's player. Each seat's view is pushed by one WatchView
    stream per seat for the whole game (the bot waits for the version it acts at); a
    view-blind policy (random) neither follows nor waits for its view.
    The creator's client seed is `seed`; with dice, every other player gives theirs
    (`seed-<seat>`), so chance need not wait for the seed deadline.
    """
    meta = {seat: _md(player) for seat, player in seats.items()}
    first = next(iter(meta.values()))
    created = await stub.CreateGame(
        rules_pb2.CreateGameRequest(
            game=game,
            game_id=game_id,
            seats=dict(seats),
            options=to_struct(options),
            client_seed=seed,
        ),
        metadata=first,
    )
    gid = created.game_id
    if dice is not None:
        for seat in created.awaiting_seeds:
            req = dice_pb2.SetClientSeedRequest(
                game_id=gid, seat=seat, client_seed=f"{seed}-{seat}"
            )
            await dice.SetClientSeed(req, metadata=meta[seat])
    # A seat's view is followed only when its policy reads it: a view-blind bot (random)
    # does not wait for the read side, which in a split deployment trails the rules pool.
    watched = {
        seat: SeatView(views, gid, seat, md)
        for seat, md in meta.items()
        if reads_view(policies[seat])
    }
    try:
        summary = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=first)
        turn = None if summary.ended else Next(summary.waiting_for, summary.version, [])
        for _ in range(MAX_TURNS):
            if turn is None:
                return await _result(stub, gid, first)
            turn = await _play_turn(stub, game, gid, seed, turn, meta, watched, policies)
            if pace_s:
                await asyncio.sleep(pace_s)
        raise RuntimeError(f"game {gid} did not end within {MAX_TURNS} turns")
    finally:
        for w in watched.values():
            await w.close()


async def _play_turn(
    stub: rules_pb2_grpc.RulesServiceStub,
    game: str,
    gid: str,
    seed: str,
    turn: Next,
    meta: Mapping[str, Any],
    watched: Mapping[str, SeatView],
    policies: Mapping[str, Policy],
) -> Next | None:
    """Submit the policy's pick for one turn; return the next turn (None: the game is over)."""
    if turn.seat not in meta:
        raise RuntimeError(f"game {gid} waits for {turn.seat!r}, which no bot plays")
    md = meta[turn.seat]
    commands, version = turn.commands, turn.version
    if not commands:
        legal = await stub.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=turn.seat), metadata=md
        )
        if not legal.waiting_for:
            return None
        if legal.waiting_for != turn.seat:
            return Next(legal.waiting_for, legal.version, [])
        commands, version = list(legal.commands), legal.version
    choices = parse_choices(commands)
    if not choices:
        raise RuntimeError(f"game {gid}: seat {turn.seat} must act but has no legal command")
    follow = watched.get(turn.seat)
    view = await follow.at_least(version) if follow else {}
    pick = choices[policies[turn.seat](Turn(game, gid, turn.seat, version, view, choices, seed))]
    try:
        answer = await stub.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=gid,
                seat=turn.seat,
                kind=pick.kind,
                args=to_struct(pick.args),
                command_id=f"bot-{turn.seat}-{version}",
                expected_version=version,
            ),
            metadata=md,
        )
    except grpc.aio.AioRpcError as err:
        if err.code() != grpc.StatusCode.ABORTED:
            raise
        return Next(turn.seat, version, [])  # someone else moved: ask again
    if answer.ended:
        return None
    if not answer.HasField("next_turn"):  # a deduplicated retry: ask again
        return Next(turn.seat, answer.version, [])
    nxt = answer.next_turn
    return Next(nxt.waiting_for, answer.version, list(nxt.commands))


async def _result(stub: rules_pb2_grpc.RulesServiceStub, gid: str, md: Any) -> Result:
    """Return the result of a finished game (one GetGame per game)."""
    summary = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md)
    outcome = struct_to_py(summary.outcome)
    winner = outcome.get("winner") or ",".join(outcome.get("winners") or [])
    return Result(
        gid,
        str(winner),
        summary.version,
        summary.final_state_hash,
        str(outcome.get("kind", "")),
        int(outcome.get("turns") or 0),
    )
