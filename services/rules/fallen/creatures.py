"""Creatures: refreshing, activating, exhausting, replacing, upgrading, slot-bound cards."""

from __future__ import annotations

from services.rules.fallen import decks
from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import FIXED_IN, REREAD_IN
from services.rules.fallen.cards import card, since
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, answer, task
from services.rules.fallen.rolls import gain_new_dice, granted_dice
from services.rules.fallen.state import DL, HERO
from services.rules.fallen.wounds import kill


@task("refresh_check")
def _refresh_check(ctx: Ctx, a: Args) -> None:
    """Refresh every Creature when all Creatures in play are exhausted."""
    live = [dv.creature_in(ctx, s) for s in dv.live_slots(ctx)]
    if live and all(c in ctx.state.exhausted for c in live):
        for cid in live:
            if cid:
                ctx.exhaust(cid, False)
        ctx.note("creatures_refreshed")


@task("ask_activate")
def _ask_activate(ctx: Ctx, a: Args) -> None:
    if since(FIXED_IN):  # checked at the moment of activation: a card played before it
        _refresh_check(ctx, a)  # may have exhausted the last refreshed Creature
    s = ctx.state
    slots = [x for x in dv.live_slots(s) if dv.creature_in(s, x) not in s.exhausted]
    if not slots:
        ctx.note("no_creature_to_activate")
        return
    ctx.ask(
        DL,
        "activate",
        "activate",
        "exhaust one Creature to make it the active Creature",
        [("activate", {"slot": x}) for x in slots],
    )


