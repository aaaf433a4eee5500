"""Challenge dice: rolling (through chance), re-rolling, and gaining rolled symbols.

A die in a challenge is [colour, face, cancelled, resolved]; "resolved" means its
symbol (Charge, Wound, Charge/Wound) has been gained. Symbols are gained at once;
when the order matters (a Charge/Wound choice, or mixed symbols) the roller picks
which to gain next (Advanced Rules, Symbol Order). A standing symbol cancel
(the cancel_symbol effect) meets symbols as they are gained.
"""

from __future__ import annotations

from collections import Counter

from services.rules.fallen import derived as dv
from services.rules.fallen.effects import gain_charges
from services.rules.fallen.flow import Args, Ctx, answer, task
from services.rules.fallen.state import DL, HERO, State


def wound_task(roller: str, n: int, ctx: Ctx) -> tuple[str, Args]:
    """Return the task dealing n Wounds from a roller to the opponent."""
    if roller == HERO:
        return ("wound", {"side": DL, "n": n, "slot": ctx.peek("ch.slot")})
    return ("wound", {"side": HERO, "n": n})


def granted_dice(state: State) -> dict[str, list[str]]:
    """Return the dice cards in play grant each seat in this challenge (not the fixed ones)."""
    attr = state.peek("ch.attribute")
    slot = state.peek("ch.slot")
    dl = dv.slot_dice(state, slot) if slot is not None else []
    return {
        DL: dl + dv.mod_dice(state, DL, "dl_dice", attr),
        HERO: dv.mod_dice(state, HERO, "attribute_dice", attr),
    }


def gain_new_dice(ctx: Ctx, before: dict[str, list[str]]) -> None:
    """Roll at once the dice a card just put into play grants a seat that has rolled already.

    "If Slowed is claimed during an agility challenge before the challenge has been
    resolved, the Dungeon Lord immediately gains the blue die" (Card Codex). A seat that has
    not rolled yet gets them with its initial roll; after the result nothing is gained.
    """
    s = ctx.state
    if not dv.in_challenge(s) or s.peek("ch.winner") is not None:
        return
    after = granted_dice(s)
    for seat in (DL, HERO):
        extra = list((Counter(after[seat]) - Counter(before[seat])).elements())
        if not extra:
            continue
        gather = s.peek(f"ch.gather.{seat}")
        if gather is not None:
            ctx.setv(f"ch.gather.{seat}", [*gather, *extra])
        elif dv.dice_of(s, seat):
            ctx.note("dice_gained", seat=seat, dice=extra)
            ctx.push(("roll_dice", {"seat": seat, "dice": extra}))


@task("roll_dice")
def _roll_dice(ctx: Ctx, a: Args) -> None:
    colours = list(a["dice"])
    if colours:
        ctx.roll(
            [dv.kind_name(c) for c in colours],
            f"{a['seat']} challenge dice",
            "dice_rolled",
            seat=a["seat"],
            colours=colours,
        )


@task("roll_gathered")
def _roll_gathered(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    gather = ctx.peek(f"ch.gather.{seat}") or []
    ctx.setv(f"ch.gather.{seat}", None)
    ctx.push(("roll_dice", {"seat": seat, "dice": gather}), ("run_deferred", {"seat": seat}))


@task("dice_rolled")
def _dice_rolled(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    new = [[c, f, False, False] for c, f in zip(a["colours"], a["faces"], strict=True)]
    ctx.note("dice_rolled", seat=seat, dice=a["colours"], faces=a["faces"], nonce=a["nonce"])
    ctx.setv(f"ch.dice.{seat}", dv.dice_of(ctx, seat) + new)
    ctx.push(("symbols", {"seat": seat}))


@task("reroll_die")
def _reroll_die(ctx: Ctx, a: Args) -> None:
    colour = dv.dice_of(ctx, a["seat"])[a["die"]][0]
    ctx.roll(
        [dv.kind_name(colour)], f"{a['seat']} re-roll", "die_rerolled", seat=a["seat"], die=a["die"]
    )


@task("die_rerolled")
def _die_rerolled(ctx: Ctx, a: Args) -> None:
    seat, i = a["seat"], a["die"]
    dice = dv.dice_of(ctx, seat)
    dice[i] = [dice[i][0], a["faces"][0], dice[i][2], False]
    ctx.note("die_rerolled", seat=seat, die=i, face=a["faces"][0], nonce=a["nonce"])
    ctx.setv(f"ch.dice.{seat}", dice)
    ctx.push(("symbols", {"seat": seat}))


def _unresolved(ctx: Ctx, seat: str) -> list[tuple[int, str]]:
    out = []
    for i, (colour, face, cancelled, resolved) in enumerate(dv.dice_of(ctx, seat)):
        if not cancelled and not resolved:
            sym = dv.face_symbol(colour, face)
            if sym:
                out.append((i, sym))
    return out


def _mark(ctx: Ctx, seat: str, indexes: list[int]) -> None:
    dice = dv.dice_of(ctx, seat)
    for i in indexes:
        dice[i] = [*dice[i][:3], True]
    ctx.setv(f"ch.dice.{seat}", dice)


@task("symbols")
def _symbols(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    todo = _unresolved(ctx, seat)
    if not todo:
        return
    kinds = {s for _, s in todo}
    if len(kinds) == 1 and "charge_or_wound" not in kinds:
        _mark(ctx, seat, [i for i, _ in todo])
        _gain(ctx, seat, kinds.pop(), len(todo))
        return
    opts = []
    for i, sym in todo:
        for as_ in ("charge", "wound") if sym == "charge_or_wound" else (sym,):
            opts.append(("resolve_symbol", {"die": i, "as": as_}))
    ctx.ask(
        seat,
        "resolve_symbol",
        "resolve_symbol",
        "gain your rolled symbols one at a time (choose order and Charge or Wound)",
        opts,
        who=seat,
    )


def _cancelled(ctx: Ctx, seat: str, sym: str, n: int) -> int:
    """Use up standing symbol cancels (cancel_symbol) against n symbols; return how many."""
    wards = ctx.peek(f"ch.symbol_ward.{seat}", [])
    used, left = 0, []
    for w in wards:
        take = min(int(w["n"]), n - used) if w["symbol"] in (sym, "any") else 0
        used += take
        if int(w["n"]) > take:
            left.append(dict(w, n=int(w["n"]) - take))
    if used:
        ctx.setv(f"ch.symbol_ward.{seat}", left or None)
        ctx.note("symbols_cancelled", seat=seat, symbol=sym, n=used)
    return used


def _gain(ctx: Ctx, seat: str, sym: str, n: int) -> None:
    n -= _cancelled(ctx, seat, sym, n)
    if n <= 0:
        return
    ctx.note("symbols_gained", seat=seat, symbol=sym, n=n)
    if sym == "charge":
        gain_charges(ctx, seat, n)
    else:
        ctx.push(wound_task(seat, n, ctx))


@answer("resolve_symbol")
def _resolved(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    _mark(ctx, seat, [args["die"]])
    ctx.push(("symbols", {"seat": seat}))
    _gain(ctx, seat, args["as"], 1)
