"""The active Creature's ability while it is in force, and its end (card data 2 and later).

"Some effects in the game may cancel a Creature's ability when it is activated. If this
occurs, the Creature's ability is canceled before it can use it. The Creature's ability is
also canceled as soon as it leaves play (i.e. killed or upgraded)." An activation ability
runs after the "when a Creature is exhausted" window (creatures.py); what it leaves in
force for the challenge (a modifier, a block, added swords) is recorded here and taken
back when the ability ends.
"""

from __future__ import annotations

from typing import Final

from services.rules.fallen.cards import since
from services.rules.fallen.flow import Ctx
from services.rules.fallen.state import DL

FIXED_IN: Final = 2  # the card-data version whose games follow these rules
# the card-data version from which games follow the rulebook read again (register "v4"):
# the rules of dealt games made whole, Block per card, thresholds at all times, ...
REREAD_IN: Final = 4


def from_ability(ctx: Ctx, src: str) -> bool:
    """Return whether an effect comes from the active Creature's own ability."""
    return since(FIXED_IN) and bool(src) and src == ctx.peek("ch.creature")


def shield_of(ctx: Ctx) -> str:
    """Return the counter holding the block the active Creature's own ability gave: its
    slot's (data 4+, it protects that Creature only), else the Dungeon Lord's."""
    slot = ctx.peek("ch.slot")
    return f"shield.slot.{slot}" if since(REREAD_IN) and slot is not None else f"shield.{DL}"


def record(ctx: Ctx, what: str, n: int) -> None:
    """Remember a lasting amount (block, swords) the active Creature's ability gave."""
    key = f"ch.ability_gave.{what}"
    ctx.setv(key, int(ctx.peek(key, 0)) + n)


def end_ability(ctx: Ctx, why: str) -> None:
    """Cancel the active Creature's ability and take back what it left in force."""
    if not since(FIXED_IN):
        return
    cid = ctx.peek("ch.creature")
    was_on = bool(ctx.peek("ch.ability"))
    ctx.setv("ch.ability", False)
    mods = ctx.peek("ch.mods", [])
    kept = [m for m in mods if m.get("src") != cid]
    if len(kept) != len(mods):
        ctx.setv("ch.mods", kept)
    block = int(ctx.peek("ch.ability_gave.block", 0))
    if block:
        shield = shield_of(ctx)
        ctx.add(shield, -min(block, ctx.count(shield)), why)
        ctx.setv("ch.ability_gave.block", None)
    swords = int(ctx.peek("ch.ability_gave.swords", 0))
    if swords:
        left = int(ctx.peek(f"ch.swords.{DL}", 0)) - swords
        ctx.setv(f"ch.swords.{DL}", max(0, left))
        ctx.setv("ch.ability_gave.swords", None)
    if was_on or len(kept) != len(mods) or block or swords:
        ctx.note("creature_ability_ended", creature=cid, reason=why)
