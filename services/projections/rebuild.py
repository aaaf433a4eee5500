"""Build the read side again from the event store: one game at a time online, or everything.

One game is folded from its own streams into a scratch view store and written over the
stored game in one commit (its old rows dropped first), so readers see the old game or the
new one. A whole rebuild empties the view store and folds the store's global feed from the
start, reporting progress as it goes; the command line builds it into a new SQLite file
beside the old one and switches the files when it is complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from services.projections.consistency import BUILT_FROM, store_identity
from services.projections.open_views import open_view_store
from services.projections.projector import Projector
from services.projections.records import game_streams
from services.projections.runners import InProcessRunner
from services.projections.viewstore import Batch, ViewStore
from services.rules.engine.api import GameRules

Progress = Callable[[int, int], None]  # (events applied, store head)


@dataclass(frozen=True)
class Rebuilt:
    """What a rebuild did: games and events folded, and the seconds it took."""

    games: int
    events: int
    seconds: float

    def rate(self) -> float:
        """Return events folded per second."""
        return self.events / self.seconds if self.seconds > 0 else 0.0


async def _game_events(store: Any, game_id: str) -> list[Any]:
    envs: list[Any] = []
    for stream in game_streams(game_id):
        envs.extend(await store.read(stream))
    return sorted(envs, key=lambda e: e.position)


async def _fresh_batch(scratch: ViewStore, game_id: str) -> Batch:
    record = await scratch.load_game(game_id)
    batch = Batch(drop=(game_id,))
    if record is None:
        return batch
    batch.games[game_id] = record
    seats = ["", *sorted(dict(record.get("seats") or {}))]
    views = {}
    for seat in seats:
        found = await scratch.get_view(game_id, seat)
        if found is not None:
            views[seat] = found.view_json
    if views:
        batch.views[game_id] = views
    batch.audit = [(game_id, rec) for rec in await scratch.read_audit(game_id)]
    return batch


async def rebuild_game(
    store: Any, views: ViewStore, games: Mapping[str, GameRules], game_id: str
) -> int:
    """Fold one game from its streams and replace its stored views and audit records in one
    commit; return how many events it holds (0: the store has no such game, and the stored
    game, if any, is removed)."""
    envs = await _game_events(store, game_id)
    scratch = open_view_store("sqlite:///:memory:")
    try:
        if envs:
            projector = Projector(store, scratch, dict(games))
            await projector.process(envs)
            await projector.flush()
        await views.commit(await _fresh_batch(scratch, game_id))
    finally:
        await scratch.close()
    return len(envs)


async def rebuild_all(
    store: Any,
    views: ViewStore,
    games: Mapping[str, GameRules],
    runner: str = "inprocess",
    progress: Progress | None = None,
) -> Rebuilt:
    """Empty the view store and fold the whole store into it, under the runner's checkpoint
    (so that runner goes on from where the rebuild ended); report progress per batch."""
    started = time.monotonic()
    await views.clear()
    await views.set_meta(BUILT_FROM, await store_identity(store))
    folder = InProcessRunner(Projector(store, views, dict(games)), name=runner)
    head = await store.head_position()
    done = 0
    while n := await folder.run_once():
        done += n
        if progress is not None:
            progress(done, max(head, done))
    await folder.projector.flush()
    return Rebuilt(len(await views.games()), done, time.monotonic() - started)
