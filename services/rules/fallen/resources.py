"""Decks and hands: shuffles, draws, hand size, stealing cards, and the Shadow Track."""

from __future__ import annotations

from services.rules.engine.api import NOBODY
from services.rules.fallen import decks
from services.rules.fallen import derived as dv
from services.rules.fallen.cards import card
from services.rules.fallen.flow import Args, Ctx, answer, options, task
from services.rules.fallen.state import DL, HERO, State


@task("shuffle_zone")
def _shuffle_zone(ctx: Ctx, a: Args) -> None:
    """Ask chance to shuffle a zone (a deck) face down."""
    n = len(ctx.zone(a["zone"]))
    if n > 1:
        ctx.shuffle(n, f"shuffle {a['zone']}", "zone_shuffled", zone=a["zone"])


@task("zone_shuffled")
def _zone_shuffled(ctx: Ctx, a: Args) -> None:
    ctx.emit("zone_shuffled", {"zone": a["zone"], "order": a["order"], "nonce": a["nonce"]}, NOBODY)
    ctx.note("deck_shuffled", zone=a["zone"], count=len(a["order"]), nonce=a["nonce"])


@task("draw")
def _draw(ctx: Ctx, a: Args) -> None:
    seat, n = a["seat"], int(a["n"])
    deck = f"{seat}.deck"
    if decks.dealt(ctx):
        _draw_dealt(ctx, seat, n)
        return
    for i in range(n):
        cards = ctx.zone(deck)
        if not cards:
            discard = ctx.zone(f"{seat}.discard")
            if discard:
                for cid in discard:
                    ctx.move(cid, f"{seat}.discard", deck)
                ctx.push(("shuffle_zone", {"zone": deck}), ("draw", {"seat": seat, "n": n - i}))
            return
        ctx.move(cards[0], deck, f"{seat}.hand")


def _draw_dealt(ctx: Ctx, seat: str, n: int) -> None:
    """Draw n cards from the deck service; an empty deck is formed again from the discard."""
    deck, discard = f"{seat}.deck", f"{seat}.discard"
    have = decks.size(ctx, deck)
    if n <= 0:
        return
    if not have:
        pile = list(ctx.zone(discard))
        if pile:
            ctx.push(decks.form(deck, pile, discard), ("draw", {"seat": seat, "n": n}))
        return
    take = min(n, have)
    later = [("draw", {"seat": seat, "n": n - take})] if n > take else []
    ctx.push(decks.draw(deck, f"{seat}.hand", take), *later)


@task("hand_limit")
def _hand_limit(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    over = len(ctx.zone(f"{seat}.hand")) - dv.hand_size(ctx, seat)
    if over > 0:
        ctx.ask(
            seat, "discard", "discard", f"discard down to your hand size ({over} to go)", who=seat
        )


@options("discard")
def _discard_options(state: State, data: Args) -> list[tuple[str, Args]]:
    return [("discard", {"card": c}) for c in sorted(set(state.zone(f"{data['who']}.hand")))]


def discard_from_hand(ctx: Ctx, seat: str, cid: str) -> None:
    """Discard a card from a hand: Power cards face up, Omens under the Omen deck."""
    if card(cid)["type"] == "omen":
        ctx.move(cid, f"{seat}.hand", "omen.deck", bottom=True)
    else:
        ctx.move(cid, f"{seat}.hand", f"{card(cid)['side']}.discard")


@answer("discard")
def _discarded(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    discard_from_hand(ctx, data["who"], args["card"])
    ctx.push(("hand_limit", {"seat": data["who"]}))


@task("steal_card")
def _steal_card(ctx: Ctx, a: Args) -> None:
    victim = DL if a["seat"] == HERO else HERO
    n = len(ctx.zone(f"{victim}.hand"))
    if n:
        ctx.shuffle(n, "steal a random card", "card_stolen", thief=a["seat"], victim=victim)


@task("card_stolen")
def _card_stolen(ctx: Ctx, a: Args) -> None:
    thief, victim = a["thief"], a["victim"]
    cid = ctx.zone(f"{victim}.hand")[a["order"][0]]
    if card(cid)["type"] == "omen" and thief == HERO:
        ctx.move(cid, f"{victim}.hand", "omen.deck", bottom=True)
    else:
        ctx.move(cid, f"{victim}.hand", f"{thief}.hand")


@task("discard_random")
def _discard_random(ctx: Ctx, a: Args) -> None:
    n = len(ctx.zone(f"{a['seat']}.hand"))
    if n:
        ctx.shuffle(n, "discard a random card", "random_discarded", victim=a["seat"])


@task("random_discarded")
def _random_discarded(ctx: Ctx, a: Args) -> None:
    victim = a["victim"]
    discard_from_hand(ctx, victim, ctx.zone(f"{victim}.hand")[a["order"][0]])


def gain_fortune(ctx: Ctx, seat: str, n: int) -> None:
    """Gain Fortune (held over as bonus when gained between stages)."""
    key = "bonus_fortune" if ctx.peek("between_stages") else "fortune"
    ctx.add(f"{key}.{seat}", n, "gain")


@task("shift")
def _shift(ctx: Ctx, a: Args) -> None:
    """Shift the Shadow Track n times; beyond Brilliant or Night gives Fortune instead."""
    for _ in range(int(a["n"])):
        pos = ctx.count("shadow")
        if a["toward"] == "light":
            if pos == 0:
                gain_fortune(ctx, HERO, 1)
            else:
                ctx.add("shadow", -1, "shift to light")
        elif pos == 5:
            gain_fortune(ctx, DL, 1)
        else:
            ctx.add("shadow", 1, "shift to dark")
    ctx.note("shadow_track", position=ctx.count("shadow"), light=dv.is_light(ctx))


@task("gain_treasure")
def _gain_treasure(ctx: Ctx, a: Args) -> None:
    if decks.dealt(ctx):
        if decks.size(ctx, "treasure.deck"):
            ctx.push(decks.draw("treasure.deck", "hero.new_treasure", 1), ("equip_decision", {}))
        return
    deck = ctx.zone("treasure.deck")
    if deck:
        ctx.move(deck[0], "treasure.deck", "hero.new_treasure")
        ctx.push(("equip_decision", {}))


@task("gain_omen")
def _gain_omen(ctx: Ctx, a: Args) -> None:
    if decks.dealt(ctx):
        if decks.size(ctx, "omen.deck"):
            ctx.push(decks.draw("omen.deck", f"{DL}.hand", 1), ("hand_limit", {"seat": DL}))
        return
    deck = ctx.zone("omen.deck")
    if deck:
        ctx.move(deck[0], "omen.deck", f"{DL}.hand")
        ctx.push(("hand_limit", {"seat": DL}))
