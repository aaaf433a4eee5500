"""What the stack tests check: views against a rebuild, audit logs, acknowledged commands."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.platform.canonical import canonical_json
from services.platform.store.redis import RedisEventStore
from services.projections import core
from services.projections.cli import _remote_records, rules_of
from services.projections.records import record_envelope
from services.projections.redis_views import RedisViewStore
from tests.stack.play import Ack

AUDIT_READ_S = 60.0


async def rebuilt(store: RedisEventStore, game_id: str) -> dict[str, Any]:
    """Return a game's views and audit records rebuilt from scratch from the event store."""
    records = await store_records(store, game_id)
    proj = core.fold_game(game_id, [record_envelope(r) for r in records], rules_of)
    views = core.views(proj, rules_of)
    return {
        "views": {s: (proj.version, canonical_json(v), proj.ended) for s, v in views.items()},
        "audit": records,
    }


async def served(views: RedisViewStore, game_id: str, seats: list[str]) -> dict[str, Any]:
    """Return the views and audit records the faust workers wrote for a game."""
    out = {}
    for seat in seats:
        rec = await views.get_view(game_id, seat)
        if rec is not None:
            out[seat] = (rec.version, rec.view_json, rec.ended)
    return {"views": out, "audit": await views.read_audit(game_id)}


async def views_converge(redis_port: int, game_ids: list[str], timeout: float) -> float:
    """Wait until every game's stored views equal a rebuild; return the seconds it took."""
    store = RedisEventStore(f"redis://127.0.0.1:{redis_port}/0")
    views = RedisViewStore(f"redis://127.0.0.1:{redis_port}/1")
    start = time.monotonic()
    try:
        pending = list(game_ids)
        while pending:
            want = {g: await rebuilt(store, g) for g in pending}
            pending = [
                g for g in pending if await served(views, g, sorted(want[g]["views"])) != want[g]
            ]
            if pending and time.monotonic() - start > timeout:
                raise AssertionError(f"views of {pending} differ from a rebuild after {timeout} s")
            if pending:
                await asyncio.sleep(0.5)
        return time.monotonic() - start
    finally:
        await store.close()
        await views.close()


async def audit_report(projections: str, game_id: str) -> dict[str, Any]:
    """Read a finished game's audit log through ProjectionService and verify it."""
    records = await asyncio.wait_for(_remote_records(game_id, projections, None), AUDIT_READ_S)
    return verify_game(game_id, records, rules_of).to_dict()


async def lost_acks(redis_port: int, acks: list[Ack]) -> list[Ack]:
    """Return the acknowledged commands whose events are not in the store at their version."""
    store = RedisEventStore(f"redis://127.0.0.1:{redis_port}/0")
    try:
        lost = []
        by_game: dict[str, list[Ack]] = {}
        for ack in acks:
            by_game.setdefault(ack.game_id, []).append(ack)
        for gid, game_acks in by_game.items():
            events = await store.read(f"game-{gid}")
            caused = {e.causation_id: e.version for e in events}
            for ack in game_acks:
                if ack.command_id not in caused or len(events) < ack.version:
                    lost.append(ack)
        return lost
    finally:
        await store.close()
