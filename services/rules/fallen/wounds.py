"""Wounds: blocking, wounding the hero's armor (breach, Critical cards) and killing Creatures."""

from __future__ import annotations

from services.rules.fallen import decks
from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import FIXED_IN, REREAD_IN, end_ability
from services.rules.fallen.cards import card, since
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, task
from services.rules.fallen.rolls import gain_new_dice, granted_dice
from services.rules.fallen.state import DL, HERO


def _absorb(ctx: Ctx, seat: str, n: int, slot: int | None = None) -> int:
    """Cancel Wounds with standing blocks: a Creature's own (its slot's) first, then the
    seat's (an Ultimate's, a "this challenge" card's)."""
    keys = [f"shield.slot.{slot}"] if seat == DL and slot is not None else []
    for key in (*keys, f"shield.{seat}"):
        used = min(ctx.count(key), n)
        if used:
            ctx.add(key, -used, "block")
            ctx.note("wounds_blocked", seat=seat, n=used)
            n -= used
    return n


@task("wound")
def _wound(ctx: Ctx, a: Args) -> None:
    """Deal n Wounds to a side: shields block first, then the wounded seat may react."""
    side, n = a["side"], int(a["n"])
    if side == DL:
        slot = a.get("slot")
        if slot is None or dv.creature_in(ctx, slot) is None:
            ctx.note("wounds_discarded", n=n, reason="no live creature to take them")
            return
    n = _absorb(ctx, side, n, a.get("slot"))
    if n <= 0:
        return
    args = dict(a, n=n)
    if since(FIXED_IN):  # a block announced now cancels these Wounds only (effects.py)
        ctx.setv("dealing", side)
    ctx.push(("react", {"seat": side, "wound": args}), ("place_wound", args))


@task("react")
def _react(ctx: Ctx, a: Args) -> None:
    n = a["wound"]["n"]
    ctx.ask(
        a["seat"],
        "window",
        "window",
        f"{n} wound(s) are being dealt to you: block or pass",
        name="when_wounded",
        passes=1,
        who=a["seat"],
        wound=a["wound"],
    )


def _parried(ctx: Ctx, side: str, n: int) -> int:
    """Cancel Wounds with the blocks announced while they were dealt; the rest is lost."""
    ctx.setv("dealing", None)
    parry = ctx.count(f"parry.{side}")
    if not parry:
        return n
    used = min(parry, n)
    ctx.set_to(f"parry.{side}", 0, "block")
    if used:
        ctx.note("wounds_blocked", seat=side, n=used)
    return n - used


@task("place_wound")
def _place(ctx: Ctx, a: Args) -> None:
    side = a["side"]
    n = _absorb(ctx, side, int(a["n"]), a.get("slot"))
    if since(FIXED_IN):
        n = _parried(ctx, side, n)
    if n <= 0:
        return
    if side == HERO:
        ctx.add("wounds.hero", n, "wounded")
        ctx.note("hero_wounded", n=n, total=ctx.count("wounds.hero"))
        ctx.push(("breach_check", {}))
        return
    slot = a["slot"]
    cid = dv.creature_in(ctx, slot)
    if cid is None:
        ctx.note("wounds_discarded", n=n, reason="creature already killed")
        return
    ctx.add(f"wounds.slot.{slot}", n, "wounded")
    ctx.note("creature_wounded", slot=slot, creature=cid, n=n)
    if ctx.count(f"wounds.slot.{slot}") >= dv.creature_armor(ctx, slot):
        kill(ctx, slot)


def kill(ctx: Ctx, slot: int) -> None:
    """Kill the Creature in a slot: discard its Wounds, turn it face down, hero gains XP."""
    cid = dv.creature_in(ctx, slot)
    if cid is None:
        return
    ctx.set_to(f"wounds.slot.{slot}", 0, "killed")
    ctx.move(cid, f"slot.{slot}", f"dead.{slot}")
    level = int(card(cid)["level"])
    ctx.add(f"xp.{HERO}", level, "kill")
    ctx.note("creature_killed", slot=slot, creature=cid, xp=level)
    ctx.push(("fire", {"event": "kill"}))
    if slot == ctx.peek("ch.slot") and cid == ctx.peek("ch.creature"):
        end_ability(ctx, "killed")  # "canceled as soon as it leaves play" (data 2+)


@task("thresholds")
def _thresholds(ctx: Ctx, a: Args) -> None:
    """Thresholds hold at all times (data 4+): after a card changed an armor rating (an
    Armor card swapped, a Curse bound), a Creature whose Wounds equal or exceed its armor is
    killed, and the Hero's armor is breached if its Wounds reach its rating."""
    for slot in dv.live_slots(ctx):
        wounds = ctx.count(f"wounds.slot.{slot}")
        if wounds and wounds >= dv.creature_armor(ctx, slot):
            kill(ctx, slot)
    ctx.push(("breach_check", {}))


@task("breach_check")
def _breach_check(ctx: Ctx, a: Args) -> None:
    rating = dv.armor_rating(ctx)
    if ctx.count("wounds.hero") < rating:
        return
    ctx.add("wounds.hero", -rating, "breach")
    ctx.add(f"xp.{DL}", 1, "breach")
    ctx.note("armor_breached", rating=rating, left=ctx.count("wounds.hero"))
    ctx.push(("draw_critical", {}), ("fire", {"event": "breach"}), ("breach_check", {}))


@task("draw_critical")
def _draw_critical(ctx: Ctx, a: Args) -> None:
    if not decks.size(ctx, "critical.deck"):
        ctx.note("no_critical_left")
        return
    if decks.dealt(ctx):  # dealt face up by the deck service (services/rules/fallen/decks.py)
        then: Args = {"before": granted_dice(ctx.state)} if since(REREAD_IN) else {}
        ctx.push(decks.draw("critical.deck", "crit.hero", 1, ("critical_drawn", then)))
        return
    cid = ctx.zone("critical.deck")[0]
    before = granted_dice(ctx.state) if since(FIXED_IN) else None
    ctx.move(cid, "critical.deck", "crit.dl" if card(cid).get("omen") else "crit.hero")
    _in_play(ctx, cid, before)


@task("critical_drawn")
def _critical_drawn(ctx: Ctx, a: Args) -> None:
    for cid in a["cards"]:
        if card(cid).get("omen"):
            ctx.move(cid, "crit.hero", "crit.dl")
        _in_play(ctx, cid, a.get("before"))  # "before" only in games of card data 4+


def _in_play(ctx: Ctx, cid: str, before: dict[str, list[str]] | None) -> None:
    """A Critical card has come into play: with `before` (the dice granted before it, card
    data 2+ engine-held decks, 4+ dealt), the dice it grants are gained at once ("the
    Dungeon Lord immediately gains the blue die", Slowed) and both hands are checked
    against their size ("at any time", Deep Cut); then its effects run."""
    if before is not None:
        gain_new_dice(ctx, before)
        ctx.push(("hand_limit", {"seat": HERO}), ("hand_limit", {"seat": DL}))
    run_effects(ctx, DL, list(card(cid).get("effects", ())), cid)
