"""A PVP Deed as tasks: first strikes, the PVP priority window, two Combat checks, the result.

docs/games/land.md 8.3. The PVP window is its own decision (`pvp_window`), opened after the
first strikes and before the Combat checks; `pvp` Action cards are played only there.
"""

from __future__ import annotations

from types import SimpleNamespace

from services.rules.engine.state import State
from services.rules.land.abilities import use_options
from services.rules.land.abilities_flow import use_ability
from services.rules.land.data import card
from services.rules.land.economy import adjust
from services.rules.land.flow import Args, Ctx, answer, options, sync_town, task
from services.rules.land.party import first_strikes
from services.rules.land.play import play_card, playable
from services.rules.land.pvp import pvp_bonus, pvp_result
from services.rules.land.state import party, players, town
from services.rules.land.zones import turn_order


@task("pvp")
def _pvp(ctx: Ctx, a: Args) -> None:
    """Start a fight: {seat (attacker), target (defender)}."""
    seat, target = a["seat"], a["target"]
    ctx.note("pvp_started", attacker=seat, defender=target)
    ctx.setv("pvp", {"attacker": seat, "defender": target, "bonus": {seat: 0, target: 0}})
    ctx.push(
        ("pvp_strike", {"seat": seat, "target": target}),
        ("pvp_strike", {"seat": target, "target": seat}),
        ("pvp_open", {}),
    )


@task("pvp_strike")
def _strike(ctx: Ctx, a: Args) -> None:
    """Each living Character of `seat` with a first strike hits a random one of `target`."""
    tasks: list[tuple[str, Args]] = [
        ("damage", {"seat": a["target"], "type": "physical", "n": n, "how": "random"})
        for _, n in first_strikes(party(ctx.state, a["seat"]))
    ]
    ctx.push(*tasks)


@task("pvp_open")
def _open(ctx: Ctx, a: Args) -> None:
    fight = ctx.state.var("pvp")
    att, dfn = fight["attacker"], fight["defender"]
    others = [
        s for s in turn_order(players(ctx.state), ctx.state.var("first")) if s not in (att, dfn)
    ]
    ctx.setv("pvp_window", {"order": [att, dfn, *others], "i": 0, "passes": 0})
    ctx.push(("pvp_window", {}))


def _window_options(ctx: Ctx, seat: str) -> list[tuple[str, Args]]:
    fight = ctx.state.var("pvp")
    opts: list[tuple[str, Args]] = [("pass", {})]
    if seat in (fight["attacker"], fight["defender"]):
        hand = sorted(ctx.state.zone(f"hand.{seat}"))
        opts += [("play", {"card": c, "target": seat}) for c in hand if pvp_bonus(c)]
    return opts + playable(ctx, seat, ("any",)) + use_options(ctx.state, seat, ("any",))


@options("pvp_window")
def _window_dynamic(state: State, data: Args) -> list[tuple[str, Args]]:
    return _window_options(SimpleNamespace(state=state), data["who"])  # type: ignore[arg-type]


@task("pvp_window")
def _window(ctx: Ctx, a: Args) -> None:
    w = ctx.state.var("pvp_window")
    if w["passes"] >= len(w["order"]):
        ctx.setv("pvp_window", None)
        ctx.push(("pvp_checks", {}))
        return
    seat = w["order"][w["i"]]
    if len(_window_options(ctx, seat)) == 1:  # nothing to play: an automatic pass
        _advance(ctx, played=False)
        ctx.push(("pvp_window", {}))
        return
    fight = ctx.state.var("pvp")
    prompt = f"play PVP cards in {fight['attacker']}'s fight with {fight['defender']} or pass"
    ctx.ask(seat, "pvp_window", "pvp_window_answer", prompt, who=seat)


def _advance(ctx: Ctx, played: bool) -> None:
    w = ctx.state.var("pvp_window")
    w["passes"] = 0 if played else w["passes"] + 1
    w["i"] = (w["i"] + 1) % len(w["order"])
    ctx.setv("pvp_window", w)


@answer("pvp_window_answer")
def _window_answer(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    ctx.push(("pvp_window", {}))
    if kind == "pass":
        _advance(ctx, played=False)
        return
    _advance(ctx, played=True)
    c = args["card"]
    if kind == "use":  # an "any" ability (card data 2), e.g. a steal from the other party
        use_ability(ctx, seat, c, args.get("target", ""))
        return
    n = pvp_bonus(c)
    if card(c)["timing"] != "pvp":
        play_card(ctx, seat, c, args["target"])
        return
    fight = ctx.state.var("pvp")
    fight["bonus"][seat] = int(fight["bonus"][seat]) + n
    ctx.setv("pvp", fight)
    ctx.move(c, f"hand.{seat}", "discard.action")
    ctx.note("action_played", seat=seat, card=c, target=seat, timing="pvp")


def _combat(seat: str, then: str, extra: Args) -> tuple[str, Args]:
    return (
        "check",
        {
            "seat": seat,
            "skill": "combat",
            "required": 0,
            "context": ["pvp"],
            "then": [then, extra],
        },
    )


@task("pvp_checks")
def _checks(ctx: Ctx, a: Args) -> None:
    fight = ctx.state.var("pvp")
    ctx.push(_combat(fight["attacker"], "pvp_att", {}))


def _fight(ctx: Ctx, a: Args) -> Args:
    """Return the fight; a game recorded before the PVP window kept it in the task's args."""
    fight = ctx.state.var("pvp")
    if fight is None:
        seat, target = a["seat"], a["target"]
        fight = {"attacker": seat, "defender": target, "bonus": {seat: 0, target: 0}}
        ctx.setv("pvp", fight)
    return dict(fight)


@task("pvp_att")
def _att(ctx: Ctx, a: Args) -> None:
    fight = _fight(ctx, a)
    ctx.push(_combat(fight["defender"], "pvp_def", {"att": int(a["successes"])}))


@task("pvp_def")
def _def(ctx: Ctx, a: Args) -> None:
    _fight(ctx, a)
    ctx.push(("pvp_close", {"att": int(a["att"]), "def": int(a["successes"])}))


@task("pvp_close")
def _close(ctx: Ctx, a: Args) -> None:
    fight = ctx.state.var("pvp")
    ctx.setv("pvp", None)
    att, dfn = fight["attacker"], fight["defender"]
    bonus = [int(fight["bonus"][att]), int(fight["bonus"][dfn])]
    ours, theirs = int(a["att"]) + bonus[0], int(a["def"]) + bonus[1]
    r = pvp_result(att, dfn, ours, theirs)
    ctx.note(
        "pvp_fought",
        attacker=att,
        defender=dfn,
        winner=r.winner,
        successes=[ours, theirs],
        bonus=bonus,
    )
    if r.winner is None or r.loser is None:
        return
    sync_town(ctx, r.winner, adjust(town(ctx.state, r.winner), prestige=r.prestige), "pvp")
    for _ in range(r.damage):
        ctx.push(("damage", {"seat": r.loser, "type": "physical", "n": 1, "how": "random"}))
    ctx.push(("lose_random_spoils", {"seat": r.loser, "to": r.winner}))