@answer("activate")
def _activated(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    slot = int(args["slot"])
    cid = dv.creature_in(ctx, slot)
    assert cid is not None
    if since(FIXED_IN):
        _activate(ctx, slot, cid)
        return
    exhaust_creature(ctx, slot)
    c = card(cid)
    attr = ctx.peek("ch.attribute")
    matches = attr in c.get("icons", ())
    ctx.setv("ch.slot", slot)
    ctx.setv("ch.creature", cid)
    ctx.setv("ch.ability", matches)
    ctx.note("creature_activated", slot=slot, creature=cid, ability=matches)
    ctx.push(("fire", {"event": "activate"}))
    ability = c.get("ability", {})
    if matches and ability.get("when") == "activate":
        run_effects(ctx, DL, list(ability.get("effects", ())), cid)


def _activate(ctx: Ctx, slot: int, cid: str) -> None:
    """Activate a Creature: its ability waits until the "when exhausted" window has closed,
    so a kill or a cancel played there pre-empts it (Creature Abilities)."""
    matches = ctx.peek("ch.attribute") in card(cid).get("icons", ())
    ctx.setv("ch.slot", slot)
    ctx.setv("ch.creature", cid)
    ctx.setv("ch.ability", matches)
    ctx.note("creature_activated", slot=slot, creature=cid, ability=matches)
    ctx.push(("activation_ability", {"slot": slot, "creature": cid}))
    exhaust_creature(ctx, slot)  # "when exhausted" triggers and window come before the ability
    ctx.push(("fire", {"event": "activate"}))  # cards that trigger on activation, first


@task("activation_ability")
def _activation_ability(ctx: Ctx, a: Args) -> None:
    """Use the active Creature's "when activated" ability unless it was killed or cancelled."""
    ability = card(a["creature"]).get("ability", {})
    if ability.get("when") != "activate":
        return
    if dv.creature_in(ctx, a["slot"]) != a["creature"] or not ctx.peek("ch.ability"):
        if ctx.peek("ch.attribute") in card(a["creature"]).get("icons", ()):
            ctx.note("creature_ability_skipped", creature=a["creature"])
        return
    run_effects(ctx, DL, list(ability.get("effects", ())), a["creature"])


def exhaust_creature(ctx: Ctx, slot: int) -> None:
    """Exhaust the Creature in a slot, then "when a Creature is exhausted" triggers and window.

    Queued behind whatever runs "as soon as the Creature is exhausted" (its own ability);
    the Dungeon Lord has priority first (Playing Power Cards: he decides conflicts).
    """
    cid = dv.creature_in(ctx, slot)
    if cid is None or cid in ctx.state.exhausted:
        return
    ctx.exhaust(cid)
    ctx.setv("ch.exhausted_slot", slot)
    ctx.push(
        ("fire", {"event": "creature_exhausted"}),
        ("window_open", {"name": "creature_exhausted", "who": DL}),
    )


def _draw_creature(ctx: Ctx, level: int, slot: int, exhausted: bool) -> None:
    deck = f"creature.{level}.deck"
    if decks.dealt(ctx):  # the deck service deals it: the rest of the task waits
        then = ("creature_drawn", {"slot": slot, "exhausted": exhausted})
        ctx.push(decks.draw(deck, f"slot.{slot}", 1, then))
        return
    top = ctx.zone(deck)
    if not top:
        return
    ctx.move(top[0], deck, f"slot.{slot}")
    ctx.exhaust(top[0], exhausted)
    ctx.note("creature_enters", slot=slot, creature=top[0], exhausted=exhausted)


@task("creature_drawn")
def _creature_drawn(ctx: Ctx, a: Args) -> None:
    for cid in a["cards"]:
        ctx.exhaust(cid, bool(a["exhausted"]))
        ctx.note("creature_enters", slot=a["slot"], creature=cid, exhausted=a["exhausted"])


@task("replace_dead")
def _replace_dead(ctx: Ctx, a: Args) -> None:
    """Put killed Creatures under their level's deck and draw replacements (exhausted)."""
    if decks.dealt(ctx):  # one replacement at a time: each draw waits for the deck service
        dead = [(slot, cid) for slot in dv.SLOTS for cid in ctx.zone(f"dead.{slot}")]
        if dead:  # the replacement is dealt first, so the killed one is not drawn back
            slot, cid = dead[0]
            ctx.push(("bury", {"slot": slot, "card": cid}), ("replace_dead", {}))
            _draw_creature(ctx, int(card(cid)["level"]), slot, True)
        return
    for slot in dv.SLOTS:
        for cid in ctx.zone(f"dead.{slot}"):
            level = int(card(cid)["level"])
            ctx.exhaust(cid, False)
            ctx.move(cid, f"dead.{slot}", f"creature.{level}.deck", bottom=True)
            _draw_creature(ctx, level, slot, True)


@task("bury")
def _bury(ctx: Ctx, a: Args) -> None:
    cid, slot = a["card"], a["slot"]
    ctx.exhaust(cid, False)
    ctx.move(cid, f"dead.{slot}", f"creature.{card(cid)['level']}.deck", bottom=True)


def upgrade_options(ctx: Ctx) -> list[tuple[str, Args]]:
    """Return the Creature upgrades the Dungeon Lord can pay for now."""
    out: list[tuple[str, Args]] = []
    xp = ctx.count(f"xp.{DL}")
    for slot in dv.live_slots(ctx):
        cid = dv.creature_in(ctx, slot)
        level = int(card(cid)["level"]) if cid else 3
        if level < 3 and xp >= level + 1 and decks.size(ctx, f"creature.{level + 1}.deck"):
            out.append(("upgrade", {"slot": slot}))
    return out


@task("upgrades")
def _upgrades(ctx: Ctx, a: Args) -> None:
    opts = upgrade_options(ctx)
    if opts:
        ctx.ask(
            DL,
            "upgrade",
            "upgrade",
            "spend Experience to upgrade a Creature, or done",
            [*opts, ("done", {})],
        )


@answer("upgrade")
def _upgraded(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "done":
        return
    slot = int(args["slot"])
    cid = dv.creature_in(ctx, slot)
    assert cid is not None
    level = int(card(cid)["level"])
    ctx.add(f"xp.{DL}", -(level + 1), "upgrade")
    if ctx.count(f"wounds.slot.{slot}"):
        ctx.set_to(f"wounds.slot.{slot}", 0, "upgraded")
        ctx.add(f"xp.{HERO}", 1, "wounded creature upgraded")
    was_exhausted = cid in ctx.state.exhausted
    ctx.exhaust(cid, False)
    ctx.note("creature_upgraded", slot=slot, creature=cid)
    ctx.move(cid, f"slot.{slot}", f"creature.{level}.deck", bottom=True)
    ctx.push(("upgrades", {}))  # after the replacement (a dealt draw is pushed before it)
    _draw_creature(ctx, level + 1, slot, was_exhausted)


# --- targets chosen by effects --------------------------------------------------------
@task("pick_creature")
def _pick_creature(ctx: Ctx, a: Args) -> None:
    s = ctx.state
    then = a["then"]
    slots = dv.live_slots(s)
    if then == "refresh":
        slots = [x for x in slots if dv.creature_in(s, x) in s.exhausted]
    elif then == "exhaust":
        slots = [x for x in slots if dv.creature_in(s, x) not in s.exhausted]
    if not slots:
        return
    ctx.ask(
        a["seat"],
        "target",
        "pick_creature",
        f"choose a Creature to {then}",
        [("target", {"slot": x}) for x in slots],
        who=a["seat"],
        then=then,
        n=a.get("n", 1),
    )


@answer("pick_creature")
def _picked_creature(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    slot, then, n = int(args["slot"]), data["then"], int(data["n"])
    cid = dv.creature_in(ctx, slot)
    assert cid is not None
    if then == "wound":
        ctx.push(("wound", {"side": DL, "n": n, "slot": slot}))
    elif then == "heal":
        ctx.add(f"wounds.slot.{slot}", -min(n, ctx.count(f"wounds.slot.{slot}")), "heal")
    elif then == "refresh":
        ctx.exhaust(cid, False)
    elif then == "exhaust":
        exhaust_creature(ctx, slot)
    elif then == "kill":
        kill(ctx, slot)


@task("pick_slot")
def _pick_slot(ctx: Ctx, a: Args) -> None:
    if a["card"] not in ctx.zone("limbo"):
        return
    ctx.ask(
        a["seat"],
        "target",
        "pick_slot",
        "choose the Creature slot to bind this card to",
        [("target", {"slot": x}) for x in dv.SLOTS],
        card=a["card"],
    )


@answer("pick_slot")
def _picked_slot(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    """Bind the card to the slot: a Dungeon Lord's card is an Augment, a Hero's a Curse."""
    cid, slot = data["card"], int(args["slot"])
    binding = "augment" if card(cid)["side"] == DL else "curse"
    before = granted_dice(ctx.state)
    ctx.move(cid, "limbo", f"{binding}.{slot}")
    if since(FIXED_IN):
        gain_new_dice(ctx, before)  # a die added to the active Creature is gained at once
    ctx.note("card_bound", card=cid, slot=slot, binding=binding)
    if since(REREAD_IN):  # Hex of Frailty may lower an armor to the Wounds on it
        ctx.push(("thresholds", {}))
