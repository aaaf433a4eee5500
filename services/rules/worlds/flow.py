"""The turn on the kernel: tasks run the phases (steps), decisions list the choices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.rules.engine.api import ChanceRequest, Event
from services.rules.engine.flow import Args, Ctx, Registry
from services.rules.worlds import choices, steps
from services.rules.worlds.facts import fact
from services.rules.worlds.state import ZONES, WorldsState, evolve, library
from services.rules.worlds.table import PHASED, Table


def _facts_only(state: Any) -> bool:
    """Games of rules version 3 record only facts: the flow rides on them (kernel README,
    "compact engines"), an answer with no other consequence is `answered`."""
    return int(state.vars.get("rules_version", 1)) >= FACTS_VERSION


REGISTRY = Registry("worlds", ZONES, evolve_fn=evolve, compact=_facts_only, facts=_facts_only)
task, answer = REGISTRY.task, REGISTRY.answer


def table(ctx: Ctx) -> Table:
    """The working table."""
    state = ctx.state
    assert isinstance(state, WorldsState)
    return state.table


def emit(ctx: Ctx, events: Sequence[Event]) -> None:
    """Record Worlds facts."""
    for e in events:
        ctx.emit(e.type, e.data, e.visibility)


# The kernel var naming the rules version a game was started with (docs/games/worlds.md,
# "Rules versions"); absent in games recorded before version 2, which replay as they were.
# Version 3 plays as version 2 and records only facts (no `flow` or `var_set` events).
# Version 4 (table.PHASED) holds healing cards to the Healing phase and opens a priority
# round in every phase.
RULES_VERSION = "rules_version"
FACTS_VERSION = 3
CURRENT = PHASED


def version(ctx: Ctx) -> int:
    """The rules version of the game being decided (1 when the game predates the var)."""
    return int(ctx.state.var(RULES_VERSION, 1))


def ask_from_hand(
    ctx: Ctx,
    seat: str,
    kind: str,
    resume: str,
    prompt: str,
    opts: list[tuple[str, Args]],
    **data: Any,
) -> None:
    """Ask a decision whose options name cards in the seat's hand without publishing them
    (version 2: listed from the state on demand; version 1 recorded them in the flow)."""
    ctx.ask(seat, kind, resume, prompt, None if version(ctx) >= 2 else opts, **data)


def open_window(ctx: Ctx, active: str, deploy: bool, nxt: list[Any]) -> None:
    """Open a priority round in the active player's turn, then run nxt (version 2: both
    players in turn until both pass; version 1: the active player only)."""
    if version(ctx) >= 2:
        deployer = active if deploy else ""
        ctx.push(("window", {"seat": active, "deployer": deployer, "passes": 0, "next": nxt}))
    else:
        ctx.push(("act", {"seat": active, "deploy": deploy, "next": nxt}))


def check_end(ctx: Ctx) -> bool:
    """End the game when a Capital reached zero; return whether it ended."""
    ended = steps.ending(table(ctx))
    if ended:
        emit(ctx, ended)
        ctx.emit("game_over", {"winner": ended[0].data["winner"]})
    return bool(ended)


@task("form")
def _form(ctx: Ctx, a: Args) -> None:
    deck = library(a["seat"])
    req = ChanceRequest(
        "deck_form", f"form {deck}", deck=deck, cards=tuple(a["cards"]), shuffled=True
    )
    ctx.deal(req, "formed")


@task("shuffle_library")
def _shuffle_library(ctx: Ctx, a: Args) -> None:
    deck = library(a["seat"])
    ctx.deal(ChanceRequest("deck_shuffle", f"shuffle {deck}", deck=deck), "formed")


@task("formed")
def _formed(ctx: Ctx, a: Args) -> None:
    if version(ctx) >= FACTS_VERSION:  # the shuffle is a fact of the game (its order is not)
        ctx.note("library_shuffled", deck=str(a.get("deck", "")), count=int(a.get("size", 0)))


@task("draw")
def _draw(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    n = min(int(a["n"]), table(ctx).board.side(seat).library)
    if n > 0:
        req = ChanceRequest(
            "deck_draw", f"{seat} draws", deck=library(seat), count=n, visible_to=(seat,)
        )
        ctx.deal(req, "drawn", seat=seat)


@task("drawn")
def _drawn(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    for card in a["cards"]:
        emit(ctx, steps.drawn(seat, card, table(ctx).board.side(seat).library - 1))


@task("first")
def _first(ctx: Ctx, a: Args) -> None:
    if a.get("human"):
        ctx.emit("first_player_chosen", {"seat": a["human"], "how": "bot_game"})
        ctx.push(("turn", {"seat": a["human"]}))
    else:
        ctx.roll(["d6"], "first player", "first_rolled")


@task("first_rolled")
def _first_rolled(ctx: Ctx, a: Args) -> None:
    seat = "p1" if int(a["faces"][0]) <= 3 else "p2"
    ctx.emit("first_player_chosen", {"seat": seat, "how": "chance"})
    ctx.push(("turn", {"seat": seat}))


@task("turn")
def _turn(ctx: Ctx, a: Args) -> None:
    emit(ctx, steps.begin_turn(table(ctx), a["seat"]))
    ctx.roll(["worlds_resource", "worlds_resource"], "resources", "resources", seat=a["seat"])


@task("resources")
def _resources(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    emit(ctx, steps.resources_phase(table(ctx), [int(f) for f in a["faces"]]))
    emit(ctx, steps.healing_phase(table(ctx)))
    # version 4: healing Events are played from hand in the Healing phase, and only then
    open_window(ctx, seat, version(ctx) >= PHASED, ["draw_phase", {"seat": seat}])


@task("draw_phase")
def _draw_phase(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    emit(ctx, [fact("phase_started", seat=seat, phase="draw")])
    if table(ctx).board.side(seat).library > 0:
        ctx.push(("draw", {"seat": seat, "n": 1}), ("deploy", {"seat": seat}))
        return
    emit(ctx, steps.empty_library_cost(table(ctx)))
    if not check_end(ctx):
        ctx.push(("deploy", {"seat": seat}))


@task("deploy")
def _deploy(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    foe = table(ctx).board.other(seat)
    emit(ctx, [fact("phase_started", seat=seat, phase="deploy")])
    if version(ctx) >= 2:  # one round: the active player deploys, either side uses abilities
        open_window(ctx, seat, True, ["combat", {"seat": seat}])
        return
    window = ["act", {"seat": foe, "deploy": False, "next": ["combat", {"seat": seat}]}]
    ctx.push(("act", {"seat": seat, "deploy": True, "next": window}))


def action_options(t: Table, seat: str, deploy: bool) -> list[tuple[str, Args]]:
    """Abilities (and deploys in the seat's Deploy phase) after "done"."""
    opts: list[tuple[str, Args]] = [("done", {})]
    opts += [("use", o) for o in choices.ability_options(t, seat)]
    if deploy:
        opts += [("deploy", o) for o in choices.deploy_options(t, seat)]
    return opts


@task("act")
def _act(ctx: Ctx, a: Args) -> None:
    opts = action_options(table(ctx), a["seat"], bool(a["deploy"]))
    if len(opts) == 1:
        ctx.push((a["next"][0], a["next"][1]))
        return
    what = "deploy, use an ability or done" if a["deploy"] else "use an ability or done"
    ask_from_hand(
        ctx,
        a["seat"],
        "act",
        "acted",
        what,
        opts,
        actor=a["seat"],
        deploy=a["deploy"],
        next=a["next"],
    )


@REGISTRY.options("act")
def _act_options(state: WorldsState, data: Args) -> list[tuple[str, Args]]:
    return action_options(state.table, data["actor"], bool(data["deploy"]))


@answer("acted")
def _acted(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["actor"]
    if kind == "done":
        ctx.push((data["next"][0], data["next"][1]))
        return
    handler = choices.deploy_events if kind == "deploy" else choices.ability_events
    events, draws = handler(table(ctx), seat, dict(args))
    emit(ctx, events)
    if check_end(ctx):
        return
    again = {"seat": seat, "deploy": data["deploy"], "next": data["next"]}
    ctx.push(("draw", {"seat": seat, "n": draws}), ("act", again))


@task("combat")
def _combat(ctx: Ctx, a: Args) -> None:
    emit(ctx, [fact("phase_started", seat=a["seat"], phase="combat")])
    ctx.push(("attack", a))


def _declare(ctx: Ctx, seat: str, kind: str, opts: list[Args], resume: str, **data: Any) -> None:
    prompt = f"{kind} or done" if kind != "order" else "give each unchallenged attacker an order"
    listed = [(kind, o) for o in opts]
    ctx.ask(
        seat, kind, resume, prompt, listed if kind == "order" else [("done", {}), *listed], **data
    )


@task("attack")
def _attack(ctx: Ctx, a: Args) -> None:
    opts = choices.attack_options(table(ctx))
    if not opts:
        ctx.push(("block", a))
        return
    _declare(ctx, a["seat"], "attack", opts, "attacked", active=a["seat"])


@answer("attacked")
def _attacked(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "done":
        ctx.push(("block", {"seat": data["active"]}))
        return
    emit(ctx, [fact("attacker_declared", seat=data["active"], uid=args["uid"])])
    ctx.push(("attack", {"seat": data["active"]}))
