"""fallenctl play / view: full bot games and seat views through the gRPC API."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from collections.abc import AsyncIterator
from typing import Annotated

import grpc
import typer
from fallen.dice.v1 import dice_pb2_grpc
from fallen.projections.v1 import projections_pb2, projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.driver import play_game
from services.bots.policies import policy_for
from services.platform.grpcx.pool_routing import PoolRouting
from services.platform.grpcx.structs import struct_to_py
from services.rules.pools import pool_for


@contextlib.asynccontextmanager
async def rules_channel(
    target: str | None, store: str | None, routing: PoolRouting | None = None
) -> AsyncIterator[grpc.aio.Channel]:
    """Yield a channel to target (sending each game's pool, for the stack's one address),
    or to an embedded server started for the occasion."""
    if target:
        interceptors = [routing] if routing else None
        async with grpc.aio.insecure_channel(target, interceptors=interceptors) as channel:
            yield channel
        return
    from services.app import serve
    from services.platform.store.factory import open_store

    with tempfile.TemporaryDirectory(prefix="fallen-play-") as tmp:
        url = store or f"sqlite:///{os.path.join(tmp, 'play.db')}"
        backend = await serve(open_store(url), "127.0.0.1:0")
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
                yield channel
        finally:
            await backend.stop()


def _parse_policies(seats: list[str], spec: str) -> dict[str, str]:
    """Return seat -> policy name from 'name' or 'seat=name,seat=name'."""
    if "=" not in spec:
        return {seat: spec for seat in seats}
    chosen = dict(part.split("=", 1) for part in spec.split(","))
    unknown = set(chosen) - set(seats)
    if unknown:
        raise typer.BadParameter(f"unknown seats {sorted(unknown)}; seats: {seats}")
    return {seat: chosen.get(seat, "random") for seat in seats}


def rule_options(
    pvp_option: int | None,
    harsh_reality: bool,
    harsh_modifier: list[int],
    gods_hammer: bool,
    ronin: bool,
    max_turns: int | None,
) -> dict[str, object]:
    """Return the land options the rule flags choose (the server validates them)."""
    out: dict[str, object] = {}
    if pvp_option is not None:
        out["pvp_option"] = pvp_option
    for m in harsh_modifier:
        if m not in (1, 2):
            raise typer.BadParameter("--harsh-modifier is 1 or 2")
        out[f"harsh_modifier_{m}"] = True
    if harsh_reality or harsh_modifier:
        out["harsh_reality"] = True
    if gods_hammer:
        out["gods_hammer"] = True
    if ronin:
        out["ronin"] = True
    if max_turns is not None:
        out["max_turns"] = max_turns
    return out


def default_policy(options: dict[str, object]) -> str:
    """Return the bots' policy when none is named: heuristic where random play may never win.

    A solo variant, and Ronin (a random party seldom tries, let alone completes, the City/Rad
    Encounter its tracks wait for), play the heuristic bot; every other game random.
    """
    if str(options.get("variant", "")).startswith("solo") or options.get("ronin"):
        return "heuristic"
    return "random"


def play(
    game: Annotated[str, typer.Argument(help="fallen, worlds or land")],
    bots: Annotated[bool, typer.Option("--bots", help="Bots in every seat")] = True,
    games: Annotated[int, typer.Option(help="Number of games")] = 1,
    seed: Annotated[str, typer.Option(help="Bot and client seed prefix")] = "1",
    policy: Annotated[
        str | None,
        typer.Option(
            help="'random', or seat=policy,...; default random (heuristic in a solo variant "
            "and with --ronin, where random play may never reach a victory)"
        ),
    ] = None,
    target: Annotated[str | None, typer.Option(help="Server address; default: embedded")] = None,
    store: Annotated[str | None, typer.Option(help="Store of the embedded server")] = None,
    options: Annotated[str, typer.Option(help="Game options as JSON")] = "{}",
    pace_ms: Annotated[int, typer.Option(help="Pause after each command (to watch live)")] = 0,
    seats: Annotated[
        int | None, typer.Option(help="Seats to fill (land: 2-6, 6 = Epic); default: all")
    ] = None,
    variant: Annotated[
        str | None, typer.Option(help="land: 'standard', 'solo1' or 'solo2' (one seat)")
    ] = None,
    challenge: Annotated[
        int | None, typer.Option(help="land solo2: challenge level 1-4 (opposing factions)")
    ] = None,
    pvp_option: Annotated[
        int | None, typer.Option(help="land solo2: PVP option (1 = an NPCM, 2 = a PVP Party)")
    ] = None,
    harsh_reality: Annotated[
        bool, typer.Option("--harsh-reality", help="land: optional rule A Harsh Reality")
    ] = False,
    harsh_modifier: Annotated[
        list[int] | None,
        typer.Option(help="land: A Harsh Reality modifier 1 and/or 2 (repeat; implies it)"),
    ] = None,
    gods_hammer: Annotated[
        bool, typer.Option("--gods-hammer", help="land: optional rule Project God's Hammer")
    ] = False,
    ronin: Annotated[bool, typer.Option("--ronin", help="land: optional rule Ronin")] = False,
    max_turns: Annotated[
        int | None, typer.Option(help="land: end (turn limit) after this many turns")
    ] = None,
) -> None:
    """Play full games with bots in every seat; print one JSON line per game."""
    if not bots:
        raise typer.BadParameter("only --bots games are supported from the command line")
    os.environ.setdefault("FALLEN_DEV", "1")
    opts = dict(json.loads(options))
    if variant is not None:
        opts["variant"] = variant
        if variant.startswith("solo") and seats is None:
            seats = 1
    if challenge is not None:
        opts["challenge"] = challenge
    opts.update(
        rule_options(pvp_option, harsh_reality, harsh_modifier or [], gods_hammer, ronin, max_turns)
    )
    if policy is None:
        policy = default_policy(opts)
    asyncio.run(_play(game, games, seed, policy, target, store, opts, pace_ms / 1000, seats))


async def _play(
    game: str,
    games: int,
    seed: str,
    policy: str,
    target: str | None,
    store: str | None,
    options: dict[str, object],
    pace_s: float = 0.0,
    seat_count: int | None = None,
) -> None:
    # Behind the stack's one address the game's pool is sent with every rules call: the
    # pool of the game kind and seat count first (ListGames, CreateGame), then the one
    # CreateGame names (docs/clients.md, "One address").
    routing = PoolRouting(pool_for(game, seat_count or 1))
    async with rules_channel(target, store, routing) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        views = projections_pb2_grpc.ProjectionServiceStub(channel)
        dice = dice_pb2_grpc.DiceServiceStub(channel)
        from services.bots.driver import _md

        kinds = await stub.ListGames(rules_pb2.ListGamesRequest(), metadata=_md("cli"))
        seats_of = {k.game: list(k.seats) for k in kinds.games}
        if game not in seats_of:
            raise typer.BadParameter(f"the server runs {sorted(seats_of)}, not {game!r}")
        seats = seats_of[game]
        if seat_count is not None:
            if not 1 <= seat_count <= len(seats):
                raise typer.BadParameter(f"--seats must be 1-{len(seats)} for {game}")
            seats = seats[:seat_count]
        routing.default = pool_for(game, len(seats))
        names = _parse_policies(seats, policy)
        policies = {seat: policy_for(game, name) for seat, name in names.items()}
        for i in range(games):
            players = {seat: f"bot-{seat}-{seed}-{i}" for seat in seats}
            result = await play_game(
                stub, views, game, players, policies, f"{seed}-{i}", options, dice=dice
            )
            typer.echo(result.to_json())


def view(
    game_id: Annotated[str, typer.Argument(help="Game id")],
    seat: Annotated[str, typer.Option(help="Seat to read, or '' for the spectator view")] = "",
    target: Annotated[str, typer.Option(help="Server address")] = "127.0.0.1:50051",
) -> None:
    """Print a seat's view as JSON (uses a service token: needs the server's secret)."""
    os.environ.setdefault("FALLEN_DEV", "1")

    async def run() -> str:
        from services.platform.grpcx.client import ServiceCredentials

        async with grpc.aio.insecure_channel(target) as channel:
            stub = projections_pb2_grpc.ProjectionServiceStub(channel)
            try:
                resp = await stub.GetView(
                    projections_pb2.GetViewRequest(game_id=game_id, seat=seat),
                    metadata=ServiceCredentials("fallenctl").metadata(),
                )
            except grpc.aio.AioRpcError as err:
                raise typer.BadParameter(f"{err.code().name}: {err.details()}") from err
            return json.dumps({"version": resp.version, "view": struct_to_py(resp.view)})

    typer.echo(asyncio.run(run()))
