"""Compare the stored views and audit records with a fresh fold of the event store."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.projections.open_views import open_view_store
from services.projections.projector import Projector
from services.projections.runners import InProcessRunner
from services.projections.viewstore import ViewStore
from services.rules.engine.api import GameRules


@dataclass(frozen=True)
class Difference:
    """One place where the stored read side differs from the store's fold."""

    game_id: str
    what: str  # "view <seat>", "audit", "game"
    detail: str

    def line(self) -> str:
        """Return the difference as one line for a terminal."""
        return f"{self.game_id}: {self.what}: {self.detail}"


def _seats(record: Mapping[str, Any] | None) -> list[str]:
    seats = dict((record or {}).get("seats") or {})
    return ["", *sorted(seats)]


async def compare_game(stored: ViewStore, fresh: ViewStore, game_id: str) -> list[Difference]:
    """Return the differences of one game's views and audit records."""
    out: list[Difference] = []
    record = await fresh.load_game(game_id)
    if await stored.load_game(game_id) is None:
        return [Difference(game_id, "game", "no game record in the stored views")]
    for seat in _seats(record):
        want, have = await fresh.get_view(game_id, seat), await stored.get_view(game_id, seat)
        what = f"view {seat or 'spectator'}"
        if want is None or have is None:
            if (want is None) != (have is None):
                said = "stored but not in the fold" if have else "in the fold but not stored"
                out.append(Difference(game_id, what, said))
        elif have.version != want.version:
            out.append(Difference(game_id, what, f"version {have.version}, fold {want.version}"))
        elif json.loads(have.view_json) != json.loads(want.view_json):
            out.append(Difference(game_id, what, "content differs at the same version"))
    want_audit, have_audit = await fresh.read_audit(game_id), await stored.read_audit(game_id)
    if want_audit != have_audit:
        first = next(
            (i for i, (a, b) in enumerate(zip(want_audit, have_audit, strict=False)) if a != b),
            min(len(want_audit), len(have_audit)),
        )
        out.append(
            Difference(
                game_id,
                "audit",
                f"{len(have_audit)} records, fold {len(want_audit)}; first difference at {first}",
            )
        )
    return out


async def check(
    store: Any,
    stored: ViewStore,
    games: Mapping[str, GameRules] | None = None,
    only: Sequence[str] = (),
    sample: int = 0,
) -> tuple[int, list[Difference]]:
    """Fold the store into fresh views; return the games compared and every difference."""
    fresh = open_view_store("sqlite:///:memory:")
    try:
        await InProcessRunner(Projector(store, fresh, dict(games or {})), name="check").catch_up()
        ids = list(only) or await fresh.games()
        if sample:
            ids = ids[:sample]
        found: list[Difference] = []
        for game_id in ids:
            found.extend(await compare_game(stored, fresh, game_id))
        return len(ids), found
    finally:
        await fresh.close()
