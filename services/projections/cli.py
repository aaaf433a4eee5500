"""fallenctl replay / audit export / projections: disputes and projection runners from the shell."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from services.audit.verify import Mismatch

DEFAULT_TARGET = "127.0.0.1:50051"
MAX_MESSAGE = 256 * 1024 * 1024

audit_app = typer.Typer(help="Audit logs of finished games.", no_args_is_help=True)
projections_app = typer.Typer(help="Projection runners and their status.", no_args_is_help=True)

Target = Annotated[
    str, typer.Option(envvar="FALLEN_TARGET", help="Server to read through (gRPC HOST:PORT)")
]
StoreUrl = Annotated[
    str | None, typer.Option(help="Read straight from this event store instead (sqlite:///...)")
]
Token = Annotated[
    str | None,
    typer.Option(envvar="FALLEN_TOKEN", help="Bearer token; default: a local service token"),
]


def rules_of(game: str) -> Any:
    """Return the engine of a game kind (registry plus FALLEN_EXTRA_GAMES), or None."""
    from services.projections.projector import extra_games_from_env
    from services.rules.registry import load

    try:
        return load(game, extra_games_from_env())
    except Exception:
        return None


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """Return call metadata with the given token or a local service token."""
    if token:
        return (("authorization", f"Bearer {token}"),)
    from services.platform.grpcx.client import ServiceCredentials

    if not os.environ.get("FALLEN_JWT_SECRET"):
        os.environ.setdefault("FALLEN_DEV", "1")
    return ServiceCredentials("fallenctl").metadata()


class Refused(Exception):
    """The source refused to give the log (unknown or unfinished game, no permission)."""


async def _remote_records(game_id: str, target: str, token: str | None) -> list[dict[str, Any]]:
    """Return a finished game's audit records through ProjectionService.ReadAuditLog."""
    import grpc
    from fallen.projections.v1 import projections_pb2 as pb
    from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

    options = [("grpc.max_receive_message_length", MAX_MESSAGE)]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        stub = pb_grpc.ProjectionServiceStub(channel)
        try:
            resp = await stub.ReadAuditLog(
                pb.ReadAuditLogRequest(game_id=game_id), metadata=_metadata(token)
            )
        except grpc.aio.AioRpcError as err:
            raise Refused(f"{err.code().name}: {err.details()}") from err
    from services.platform.grpcx.structs import struct_to_py

    return [struct_to_py(r.record) for r in resp.records]


async def _store_records(game_id: str, url: str) -> list[dict[str, Any]]:
    """Return a game's audit records read straight from an event store."""
    from services.audit.logfile import store_records
    from services.platform.store.factory import open_store

    store = open_store(url)
    try:
        return await store_records(store, game_id)
    finally:
        await store.close()


def load_records(
    game_id: str, target: str, store: str | None, log: Path | None, token: str | None
) -> tuple[list[dict[str, Any]], list[tuple[int, Mismatch]]]:
    """Return a game's audit records (and unreadable-line mismatches) from the chosen source."""
    from services.audit.logfile import parse_jsonl

    if log is not None:
        return parse_jsonl(log.read_text(encoding="utf-8"))
    if store:
        return asyncio.run(_store_records(game_id, store)), []
    return asyncio.run(_remote_records(game_id, target, token)), []


def replay(
    game_id: Annotated[str, typer.Argument(help="Game id")],
    verify: Annotated[
        bool, typer.Option("--verify", help="Check chains, dice and state; exit 1 on a mismatch")
    ] = False,
    target: Target = DEFAULT_TARGET,
    store: StoreUrl = None,
    log: Annotated[
        Path | None, typer.Option(help="Replay an exported JSON Lines audit log instead")
    ] = None,
    token: Token = None,
) -> None:
    """Rebuild a game from its log; with --verify, check it and name the first mismatch."""
    from services.audit.verify import verify_game

    try:
        records, problems = load_records(game_id, target, store, log, token)
    except Refused as exc:
        typer.echo(f"refused: {exc}", err=True)
        raise typer.Exit(2) from exc
    if not records and not problems:
        typer.echo(f"refused: no events of game {game_id!r} found", err=True)
        raise typer.Exit(2)
    report = verify_game(game_id, records, rules_of, problems=problems)
    out = report.to_dict()
    if not verify:
        keep = ("game_id", "events", "final_state_hash", "live_state_hash")
        typer.echo(json.dumps({k: out[k] for k in keep}))
        return
    typer.echo(json.dumps(out))
    if not report.verified:
        where = report.mismatch or Mismatch(f"game-{game_id}", 0, "a check failed")
        typer.echo(f"mismatch: {where}", err=True)
        raise typer.Exit(1)


