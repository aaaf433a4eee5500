"""The Quest stage and the three Story card stages (preparation, challenges, resolution)."""

from __future__ import annotations

from typing import Any, Final

from services.rules.fallen import decks
from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import REREAD_IN
from services.rules.fallen.cards import SHADOW, card, since
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, answer, task
from services.rules.fallen.state import DL, HERO

STORIES_PER_GAME: Final = 3
START_FORTUNE: Final = 5


# --- Quest stage --------------------------------------------------------------------
@task("quest")
def _quest(ctx: Ctx, a: Args) -> None:
    ctx.emit("phase_changed", {"phase": "quest"})
    quest = dv.character(ctx, DL)["quest"]
    names = [c["name"] for c in quest["choices"]]
    ctx.note("quest_begins", title=quest["title"], intro=quest["intro"], choices=names)
    ctx.ask(
        HERO,
        "choose",
        "quest_choice",
        f"{quest['title']}: choose a path",
        [("choose", {"choice": n}) for n in names],
    )


@answer("quest_choice")
def _quest_chosen(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    quest = dv.character(ctx, DL)["quest"]
    choice = next(c for c in quest["choices"] if c["name"] == args["choice"])
    ctx.note("quest_choice", name=choice["name"], text=choice["text"], shadow=choice["shadow"])
    ctx.set_to("shadow", SHADOW.index(choice["shadow"]), "quest")
    if since(REREAD_IN):  # step 4, the starting conditions, then step 5, the Charges
        ctx.push(("quest_charges", {}), ("story_stage", {}))
    else:
        _quest_charges(ctx, {})
        ctx.push(("story_stage", {}))
    for seat in (DL, HERO):
        run_effects(ctx, seat, list(choice.get(seat, ())), dv.character(ctx, DL)["id"])


@task("quest_charges")
def _quest_charges(ctx: Ctx, a: Args) -> None:
    """Quest Stage 5: "Place three Charge tokens on the Charge slots of each player's
    Character card" (every slot holds one; a Charge the Quest gave holds one already)."""
    for seat in (HERO, DL):
        ctx.set_to(f"charges.{seat}", dv.charge_slots(ctx, seat), "quest")


# --- preparation (shared with the Final Battle) ----------------------------------------
@task("stage_prep")
def _stage_prep(ctx: Ctx, a: Args) -> None:
    """Fortune to 5 (+ bonus), draw 2 Power cards, refresh Equipment, tokens back to the cup."""
    for seat in (HERO, DL):
        bonus = ctx.count(f"bonus_fortune.{seat}")
        ctx.set_to(f"fortune.{seat}", START_FORTUNE + bonus, "preparation")
        ctx.set_to(f"bonus_fortune.{seat}", 0, "preparation")
    ctx.setv("between_stages", None)
    for cid in ctx.zone("hero.equipment"):
        ctx.exhaust(cid, False)
    ctx.push(
        ("draw", {"seat": HERO, "n": 2}),
        ("hand_limit", {"seat": HERO}),
        ("draw", {"seat": DL, "n": 2}),
        ("hand_limit", {"seat": DL}),
        ("tokens_back", {}),
        ("fire", {"event": "stage_start"}),
    )


# --- Story stage -------------------------------------------------------------------------
@task("story_stage")
def _story_stage(ctx: Ctx, a: Args) -> None:
    ctx.emit("phase_changed", {"phase": "story"})
    ctx.setv("story.n", ctx.count("stories") + 1)
    ctx.setv("story.step", 0)
    ctx.setv("story.node", None)
    ctx.push(("stage_prep", {}), ("story_draw", {}), ("offer", {}))


@task("story_draw")
def _story_draw(ctx: Ctx, a: Args) -> None:
    if decks.dealt(ctx):
        ctx.push(decks.draw("story.deck", "story.current", 1, ("story_drawn", {})))
        return
    sid = ctx.zone("story.deck")[0]
    ctx.move(sid, "story.deck", "story.current")
    _story_begins(ctx, sid)


@task("story_drawn")
def _story_drawn(ctx: Ctx, a: Args) -> None:
    for sid in a["cards"]:
        _story_begins(ctx, sid)


def _story_begins(ctx: Ctx, sid: str) -> None:
    s = card(sid)
    ctx.note("story_begins", number=ctx.peek("story.n"), title=s["title"], intro=s["intro"])


def _story(ctx: Ctx) -> dict[str, Any]:
    return card(ctx.zone("story.current")[0])


@task("offer")
def _offer(ctx: Ctx, a: Args) -> None:
    """Offer the next choices of the Story card (or go to the resolution after four)."""
    story = _story(ctx)
    node = ctx.peek("story.node")
    if ctx.peek("story.step") >= 4:
        ctx.push(("resolution", {}))
        return
    keys = list(story["start"] if node is None else story["next"][node])
    choices = story["choices"]
    if len(keys) == 1:
        ctx.note("story_offer", choices=[choices[keys[0]]["name"]], forced=True)
        _apply_choice(ctx, keys[0])
        return
    names = [choices[k]["name"] for k in keys]
    ctx.note("story_offer", choices=names, forced=False)
    ctx.ask(
        HERO, "choose", "story_choice", "choose a path", [("choose", {"choice": n}) for n in names]
    )


@answer("story_choice")
def _story_chosen(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    choices = _story(ctx)["choices"]
    key = next(k for k, c in choices.items() if c["name"] == args["choice"])
    _apply_choice(ctx, key)


def _apply_choice(ctx: Ctx, key: str) -> None:
    choice = _story(ctx)["choices"][key]
    step = int(ctx.peek("story.step")) + 1
    ctx.setv("story.node", key)
    ctx.setv("story.step", step)
    icons = choice["icons"]
    ctx.note("story_choice", name=choice["name"], text=choice["text"], icons=icons)
    ctx.push(
        (
            "challenge",
            {
                "kind": "story",
                "attribute": icons["attribute"],
                "difficulty": icons.get("difficulty"),
                "reward": icons.get("reward"),
                "wound": icons.get("wound", 0),
                "last": step == 4,
            },
        ),
        ("offer", {}),
    )


@task("resolution")
def _resolution(ctx: Ctx, a: Args) -> None:
    """Read the resolution: the hero gains its XP, the Dungeon Lord XP = stories resolved."""
    res = _story(ctx)["resolutions"][ctx.peek("story.node")]
    ctx.note("story_resolution", text=res["text"], xp=res["xp"])
    ctx.add("stories", 1, "resolved")
    ctx.add(f"xp.{HERO}", int(res["xp"]), "resolution")
    ctx.add(f"xp.{DL}", ctx.count("stories"), "resolution")
    ctx.setv("between_stages", True)
    ctx.push(("upgrades", {}), ("purchases", {}), ("story_end", {}))


@task("story_end")
def _story_end(ctx: Ctx, a: Args) -> None:
    sid = ctx.zone("story.current")[0]
    ctx.move(sid, "story.current", "story.used")
    for key in ("story.n", "story.step", "story.node"):
        ctx.setv(key, None)
    if ctx.count("stories") < STORIES_PER_GAME:
        ctx.push(("story_stage", {}))
    else:
        ctx.push(("final_battle", {}))
