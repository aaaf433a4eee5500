"""The effect vocabulary: card effects are data, interpreted here one primitive at a time.

An effect is a one-key mapping {op: argument}, or {"if": condition, "then": [...],
"else": [...]}. Effects run as queued tasks, in the order listed, so an effect that
needs a choice (a target, a die) simply asks for it before the next one runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import (
    FIXED_IN,
    end_ability,
    from_ability,
    record,
    shield_of,
)
from services.rules.fallen.cards import card, since
from services.rules.fallen.flow import Args, Ctx, answer, task
from services.rules.fallen.state import DL, HERO, State, other

OpFn = Callable[[Ctx, str, Any, str], None]
OPS: Final[dict[str, OpFn]] = {}

CONDITIONS: Final = (
    "light",
    "dark",
    "agility",
    "intelligence",
    "strength",
    "easy",
    "hard",
    "final_battle",
    "won",
    "lost",
    "treasure",
    "omen",
    "active_wounded",
)


def op(name: str) -> Callable[[OpFn], OpFn]:
    """Register an effect primitive."""

    def deco(fn: OpFn) -> OpFn:
        OPS[name] = fn
        return fn

    return deco


def run_effects(ctx: Ctx, seat: str, effects: list[Any], src: str = "") -> None:
    """Queue a list of effects for a seat to run next, in order."""
    ctx.push(*[("effect", {"seat": seat, "eff": e, "src": src}) for e in effects or ()])


def condition(ctx: Ctx, seat: str, cond: str) -> bool:
    """Return whether a named condition holds for a seat now."""
    return holds(ctx.state, seat, cond)


def holds(s: State, seat: str, cond: str) -> bool:
    """Return whether a named condition holds for a seat in a state."""
    if cond == "light":
        return dv.is_light(s)
    if cond == "dark":
        return not dv.is_light(s)
    if cond in ("agility", "intelligence", "strength"):
        return bool(s.peek("ch.attribute") == cond)
    if cond in ("easy", "hard"):
        return bool(s.peek("ch.difficulty") == cond)
    if cond in ("treasure", "omen"):
        return bool(s.peek("ch.reward") == cond)
    if cond == "final_battle":
        return s.phase == "final_battle"
    if cond == "won":
        return bool(s.peek("ch.winner") == seat)
    if cond == "lost":
        return s.peek("ch.winner") not in (None, seat)
    if cond == "active_wounded":
        slot = s.peek("ch.slot")
        return slot is not None and s.count(f"wounds.slot.{slot}") > 0
    raise ValueError(f"unknown condition {cond}")


@task("effect")
def _effect(ctx: Ctx, a: Args) -> None:
    eff, seat = a["eff"], a["seat"]
    if "if" in eff:
        branch = eff.get("then", []) if condition(ctx, seat, eff["if"]) else eff.get("else", [])
        run_effects(ctx, seat, branch, a["src"])
        return
    ((name, arg),) = eff.items()
    gathering = ctx.peek(f"ch.gather.{seat}") is not None
    if gathering and name != "add_dice":
        deferred = ctx.peek(f"ch.deferred.{seat}", [])
        ctx.setv(f"ch.deferred.{seat}", [*deferred, a])
        return
    OPS[name](ctx, seat, arg, a["src"])


@task("run_deferred")
def _run_deferred(ctx: Ctx, a: Args) -> None:
    """Run effects held back while an initial roll was being gathered."""
    deferred = ctx.peek(f"ch.deferred.{a['seat']}", [])
    ctx.setv(f"ch.deferred.{a['seat']}", None)
    ctx.push(*[("effect", d) for d in deferred])


def _n(arg: Any) -> int:
    return int(arg["n"]) if isinstance(arg, dict) else int(arg)


# --- resources -----------------------------------------------------------------
@op("gain_fortune")
def _gain_fortune(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    key = "bonus_fortune" if ctx.peek("between_stages") else "fortune"
    ctx.add(f"{key}.{seat}", _n(arg), "gain")


@op("lose_fortune")
def _lose_fortune(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    opp = other(seat)
    ctx.add(f"fortune.{opp}", -min(_n(arg), ctx.count(f"fortune.{opp}")), "lose")


@op("steal_fortune")
def _steal_fortune(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    n, opp = _n(arg), other(seat)
    if ctx.count(f"fortune.{opp}") >= n:
        ctx.add(f"fortune.{opp}", -n, "stolen")
        ctx.add(f"fortune.{seat}", n, "steal")


def gain_charges(ctx: Ctx, seat: str, n: int) -> None:
    """Gain Charges up to the empty slots (extra Charges are lost)."""
    room = dv.charge_slots(ctx, seat) - ctx.count(f"charges.{seat}")
    ctx.add(f"charges.{seat}", max(0, min(n, room)), "charge")


@op("gain_charge")
def _gain_charge(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    gain_charges(ctx, seat, _n(arg))


@op("lose_charge")
def _lose_charge(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    opp = other(seat)
    ctx.add(f"charges.{opp}", -min(_n(arg), ctx.count(f"charges.{opp}")), "drain")


@op("steal_charge")
def _steal_charge(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    n, opp = _n(arg), other(seat)
    if ctx.count(f"charges.{opp}") >= n:
        ctx.add(f"charges.{opp}", -n, "stolen")
        gain_charges(ctx, seat, n)


@op("gain_xp")
def _gain_xp(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.add(f"xp.{seat}", _n(arg), "gain")


@op("steal_xp")
def _steal_xp(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    n, opp = _n(arg), other(seat)
    if ctx.count(f"xp.{opp}") >= n:
        ctx.add(f"xp.{opp}", -n, "stolen")
        ctx.add(f"xp.{seat}", n, "steal")


# --- dice -----------------------------------------------------------------------
@op("add_dice")
def _add_dice(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    if not dv.in_challenge(ctx):
        return
    gather = ctx.peek(f"ch.gather.{seat}")
    if gather is not None:
        ctx.setv(f"ch.gather.{seat}", [*gather, *arg])
    else:
        ctx.push(("roll_dice", {"seat": seat, "dice": list(arg)}))


@op("add_swords")
def _add_swords(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    if dv.in_challenge(ctx):
        ctx.setv(f"ch.swords.{seat}", int(ctx.peek(f"ch.swords.{seat}", 0)) + _n(arg))
        if from_ability(ctx, src):
            record(ctx, "swords", _n(arg))


def _whose(seat: str, arg: Any) -> str:
    w = arg.get("whose", "self") if isinstance(arg, dict) else "self"
    return seat if w == "self" else other(seat)


@op("reroll")
def _reroll(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(
        ("pick_die", {"seat": seat, "whose": _whose(seat, arg), "left": _n(arg), "do": "reroll"})
    )


@op("cancel_die")
def _cancel_die(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(
        ("pick_die", {"seat": seat, "whose": _whose(seat, arg), "left": _n(arg), "do": "cancel"})
    )


@op("cancel_symbol")
def _cancel_symbol(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    """Cancel the next n Charge/Wound symbols a seat rolls this challenge (before they count).

    Rolled symbols are gained at once and cannot be saved (Dice Symbols), so a cancel
    stands ready, like a block, and meets the symbols as they are gained; a Charge/Wound
    face counts as the symbol chosen for it (codex, Crystalline Orb).
    """
    if not dv.in_challenge(ctx):
        return
    spec = arg if isinstance(arg, dict) else {"n": arg}
    whose = seat if spec.get("whose", "opponent") == "self" else other(seat)
    symbol = spec.get("symbol", "any")
    wards = ctx.peek(f"ch.symbol_ward.{whose}", [])
    ctx.setv(f"ch.symbol_ward.{whose}", [*wards, {"symbol": symbol, "n": _n(arg)}])


@task("pick_die")
def _pick_die(ctx: Ctx, a: Args) -> None:
    dice = dv.dice_of(ctx, a["whose"])
    live = [i for i, d in enumerate(dice) if not d[2]]
    if a["left"] <= 0 or not live:
        return
    opts = [(a["do"], {"die": i}) for i in live] + [("done", {})]
    ctx.ask(
        a["seat"],
        "pick_die",
        "pick_die",
        f"choose a die of {a['whose']} to {a['do']}",
        opts,
        who=a["seat"],
        whose=a["whose"],
        left=a["left"],
        do=a["do"],
    )


@answer("pick_die")
def _picked_die(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "done":
        return
    again = (
        "pick_die",
        {"seat": data["who"], "whose": data["whose"], "left": data["left"] - 1, "do": data["do"]},
    )
    if kind == "cancel":
        dice = dv.dice_of(ctx, data["whose"])
        dice[args["die"]] = [*dice[args["die"]][:2], True, dice[args["die"]][3]]
        ctx.setv(f"ch.dice.{data['whose']}", dice)
        ctx.note("die_cancelled", seat=data["whose"], die=args["die"])
        ctx.push(again)
    else:
        ctx.push(("reroll_die", {"seat": data["whose"], "die": args["die"]}), again)


# --- wounds, healing, blocking -----------------------------------------------------
@op("deal_wound")
def _deal_wound(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    n = _n(arg)
    target = arg.get("target", "opponent") if isinstance(arg, dict) else "opponent"
    if target == "opponent":
        target = "creature_active" if seat == HERO else "hero"
    if target == "hero":
        ctx.push(("wound", {"side": HERO, "n": n}))
    elif target == "creature_active":
        ctx.push(("wound", {"side": DL, "n": n, "slot": ctx.peek("ch.slot")}))
    elif target == "creature":
        ctx.push(("pick_creature", {"seat": seat, "then": "wound", "n": n}))
    elif target == "exhausted":
        slot = ctx.peek("ch.exhausted_slot")
        if slot is not None:
            ctx.push(("wound", {"side": DL, "n": n, "slot": slot}))
    elif target == "adjacent":
        slot = ctx.peek("ch.slot")
        for s in dv.adjacent(slot) if slot is not None else []:
            ctx.push(("wound", {"side": DL, "n": n, "slot": s}))
    else:
        raise ValueError(f"unknown wound target {target}")


@op("heal")
def _heal(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    n = _n(arg)
    if seat == HERO:
        ctx.add("wounds.hero", -min(n, ctx.count("wounds.hero")), "heal")
    else:
        ctx.push(("pick_creature", {"seat": DL, "then": "heal", "n": n}))


@op("block")
def _block(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    """Block n Wounds: while Wounds are being dealt to the seat, those Wounds only
    (data 2+, "A number of Wound tokens are canceled equal to the amount of the block");
    otherwise ("this challenge") a shield standing until the challenge ends (register #5).
    A Creature's own block protects that Creature only (data 4+: "Block is an ability to
    protect a Hero or Creature"), so it stands on its slot (`shield.slot.N`)."""
    n = _n(arg)
    if since(FIXED_IN) and ctx.peek("dealing") == seat:
        ctx.add(f"parry.{seat}", n, "block")
        return
    own = from_ability(ctx, src)
    ctx.add(shield_of(ctx) if own else f"shield.{seat}", n, "block")
    if own:
        record(ctx, "block", n)


# --- track, cards, rewards ------------------------------------------------------------
@op("shift")
def _shift(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    toward = arg.get("toward", "self") if isinstance(arg, dict) else "self"
    if toward == "self":
        toward = "light" if seat == HERO else "dark"
    ctx.push(("shift", {"toward": toward, "n": _n(arg)}))


@op("draw")
def _draw(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("draw", {"seat": seat, "n": _n(arg)}), ("hand_limit", {"seat": seat}))


@op("steal_card")
def _steal_card(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("steal_card", {"seat": seat}), ("hand_limit", {"seat": seat}))


@op("discard_random")
def _discard_random(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("discard_random", {"seat": other(seat)}))


@op("gain_treasure")
def _gain_treasure(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    if seat == HERO:
        ctx.push(("gain_treasure", {}))


@op("gain_omen")
def _gain_omen(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    if seat == DL:
        ctx.push(("gain_omen", {}))


@op("draw_reward")
def _draw_reward(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("extra_tokens", {"seat": seat, "n": _n(arg)}))


@op("deny_reward")
def _deny_reward(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.setv(f"ch.no_token.{other(seat)}", True)


# --- cards in play ----------------------------------------------------------------------
@op("refresh_equipment")
def _refresh_equipment(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    for cid in ctx.zone("hero.equipment"):
        ctx.exhaust(cid, False)


@op("refresh_creature")
def _refresh_creature(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("pick_creature", {"seat": seat, "then": "refresh", "n": 1}))


@op("exhaust_creature")
def _exhaust_creature(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("pick_creature", {"seat": seat, "then": "exhaust", "n": 1}))


@op("cancel_ability")
def _cancel_ability(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    if ctx.peek("ch.ability"):
        ctx.setv("ch.ability", False)
        ctx.note("ability_cancelled", slot=ctx.peek("ch.slot"))
        end_ability(ctx, "cancelled")


@op("destroy_equipment")
def _destroy_equipment(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(("pick_destroy", {}))


@op("bind")
def _bind(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    to = arg.get("to", "hero") if isinstance(arg, dict) else str(arg)
    if to == "hero":
        if src in ctx.zone("limbo"):
            ctx.move(src, "limbo", "bound.hero")
    else:
        ctx.push(("pick_slot", {"seat": seat, "card": src}))


@op("mod")
def _mod(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    if not dv.in_challenge(ctx):
        return
    who = arg.get("seat", "self")
    whom = seat if who == "self" else other(seat) if who == "opponent" else who
    mods = ctx.peek("ch.mods", [])
    mod = dict(arg, seat=whom, src=src) if from_ability(ctx, src) else dict(arg, seat=whom)
    ctx.setv("ch.mods", [*mods, mod])


@op("roll_die")
def _roll_die(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    ctx.push(
        (
            "random_die",
            {
                "seat": seat,
                "colour": arg.get("colour", "blue"),
                "hit": arg.get("hit", []),
                "miss": arg.get("miss", []),
                "src": src,
            },
        )
    )


@task("random_die")
def _random_die(ctx: Ctx, a: Args) -> None:
    ctx.roll([dv.kind_name(a["colour"])], "random effect", "random_die_rolled", **a)


@task("random_die_rolled")
def _random_die_rolled(ctx: Ctx, a: Args) -> None:
    face = a["faces"][0]
    hit = dv.face_swords(face) > 0
    ctx.note("random_die", seat=a["seat"], colour=a["colour"], face=face, nonce=a["nonce"], hit=hit)
    run_effects(ctx, a["seat"], a["hit"] if hit else a["miss"], a["src"])


@op("skill_token")
def _skill_token(ctx: Ctx, seat: str, arg: Any, src: str) -> None:
    group = card(src).get("group") if src else None
    if group:
        ctx.add(f"skill_tokens.{group}", _n(arg), "skill token")
