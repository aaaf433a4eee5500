"""Play whole games through the rules gRPC API, every seat driven by a bot policy."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from fallen.projections.v1 import projections_pb2, projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.policies import Policy, Turn, parse_choices
from services.kernel.auth import issue_token
from services.kernel.grpcx.structs import struct_to_py, to_struct

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
) -> Result:
    """Create a game and play it to the end; return its result.

    Commands go to the rules service; each seat's view comes from the read side
    (ProjectionService.GetView with min_version, so the bot sees its own last move).
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
    for _ in range(MAX_TURNS):
        summary = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=first)
        if summary.ended:
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
        seat = summary.waiting_for
        if seat not in meta:
            raise RuntimeError(f"game {gid} waits for {seat!r}, which no bot plays")
        legal = await stub.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat), metadata=meta[seat]
        )
        choices = parse_choices(legal.commands)
        if not choices:
            raise RuntimeError(f"game {gid}: seat {seat} must act but has no legal command")
        view = await views.GetView(
            projections_pb2.GetViewRequest(
                game_id=gid, seat=seat, min_version=legal.version, wait_ms=10_000
            ),
            metadata=meta[seat],
        )
        turn = Turn(game, gid, seat, legal.version, struct_to_py(view.view), choices, seed)
        pick = choices[policies[seat](turn)]
        try:
            await stub.SubmitCommand(
                rules_pb2.SubmitCommandRequest(
                    game_id=gid,
                    seat=seat,
                    kind=pick.kind,
                    args=to_struct(pick.args),
                    command_id=f"bot-{seat}-{legal.version}",
                    expected_version=legal.version,
                ),
                metadata=meta[seat],
            )
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.ABORTED:
                raise
        if pace_s:
            await asyncio.sleep(pace_s)
    raise RuntimeError(f"game {gid} did not end within {MAX_TURNS} turns")
