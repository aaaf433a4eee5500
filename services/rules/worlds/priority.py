"""Priority rounds (rules version 2): card effects "can be played during any phase of either
players turn", so a window opens for the active player, a play hands priority to the other
player, and the window closes when both have passed in turn (docs/games/worlds.md, Windows).
"""

from __future__ import annotations

from services.rules.engine.flow import Args, Ctx
from services.rules.worlds import choices
from services.rules.worlds.flow import action_options, answer, ask_from_hand, check_end, emit, task
from services.rules.worlds.flow import table as table_of


def _next_holder(ctx: Ctx, a: Args, passes: int) -> None:
    """Hand priority to the other player, or close the window after two passes in turn."""
    if passes >= 2:
        ctx.push((a["next"][0], a["next"][1]))
        return
    other = table_of(ctx).board.other(a["seat"])
    ctx.push(("window", dict(a, seat=other, passes=passes)))


@task("window")
def _window(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    deploy = a["deployer"] == seat
    opts = action_options(table_of(ctx), seat, deploy)
    if len(opts) == 1:  # nothing to play: the seat passes without being asked
        _next_holder(ctx, a, int(a["passes"]) + 1)
        return
    what = "deploy, use an ability or done" if deploy else "use an ability or done"
    ask_from_hand(ctx, seat, "act", "window_acted", what, opts, actor=seat, deploy=deploy, round=a)


@answer("window_acted")
def _window_acted(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    a = data["round"]
    seat = a["seat"]
    if kind == "done":
        _next_holder(ctx, a, int(a["passes"]) + 1)
        return
    handler = choices.deploy_events if kind == "deploy" else choices.ability_events
    events, draws = handler(table_of(ctx), seat, dict(args))
    emit(ctx, events)
    if check_end(ctx):
        return
    _next_holder(ctx, a, 0)
    ctx.push(("draw", {"seat": seat, "n": draws}))  # drawn before priority moves on
