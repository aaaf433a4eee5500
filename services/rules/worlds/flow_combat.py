"""Combat and the end of the turn on the kernel: blocks, orders, rolls, resolution, discards."""

from __future__ import annotations

from typing import Any

from services.rules.engine.flow import Args, Ctx
from services.rules.worlds import choices, steps
from services.rules.worlds.combat import Strike
from services.rules.worlds.facts import fact
from services.rules.worlds.flow import (
    REGISTRY,
    _declare,
    answer,
    ask_from_hand,
    check_end,
    emit,
    open_window,
    table,
    task,
    version,
)
from services.rules.worlds.table import PHASED


@task("block")
def _block(ctx: Ctx, a: Args) -> None:
    foe = table(ctx).board.other(a["seat"])
    opts = choices.block_options(table(ctx), foe) if table(ctx).turn.attackers else []
    if not opts:
        ctx.push(("order", a))
        return
    _declare(ctx, foe, "block", opts, "blocked", active=a["seat"])


@answer("blocked")
def _blocked(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "done":
        ctx.push(("order", {"seat": data["active"]}))
        return
    foe = table(ctx).board.other(data["active"])
    emit(ctx, [fact("defender_lined_up", seat=foe, **args)])
    ctx.push(("block", {"seat": data["active"]}))


@task("order")
def _order(ctx: Ctx, a: Args) -> None:
    opts = choices.order_options(table(ctx))
    if not opts:
        if version(ctx) >= 2:
            open_window(ctx, a["seat"], False, ["rolls", a])
            return
        foe = table(ctx).board.other(a["seat"])
        ctx.push(("act", {"seat": foe, "deploy": False, "next": ["rolls", a]}))
        return
    _declare(ctx, a["seat"], "order", opts, "ordered", active=a["seat"])


@answer("ordered")
def _ordered(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    emit(ctx, [fact("order_given", seat=data["active"], **args)])
    ctx.push(("order", {"seat": data["active"]}))


@task("rolls")
def _rolls(ctx: Ctx, a: Args) -> None:
    board = table(ctx).board
    live = [
        s for s in steps.strike_list(table(ctx)) if board.has(s.striker) and board.has(s.target)
    ]
    if not live:
        ctx.push(("rolled", {"seat": a["seat"], "strikes": [], "faces": []}))
        return
    pairs = [[s.striker, s.target] for s in live]
    ctx.roll(["d6"] * len(live), "combat", "rolled", seat=a["seat"], strikes=pairs)


@task("rolled")
def _rolled(ctx: Ctx, a: Args) -> None:
    for (striker, target), face in zip(a["strikes"], a["faces"], strict=True):
        if table(ctx).board.has(striker) and table(ctx).board.has(target):
            emit(ctx, [steps.strike_fact(table(ctx), Strike(striker, target), int(face))])
    emit(ctx, steps.raid_facts(table(ctx)))
    if version(ctx) < PHASED:
        emit(ctx, steps.resolution_phase(table(ctx)))
        if not check_end(ctx):
            ctx.push(("discard", {"seat": a["seat"]}))
        return
    # version 4: damage and raids land, then a window before cards at 0 Hp are removed (a
    # raid that ends the game ends it at once: the dead leave play, no window)
    emit(ctx, steps.resolution_damage(table(ctx)))
    if steps.ending(table(ctx)):
        emit(ctx, steps.removals(table(ctx)))
        check_end(ctx)
        return
    open_window(ctx, a["seat"], False, ["removal", {"seat": a["seat"]}])


@task("removal")
def _removal(ctx: Ctx, a: Args) -> None:
    """Phase 6 (version 4): every card at 0 Hp or less leaves play, then the discards."""
    emit(ctx, steps.removals(table(ctx)))
    if not check_end(ctx):
        ctx.push(("discard", {"seat": a["seat"]}))


@task("discard")
def _discard(ctx: Ctx, a: Args) -> None:
    if steps.discards_owed(table(ctx)) == 0:
        emit(ctx, steps.end_turn(table(ctx)))
        ctx.push(("turn", {"seat": table(ctx).board.other(a["seat"])}))
        return
    opts = _discard_options(ctx.state, {"active": a["seat"]})
    ask_from_hand(
        ctx, a["seat"], "discard", "discarded", "discard down to seven", opts, active=a["seat"]
    )


@REGISTRY.options("discard")
def _discard_options(state: Any, data: Args) -> list[tuple[str, Args]]:
    return [("discard", o) for o in choices.discard_options(state.table, data["active"])]


@answer("discarded")
def _discarded(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    emit(ctx, [fact("card_discarded", seat=data["active"], card=args["card"])])
    ctx.push(("discard", {"seat": data["active"]}))
