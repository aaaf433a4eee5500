"""Experience and Skills: buying the cheapest next Skill of a colour group, upgrades replace."""

from __future__ import annotations

from services.rules.engine.state import Reads
from services.rules.fallen.cards import card
from services.rules.fallen.derived import skills_of
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, answer, task
from services.rules.fallen.state import HERO


def next_skills(state: Reads) -> list[str]:
    """Return the Skill of each colour group the hero may buy next (cheapest first rule)."""
    hero = state.peek("char.hero")
    owned = {card(c)["group"]: int(card(c)["rank"]) for c in state.zone("hero.skills")}
    for_sale = state.zone(f"skills.{hero}")
    out = []
    for cid in skills_of(hero):
        if cid in for_sale:
            c = card(cid)
            if int(c["rank"]) == owned.get(c["group"], 0) + 1:
                out.append(cid)
    return out


def learn(ctx: Ctx, cid: str) -> None:
    """Put a Skill into play (replacing the lower Skill of its group); run on-learn effects."""
    hero = ctx.peek("char.hero")
    group = card(cid)["group"]
    for old in ctx.zone("hero.skills"):
        if card(old)["group"] == group:
            ctx.move(old, "hero.skills", "box")
    ctx.move(cid, f"skills.{hero}", "hero.skills")
    ctx.note("skill_learned", skill=cid)
    run_effects(ctx, HERO, list(card(cid).get("on_learn", ())), cid)


@task("purchases")
def _purchases(ctx: Ctx, a: Args) -> None:
    xp = ctx.count(f"xp.{HERO}")
    opts = [("buy", {"skill": c}) for c in next_skills(ctx) if int(card(c)["cost"]) <= xp]
    if opts:
        ctx.ask(HERO, "buy", "buy", "spend Experience on a Skill, or done", [*opts, ("done", {})])


@answer("buy")
def _bought(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "done":
        return
    cid = args["skill"]
    ctx.add(f"xp.{HERO}", -int(card(cid)["cost"]), "skill")
    ctx.push(("purchases", {}))
    learn(ctx, cid)