@audit_app.command("export")
def export(
    game_id: Annotated[str, typer.Argument(help="Game id")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="File (default: stdout)")] = None,
    target: Target = DEFAULT_TARGET,
    store: StoreUrl = None,
    token: Token = None,
) -> None:
    """Write a finished game's audit log as JSON Lines (refused while the game runs)."""
    from services.audit.logfile import is_finished, to_jsonl

    try:
        records, _ = load_records(game_id, target, store, None, token)
    except Refused as exc:
        typer.echo(f"refused: {exc}", err=True)
        raise typer.Exit(2) from exc
    if not is_finished(records, game_id):
        typer.echo(
            f"refused: game {game_id!r} is not finished; its dice seed is not revealed yet",
            err=True,
        )
        raise typer.Exit(2)
    text = to_jsonl(records)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {len(records)} records to {out}", err=True)


@projections_app.command("run")
def run(
    store: Annotated[str, typer.Option(envvar="FALLEN_STORE", help="Event store URL")],
    views: Annotated[
        str | None, typer.Option(envvar="FALLEN_VIEWS", help="View store URL (default: beside)")
    ] = None,
    runner: Annotated[str, typer.Option(help="inprocess or redis")] = "inprocess",
    shard: Annotated[int, typer.Option(help="Redis store shard to follow")] = 0,
    on_mismatch: Annotated[
        str,
        typer.Option(
            envvar="FALLEN_ON_MISMATCH",
            help="views that disagree with the store: rebuild them, or stop applying (inprocess)",
        ),
    ] = "rebuild",
) -> None:
    """Run one projection runner until Ctrl-C."""
    if on_mismatch not in ("rebuild", "stop"):
        raise typer.BadParameter("--on-mismatch must be rebuild or stop")
    asyncio.run(_run(store, views, runner, shard, on_mismatch))


async def _run(
    store_url: str, views_url: str | None, runner: str, shard: int, on_mismatch: str = "rebuild"
) -> None:
    from services.platform.store.factory import open_store
    from services.projections.open_views import open_view_store
    from services.projections.projector import Projector, extra_games_from_env
    from services.projections.redis_runner import RedisGroupRunner
    from services.projections.runners import InProcessRunner
    from services.projections.viewstore import views_url_for

    store = open_store(store_url)
    view_store = open_view_store(views_url or views_url_for(store_url))
    projector = Projector(store, view_store, extra_games_from_env())
    try:
        if runner == "redis":
            url = getattr(store, "url", store_url)
            prefix = getattr(store, "prefix", "fallen")
            shards = int(getattr(store, "shards", 1))
            group = RedisGroupRunner(
                projector, url, prefix, shard, shards=shards, on_mismatch=on_mismatch
            )
            try:
                await group.run()
            finally:
                await group.close()
        elif runner == "inprocess":
            await InProcessRunner(projector, shard=shard or None, on_mismatch=on_mismatch).run()
        else:
            raise typer.BadParameter("--runner must be inprocess or redis (faust: see `faust`)")
    finally:
        await view_store.close()
        await store.close()


