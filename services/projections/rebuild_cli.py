"""The work behind `fallenctl projections rebuild`: open the stores, show progress, switch."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

from services.platform.store.factory import open_store
from services.projections.open_views import open_view_store
from services.projections.projector import extra_games_from_env
from services.projections.rebuild import rebuild_all, rebuild_game


def _sqlite_file(url: str) -> Path | None:
    """Return the file a sqlite:/// view store URL names (None: not a file)."""
    parts = urlsplit(url)
    if parts.scheme != "sqlite" or parts.path in ("/", "/:memory:"):
        return None
    return Path(parts.path[1:])


def _switch(built: Path, live: Path) -> None:
    """Put a complete new view file in place of the old one (and drop the old WAL)."""
    for suffix in ("-wal", "-shm"):
        Path(f"{live}{suffix}").unlink(missing_ok=True)
    os.replace(built, live)


async def rebuild_games(store_url: str, views_url: str, games: list[str]) -> dict[str, Any]:
    """Rebuild the named games in place; return games and events folded."""
    store, views = open_store(store_url), open_view_store(views_url)
    try:
        events = 0
        for game_id in games:
            events += await rebuild_game(store, views, extra_games_from_env(), game_id)
        return {"games": len(games), "events": events}
    finally:
        await views.close()
        await store.close()


async def rebuild_whole(store_url: str, views_url: str, runner: str) -> dict[str, Any]:
    """Rebuild everything (into a new file beside a SQLite view store, switched at the end)
    with a progress bar on stderr; return games, events, seconds and events per second."""
    live = _sqlite_file(views_url)
    built = live.with_name(live.name + ".rebuild") if live is not None else None
    if built is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{built}{suffix}").unlink(missing_ok=True)
    store = open_store(store_url)
    views = open_view_store(f"sqlite:///{built}" if built is not None else views_url)
    columns = (
        TextColumn("rebuilding"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} events"),
        TimeRemainingColumn(),
    )
    try:
        with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
            task = bar.add_task("rebuild", total=0)
            done = await rebuild_all(
                store,
                views,
                extra_games_from_env(),
                runner,
                lambda n, head: bar.update(task, completed=n, total=head),
            )
    finally:
        await views.close()
        await store.close()
    if built is not None and live is not None:
        _switch(built, live)
    return {
        "games": done.games,
        "events": done.events,
        "seconds": round(done.seconds, 3),
        "events_per_s": round(done.rate()),
    }
