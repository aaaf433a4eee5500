"""Equipment: slot limits (1 Weapon, 1 Armor, 2 Items), new Treasures, replacing, losing gear."""

from __future__ import annotations

from typing import Final

from services.rules.fallen.abilities import REREAD_IN
from services.rules.fallen.cards import card, since
from services.rules.fallen.flow import Args, Ctx, answer, options, task
from services.rules.fallen.state import HERO, State

LIMITS: Final = {"weapon": 1, "armor": 1, "item": 2}


def leave_play(ctx: Ctx, cid: str) -> None:
    """Remove an Equipment card: Basic Equipment to the box, Treasures under their deck."""
    ctx.exhaust(cid, False)
    if card(cid)["type"] == "basic":
        ctx.move(cid, "hero.equipment", "box")
    else:
        ctx.move(cid, "hero.equipment", "treasure.deck", bottom=True)


@task("equip_decision")
def _equip_decision(ctx: Ctx, a: Args) -> None:
    if ctx.zone("hero.new_treasure"):
        ctx.ask(
            HERO,
            "equip",
            "equip",
            "put the new Treasure into play (into a free slot or replacing one) or discard it",
        )


@options("equip")
def _equip_options(state: State, data: Args) -> list[tuple[str, Args]]:
    new = state.zone("hero.new_treasure")[0]
    slot = card(new)["slot"]
    same = [c for c in state.zone("hero.equipment") if card(c)["slot"] == slot]
    opts: list[tuple[str, Args]] = []
    if len(same) < LIMITS[slot]:
        opts.append(("equip", {}))
    opts += [("equip", {"replace": c}) for c in same]
    if slot != "armor" or same:
        opts.append(("decline", {}))
    return opts


@answer("equip")
def _equipped(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    new = ctx.zone("hero.new_treasure")[0]
    if kind == "decline":
        ctx.move(new, "hero.new_treasure", "treasure.deck", bottom=True)
        return
    old = args.get("replace")
    if old:
        leave_play(ctx, old)
    ctx.move(new, "hero.new_treasure", "hero.equipment")
    ctx.exhaust(new, False)
    ctx.note("equipped", card=new)
    if since(REREAD_IN):  # an Armor card with fewer points than the Wounds carried over
        ctx.push(("thresholds", {}))


@task("pick_destroy")
def _pick_destroy(ctx: Ctx, a: Args) -> None:
    gear = [c for c in ctx.zone("hero.equipment") if card(c)["slot"] != "armor"]
    if gear:
        ctx.ask(
            HERO,
            "lose_equipment",
            "lose_equipment",
            "choose a Weapon or Item to lose",
            [("lose_equipment", {"card": c}) for c in gear],
        )


@answer("lose_equipment")
def _lost(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    ctx.note("equipment_lost", card=args["card"])
    leave_play(ctx, args["card"])
