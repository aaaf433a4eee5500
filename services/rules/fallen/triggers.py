"""Triggered abilities: cards in play that react to win, lose, kill, breach, stage start."""

from __future__ import annotations

from services.rules.fallen import derived as dv
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, task


@task("fire")
def _fire(ctx: Ctx, a: Args) -> None:
    """Queue every matching trigger (owner filter optional), in source order."""
    event, only = a["event"], a.get("seat")
    batch: list[tuple[str, list[object], str]] = []
    for owner, src in dv.sources(ctx.state):
        if only and owner != only:
            continue
        for trig in src.get("triggers", ()):
            if trig["when"] == event:
                batch.append((owner, trig["effects"], src.get("id", "")))
    for owner, effects, sid in reversed(batch):
        run_effects(ctx, owner, list(effects), sid)