@projections_app.command("faust")
def faust_worker(
    kafka: Annotated[str, typer.Option(envvar="FALLEN_KAFKA", help="Kafka bootstrap HOST:PORT")],
    store: Annotated[str, typer.Option(envvar="FALLEN_STORE", help="Event store URL")],
    views: Annotated[str, typer.Option(envvar="FALLEN_VIEWS", help="View store URL")],
    app_id: Annotated[str, typer.Option(help="faust app id (consumer group)")] = (
        "fallen-projections"
    ),
    topic_prefix: Annotated[
        str, typer.Option(envvar="FALLEN_TOPIC_PREFIX", help="Prefix of the relayed topics")
    ] = "fallen.events.",
    loglevel: Annotated[str, typer.Option(envvar="FALLEN_LOG_LEVEL")] = "WARNING",
    route: Annotated[
        bool,
        typer.Option(
            envvar="FALLEN_FAUST_ROUTE",
            help="Re-key onto <app id>.by-game first (topics written by a relay older "
            "than the game-id keys; docs/projections.md)",
        ),
    ] = False,
) -> None:
    """Run one faust worker of the Kafka projection app (start several to scale)."""
    from services.projections.faust_app import FaustConfig, run_worker

    cfg = FaustConfig(
        kafka.removeprefix("kafka://"), store, views, app_id, topic_prefix, route=route
    )
    run_worker(cfg, loglevel)


@projections_app.command("status")
def status(
    views: Annotated[str, typer.Option(envvar="FALLEN_VIEWS", help="View store URL")],
) -> None:
    """Print every runner's last reported status (lag, position) as JSON lines."""

    async def read() -> list[str]:
        from services.projections.open_views import open_view_store

        vs = open_view_store(views)
        try:
            return list((await vs.meta_items("status:")).values())
        finally:
            await vs.close()

    for line in asyncio.run(read()):
        typer.echo(line)


@projections_app.command("rebuild")
def rebuild(
    store: Annotated[str, typer.Option(envvar="FALLEN_STORE", help="Event store URL")],
    views: Annotated[
        str | None, typer.Option(envvar="FALLEN_VIEWS", help="View store URL (default: beside)")
    ] = None,
    game: Annotated[
        list[str] | None, typer.Option(help="Rebuild only these games, online (repeatable)")
    ] = None,
    runner: Annotated[
        str, typer.Option(help="Runner whose checkpoint a whole rebuild sets")
    ] = "inprocess",
) -> None:
    """Rebuild views and audit records from the event store: named games online (each
    replaced in one commit), or everything (a SQLite view file is built beside the old one
    and switched when complete; stop the server first). Prints a JSON summary."""
    from services.projections.rebuild_cli import rebuild_games, rebuild_whole
    from services.projections.viewstore import views_url_for

    target = views or views_url_for(store)
    if game:
        typer.echo(json.dumps(asyncio.run(rebuild_games(store, target, game))))
    else:
        typer.echo(json.dumps(asyncio.run(rebuild_whole(store, target, runner))))


@projections_app.command("check")
def check_views(
    store: Annotated[str, typer.Option(envvar="FALLEN_STORE", help="Event store URL")],
    views: Annotated[
        str | None, typer.Option(envvar="FALLEN_VIEWS", help="View store URL (default: beside)")
    ] = None,
    game: Annotated[list[str] | None, typer.Option(help="Only these games (repeatable)")] = None,
    sample: Annotated[int, typer.Option(help="Compare only the first N games (0 = all)")] = 0,
) -> None:
    """Fold the store again and compare with the stored views and audit records; print each
    difference and exit 1 if there is any."""

    async def go() -> tuple[int, list[str]]:
        from services.platform.store.factory import open_store
        from services.projections.check import check
        from services.projections.open_views import open_view_store
        from services.projections.projector import extra_games_from_env
        from services.projections.viewstore import views_url_for

        es = open_store(store)
        vs = open_view_store(views or views_url_for(store))
        try:
            n, found = await check(es, vs, extra_games_from_env(), game or (), sample)
            return n, [d.line() for d in found]
        finally:
            await vs.close()
            await es.close()

    compared, lines = asyncio.run(go())
    for line in lines:
        typer.echo(line)
    typer.echo(json.dumps({"games": compared, "differences": len(lines)}))
    raise typer.Exit(1 if lines else 0)


def register(app: typer.Typer) -> None:
    """Add replay, audit and projections to the fallenctl app."""
    app.command("replay")(replay)
    app.add_typer(audit_app, name="audit")
    app.add_typer(projections_app, name="projections")
