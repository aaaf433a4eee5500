"""fallenctl entry point."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

import typer

from benchmarks.cli import bench_app
from services.app import SINGLE_SERVICES
from services.cli.balance import balance
from services.cli.play import play, view
from services.projections.cli import register as register_projections

app = typer.Typer(help="Run and operate the Fallen backend.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
app.command()(play)
app.command()(view)
app.command()(balance)
register_projections(app)  # replay, audit export, projections

DEFAULT_ADDRESS = "127.0.0.1:50051"


@app.command()
def serve(
    service: Annotated[
        str, typer.Argument(help=f"'all', or one service alone: {', '.join(SINGLE_SERVICES)}")
    ] = "all",
    address: Annotated[
        str, typer.Option(envvar="FALLEN_ADDRESS", help="HOST:PORT to listen on")
    ] = DEFAULT_ADDRESS,
    port: Annotated[
        int | None, typer.Option(help="Port to listen on (overrides the port of --address)")
    ] = None,
    store: Annotated[
        str, typer.Option(envvar="FALLEN_STORE", help="sqlite:///PATH or redis://HOST:PORT/DB")
    ] = "sqlite:///var/fallen.db",
    stream: Annotated[
        str, typer.Option(envvar="FALLEN_STREAM", help="memory, redis or kafka://HOST:PORT")
    ] = "memory",
    dice: Annotated[
        str | None, typer.Option(envvar="FALLEN_DICE_ADDR", help="dice service address (split)")
    ] = None,
    deck: Annotated[
        str | None,
        typer.Option(
            envvar="FALLEN_DECK_ADDR",
            help="rules pools: deal through the deck service here (gRPC); default in-process",
        ),
    ] = None,
    metrics_port: Annotated[
        int, typer.Option(envvar="FALLEN_METRICS_PORT", help="Prometheus /metrics port, 0 = off")
    ] = 9100,
    log_level: Annotated[str, typer.Option(envvar="FALLEN_LOG_LEVEL")] = "INFO",
    shard: Annotated[
        int | None, typer.Option(envvar="FALLEN_SHARD", help="relay: the one shard to relay")
    ] = None,
    pools: Annotated[
        str,
        typer.Option(
            envvar="FALLEN_POOLS",
            help="matchmaking: rules pool endpoints, pool=HOST:PORT,... ('*' = any pool)",
        ),
    ] = "",
    matchmaking_state: Annotated[
        str | None,
        typer.Option(
            envvar="FALLEN_MATCHMAKING_STATE",
            help="matchmaking state: memory or redis://... (default: the store's Redis)",
        ),
    ] = None,
    rules: Annotated[
        str | None, typer.Option(envvar="FALLEN_RULES_ADDR", help="bots: rules service address")
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            envvar="FALLEN_BOT_WORKERS",
            help="bots and all: bot workers in this process (all: 0 = bot seats refused "
            "unless a bot pool on the Redis feed plays them)",
        ),
    ] = 1,
    projections_addr: Annotated[
        str | None,
        typer.Option(
            envvar="FALLEN_PROJECTIONS_ADDR",
            help="bots: the projections read API (views); default the --rules address",
        ),
    ] = None,
    web_port: Annotated[
        int,
        typer.Option(
            envvar="FALLEN_WEB_PORT", help="all/projections: serve the web page here, 0 = off"
        ),
    ] = 0,
) -> None:
    """Serve every service on one address, or one service alone."""
    from services.platform.auth import jwt_secret
    from services.platform.logs import setup_logging

    setup_logging(log_level)
    try:
        jwt_secret()
    except RuntimeError as exc:
        raise typer.BadParameter(str(exc)) from exc
    if port is not None:
        address = f"{address.rsplit(':', 1)[0]}:{port}"
    if metrics_port:
        from services.platform.metrics_http import start_metrics

        start_metrics(metrics_port, addr=address.rsplit(":", 1)[0])
    from services.matchmaking.wiring import state_url_for

    mm_state = matchmaking_state or state_url_for(store)
    bots = (rules, workers, projections_addr) if service.startswith("bots") else None
    in_process = workers if service == "all" else 0 if service.startswith("rules") else None
    asyncio.run(
        _serve(
            service,
            address,
            store,
            stream,
            dice,
            shard,
            web_port,
            pools,
            mm_state,
            bots,
            deck,
            in_process,
        )
    )


def _bot_jobs(
    service: str, store_url: str, bots: tuple[str | None, int, str | None], stop: asyncio.Event
) -> list[Callable[[], Coroutine[Any, Any, None]]]:
    """The bot workers of a bots pool (they read the Redis feed, act through rules gRPC and
    read their seat's view from the projections read API, which a rules pool does not serve)."""
    from services.app import BOT_POOLS, bot_pool
    from services.bots.worker import BotWorker
    from services.platform.store.factory import open_store
    from services.platform.store.redis import RedisEventStore

    rules, workers, views = bots
    store = open_store(store_url)
    if not isinstance(store, RedisEventStore) or not rules:
        raise typer.BadParameter(f"{service} needs --store redis://... and --rules HOST:PORT")
    if service not in BOT_POOLS:
        raise typer.BadParameter(f"unknown bot pool {service}; choose from {sorted(BOT_POOLS)}")
    spec, group = bot_pool(service)
    return [
        functools.partial(
            BotWorker(
                store.url,
                rules,
                store.prefix,
                store.shards,
                pool=spec,
                group=group,
                views_target=views or "",
            ).run,
            stop,
        )
        for _ in range(max(1, workers))
    ]


def valid_stream(stream: str) -> bool:
    """Return whether --stream names memory, redis or a kafka://HOST:PORT bootstrap."""
    if stream in ("memory", "redis"):
        return True
    host, sep, port = stream.removeprefix("kafka://").rpartition(":")
    return stream.startswith("kafka://") and bool(sep and host) and port.isdigit()


async def _serve(
    service: str,
    address: str,
    store_url: str,
    stream: str,
    dice: str | None,
    shard: int | None,
    web_port: int = 0,
    pools: str = "",
    mm_state: str = "memory",
    bots: tuple[str | None, int, str | None] | None = None,
    deck: str | None = None,
    bot_workers: int | None = None,
) -> None:
    from services.app import serve as start
    from services.native import install as native_status
    from services.platform.gcpolicy import freeze_startup
    from services.platform.store.factory import open_store

    store = open_store(store_url)
    background: list[Callable[[], Coroutine[Any, Any, None]]] = []
    stop = asyncio.Event()
    if not valid_stream(stream):
        raise typer.BadParameter(
            f"--stream must be memory, redis or kafka://HOST:PORT, not {stream[:80]}"
        )
    if service == "relay" and not stream.startswith("kafka://"):
        raise typer.BadParameter("the relay service needs --stream kafka://HOST:PORT")
    if stream.startswith("kafka://") and service in ("all", "relay"):
        from services.platform.stream.kafka_relay import KafkaRelay

        bootstrap = stream.removeprefix("kafka://")
        shards = [shard] if shard is not None else list(range(getattr(store, "shards", 1)))
        for n in shards:
            relay = KafkaRelay(store, bootstrap, shard=n)
            background.append(functools.partial(relay.run_forever, stop))
    elif bots is not None:
        background += _bot_jobs(service, store_url, bots, stop)
    from services.projections.projector import extra_games_from_env

    backend = await start(
        store,
        address,
        service,
        dice_addr=dice,
        background=background,
        extra_games=extra_games_from_env(),
        pools=pools,
        matchmaking_state=mm_state,
        deck_addr=deck,
        bots=bot_workers,
    )
    freeze_startup()  # start-up heap out of full collections (services/platform/gcpolicy.py)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    host = address.rsplit(":", 1)[0]
    typer.echo(f"fallen {service} serving on {host}:{backend.port}", err=True)
    typer.echo(f"fallen engine modules: {native_status()}", err=True)  # docs/native.md
    stop_web = None
    if web_port and service in ("all", "projections"):
        from services.web.gateway import start_web

        stop_web = await start_web(f"127.0.0.1:{backend.port}", host or "127.0.0.1", web_port)
        typer.echo(f"fallen web page on http://{host or '127.0.0.1'}:{web_port}/", err=True)
    await stop.wait()
    typer.echo("fallen stopping: ending web streams, then draining RPCs", err=True)
    if stop_web is not None:
        await stop_web()
    await backend.stop()
    typer.echo("fallen stopped", err=True)


@app.command()
def token(
    player: Annotated[str | None, typer.Option(help="Player id (the token's sub)")] = None,
    service: Annotated[str | None, typer.Option(help="Service name for an internal token")] = None,
    ttl: Annotated[int, typer.Option(help="Lifetime in seconds")] = 24 * 3600,
) -> None:
    """Print a bearer token for local use (dev secret unless FALLEN_JWT_SECRET is set)."""
    from services.platform.auth import issue_token

    if bool(player) == bool(service):
        raise typer.BadParameter("give exactly one of --player or --service")
    if os.environ.get("FALLEN_JWT_SECRET") is None:
        os.environ.setdefault("FALLEN_DEV", "1")
    subject = player or f"service:{service}"
    typer.echo(issue_token(subject, service=bool(service), ttl_s=ttl))


if __name__ == "__main__":
    app()
