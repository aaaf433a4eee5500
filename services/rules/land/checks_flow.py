"""Skill checks as tasks: one d10 per Character, then a priority window for every seat."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from services.rules.engine.state import State
from services.rules.land.abilities import ability_of, ignorer, use_options
from services.rules.land.abilities_flow import use_ability
from services.rules.land.checks import party_check, perk_bonus, tech_bonus
from services.rules.land.data import card, economy
from services.rules.land.flow import Args, Ctx, answer, options, task
from services.rules.land.party import skill_values
from services.rules.land.play import ignore_info
from services.rules.land.red_dot_flow import check_card
from services.rules.land.setup import is_solo2
from services.rules.land.state import party, perks_of, players, town
from services.rules.land.zones import turn_order


@task("check")
def _check(ctx: Ctx, a: Args) -> None:
    """Start a party check: a {seat, skill, required, context, then} task."""
    seat, skill = a["seat"], a["skill"]
    values = skill_values(party(ctx.state, seat), skill)
    perks = perks_of(ctx.state, seat)
    bonus = tech_bonus(dict(town(ctx.state, seat).techs), skill, economy()["techs"])
    bonus += perk_bonus(perks, skill, a.get("context", []))
    chk = dict(a, values=values, bonus=bonus, faces=[])
    if not values:
        ctx.setv("check", chk)
        ctx.push(("check_close", {}))
        return
    ctx.roll(["d10"] * len(values), f"{skill} check of {seat}", "check_rolled", chk=chk)


@task("check_rolled")
def _rolled(ctx: Ctx, a: Args) -> None:
    chk = dict(a["chk"], faces=[int(f) for f in a["faces"]])
    ctx.setv("check", chk)
    seats = players(ctx.state)
    others = [s for s in turn_order(seats, ctx.state.var("first")) if s != chk["seat"]]
    ctx.setv("window", {"order": [chk["seat"], *others], "i": 0, "passes": 0})
    if is_solo2(dict(ctx.state.var("options", {}))) and check_card(ctx.state) is not None:
        ctx.push(("red_dot_check", {}))  # an opposing faction's skill-check card waits in play
        return
    ctx.push(("window", {}))


@options("check_window")
def _window_dynamic(state: State, data: Args) -> list[tuple[str, Args]]:
    return _window_options(SimpleNamespace(state=state), data["who"])  # type: ignore[arg-type]


def _window_options(ctx: Ctx, seat: str) -> list[tuple[str, Args]]:
    chk = ctx.state.var("check")
    mine = seat == chk["seat"]
    opts: list[tuple[str, Args]] = [("pass", {})]
    for c in sorted(ctx.state.zone(f"hand.{seat}")):
        data = card(c)
        if data["timing"] != "skill_check":  # `pvp` cards go in the PVP window (pvp_flow.py)
            continue
        ((op, arg),) = data["effects"][0].items()
        helps = op == "reroll" or (op == "successes" and int(arg["n"]) > 0)
        if helps == mine:
            opts.append(("play", {"card": c}))
    if mine:  # the checking party's own skill-check abilities (card data 2)
        opts += use_options(ctx.state, seat, ("skill_check",))
    return opts


@task("window")
def _window(ctx: Ctx, a: Args) -> None:
    w = ctx.state.var("window")
    if w["passes"] >= len(w["order"]):
        ctx.push(("check_close", {}))
        return
    seat = w["order"][w["i"]]
    opts = _window_options(ctx, seat)
    if len(opts) == 1:  # nothing to play: an automatic pass
        _advance(ctx, played=False)
        ctx.push(("window", {}))
        return
    chk = ctx.state.var("check")
    prompt = f"play on {chk['seat']}'s {chk['skill']} check or pass"
    ctx.ask(seat, "check_window", "window_answer", prompt, who=seat)


def _advance(ctx: Ctx, played: bool) -> None:
    w = ctx.state.var("window")
    w["passes"] = 0 if played else w["passes"] + 1
    w["i"] = (w["i"] + 1) % len(w["order"])
    ctx.setv("window", w)


@answer("window_answer")
def _window_answer(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    if kind == "pass":
        _advance(ctx, played=False)
        ctx.push(("window", {}))
        return
    c = args["card"]
    chk = ctx.state.var("check")
    if kind == "use":  # an ability of the checking party: its effect on this check
        _advance(ctx, played=True)
        use_ability(ctx, seat, c)
        effect = (ability_of(c) or {})["effects"][0]
        _on_check(ctx, *next(iter(effect.items())))
        return
    if seat != chk["seat"] and ignorer(ctx.state, chk["seat"]):
        # a card played on the checking seat, which may ignore it (a special ability)
        ctx.move(c, f"hand.{seat}", f"play.{seat}")
        ctx.note("action_played", seat=seat, card=c, target=chk["seat"], timing="skill_check")
        _advance(ctx, played=True)
        then = ("check_play", {"seat": seat, "card": c})
        ctx.push(("played_on_ask", ignore_info(seat, c, chk["seat"], then, ("window", {}))))
        return
    ctx.move(c, f"hand.{seat}", "discard.action")
    ctx.note("action_played", seat=seat, card=c, target=chk["seat"], timing=card(c)["timing"])
    _advance(ctx, played=True)
    _on_check(ctx, *next(iter(card(c)["effects"][0].items())))


@task("check_play")
def _check_play(ctx: Ctx, a: Args) -> None:
    """A card played on a check, not ignored, acts on it and goes to the discard."""
    ctx.move(a["card"], f"play.{a['seat']}", "discard.action")
    _on_check(ctx, *next(iter(card(a["card"])["effects"][0].items())))


def _on_check(ctx: Ctx, op: str, arg: Any) -> None:
    """Apply one skill-check effect to the check in progress, then reopen its window."""
    chk = ctx.state.var("check")
    if op == "successes":
        chk["bonus"] = int(chk["bonus"]) + int(arg["n"])
        ctx.setv("check", chk)
        ctx.push(("window", {}))
        return
    n = int(arg)
    ones = [v % 10 for v in chk["values"]]
    hits = [f != 10 and (f == 1 or f <= o) for f, o in zip(chk["faces"], ones, strict=True)]
    pick = [i for i, h in enumerate(hits) if (not h if op == "reroll" else h)][:n]
    if not pick:
        ctx.push(("window", {}))
        return
    ctx.roll(["d10"] * len(pick), f"reroll for {chk['seat']}", "rerolled", idx=pick)


@task("rerolled")
def _rerolled(ctx: Ctx, a: Args) -> None:
    chk = ctx.state.var("check")
    faces = list(chk["faces"])
    for i, f in zip(a["idx"], a["faces"], strict=True):
        faces[i] = int(f)
    chk["faces"] = faces
    ctx.setv("check", chk)
    ctx.push(("window", {}))


@task("check_close")
def _close(ctx: Ctx, a: Args) -> None:
    chk = ctx.state.var("check")
    r = party_check(chk["values"], chk["faces"], int(chk["required"]), int(chk["bonus"]))
    ctx.note(
        "skill_checked",
        seat=chk["seat"],
        skill=chk["skill"],
        required=r.required,
        auto=r.auto,
        rolls=chk["faces"],
        bonus=r.bonus,
        successes=r.successes,
        passed=r.passed,
    )
    ctx.setv("check", None)
    ctx.setv("window", None)
    name, args = chk["then"]
    ctx.push((name, dict(args, passed=r.passed, successes=r.successes)))
