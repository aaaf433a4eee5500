"""What the projection tests compare: stored views and audit records vs a rebuild from scratch."""

from __future__ import annotations

import random
from typing import Any

from services.audit.logfile import store_records
from services.platform.canonical import canonical_json
from services.platform.store.base import EventStore
from services.projections import core
from services.projections.records import game_streams
from services.projections.viewstore import ViewStore
from services.rules.runner import GameRunner
from tests.support.projections_play import advance, engines, play

RULES_OF = engines().get


async def drive(
    runner: GameRunner, prefix: str, seed: int = 1, fallen_steps: int = 60
) -> list[str]:
    """Play a mix of games (finished toys, toys in progress, a Fallen game part-way)."""
    rng = random.Random(seed)
    ids = []
    for i in range(4):
        ids.append(f"{prefix}t{i}")
        await play(runner, "toy", ids[-1], rng)
    for i in range(2):
        ids.append(f"{prefix}p{i}")
        await play(runner, "toy", ids[-1], rng, steps=1)
    if "fallen" in runner.extra:
        ids.append(f"{prefix}f0")
        await play(runner, "fallen", ids[-1], rng, steps=fallen_steps)
    return ids


async def more(runner: GameRunner, game_ids: list[str], seed: int = 2, steps: int = 3) -> None:
    """Advance every unfinished game a few commands."""
    rng = random.Random(seed)
    for gid in game_ids:
        await advance(runner, gid, rng, steps)


async def expected(store: EventStore, game_id: str) -> dict[str, Any]:
    """Return what the projection of a game must hold, rebuilt from scratch (pure fold)."""
    records = await store_records(store, game_id)
    from services.projections.records import record_envelope

    proj = core.fold_game(game_id, [record_envelope(r) for r in records], RULES_OF)
    views = core.views(proj, RULES_OF)
    return {
        "views": {s: (proj.version, canonical_json(v), proj.ended) for s, v in views.items()},
        "audit": records,
        "heads": {s: proj.applied(s) for s in game_streams(game_id) if proj.applied(s)},
    }


async def actual(views: ViewStore, game_id: str, seats: list[str]) -> dict[str, Any]:
    """Return what a view store holds for a game (the seats asked for, '' = spectator)."""
    out: dict[str, Any] = {}
    for seat in seats:
        rec = await views.get_view(game_id, seat)
        if rec is not None:
            out[seat] = (rec.version, rec.view_json, rec.ended)
    record = await views.load_game(game_id) or {}
    heads = {s: int(v) for s, (v, _) in record.get("heads", {}).items()}
    return {"views": out, "audit": await views.read_audit(game_id), "heads": heads}


async def assert_equal_to_rebuild(store: EventStore, views: ViewStore, game_ids: list[str]) -> None:
    """Assert every game's stored views, audit records and heads equal a rebuild."""
    for gid in game_ids:
        want = await expected(store, gid)
        got = await actual(views, gid, sorted(want["views"]) or ["", "a", "b"])
        assert got["heads"] == want["heads"], gid
        assert got["views"] == want["views"], gid
        assert got["audit"] == want["audit"], gid
