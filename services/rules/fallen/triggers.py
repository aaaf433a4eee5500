"""Triggered abilities: cards in play that react to win, lose, kill, breach, stage start."""

from __future__ import annotations

from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import FIXED_IN
from services.rules.fallen.cards import since
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, task


@task("fire")
def _fire(ctx: Ctx, a: Args) -> None:
    """Queue every matching trigger (owner filter optional), in source order."""
    event, only = a["event"], a.get("seat")
    triggers = dv.triggers_of(ctx, event)
    if not triggers:  # most events trigger no card in play
        return
    batch: list[tuple[str, list[object], str]] = []
    once = since(FIXED_IN) and dv.in_challenge(ctx)
    used = ctx.peek("ch.used", []) if once else []
    fresh: list[str] = []
    for owner, i, trig, src in triggers:
        if only and owner != only:
            continue
        if once and src.get("type") == "skill":
            # "Each effect on a Skill card can only be used once per challenge"
            key = f"{src['id']}@{i}"
            if key in used or key in fresh:
                continue
            fresh.append(key)
        batch.append((owner, trig["effects"], src.get("id", "")))
    if fresh:
        ctx.setv("ch.used", [*used, *fresh])
    for owner, effects, sid in reversed(batch):
        run_effects(ctx, owner, list(effects), sid)
