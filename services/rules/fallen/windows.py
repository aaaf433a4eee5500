"""Timing windows as priority rounds, and playing Power/Omen cards, abilities and Ultimates.

A window opens for one seat; a play (card, Fortune dice, Ultimate, ability) reopens it
for the other seat; it closes when both seats have passed in turn. The
"when_wounded" window is a reaction for the wounded seat only: its pass closes it.
"""

from __future__ import annotations

from typing import Any, Final

from services.rules.engine.state import Reads
from services.rules.fallen import derived as dv
from services.rules.fallen.cards import card, catalog_of, data_version
from services.rules.fallen.effects import holds, run_effects
from services.rules.fallen.flow import Args, Ctx, answer, options, task
from services.rules.fallen.state import DL, HERO, State, other

ROLL_WINDOWS: Final = {"dl_roll": DL, "hero_roll": HERO}


def timing_fits(state: State, seat: str, timing: str, window: str) -> bool:
    """Return True if a card or ability with this timing may be used in this window."""
    if timing == window:
        return True
    if timing == "any_roll":
        return window in ROLL_WINDOWS
    if window == "after_result" and timing in ("after_win", "after_lose"):
        won = state.peek("ch.winner") == seat
        return won == (timing == "after_win")
    return False


def playable(state: State, seat: str, cid: str, window: str) -> bool:
    """Return True if a seat may play a card from hand in this window now."""
    c = card(cid)
    if not timing_fits(state, seat, c["timing"], window):
        return False
    if dv.card_cost(state, seat, c) > state.count(f"fortune.{seat}"):
        return False
    need = c.get("requires")
    return need is None or holds(state, seat, need)


# an ability of a hero's card: card id, ability index, timing, Skill tokens it needs and the
# Skill group paying them (None for Equipment, which is exhausted instead)
HeroAbility = tuple[str, int, str, int, str | None]
# the inputs seen last, their abilities, and those abilities by the timings that fit a window
_HERO_ABILITIES: Final[list[Any]] = [None, (), {}]


def hero_abilities(state: State) -> tuple[HeroAbility, ...]:
    """Return the abilities on the hero's Equipment, then Skills, in play order.

    They change only with the hero's cards (zones are never edited in place: a change is
    another tuple) or the card-data version, so the list is kept for the inputs seen last.
    """
    zones = state.zones  # read directly: State.zone is a Python method call from here
    key = (data_version(), zones.get("hero.equipment", ()), zones.get("hero.skills", ()))
    if key != _HERO_ABILITIES[0]:
        _HERO_ABILITIES[:] = [key, _list_abilities(key[1], key[2]), {}]
    found: tuple[HeroAbility, ...] = _HERO_ABILITIES[1]
    return found


def abilities_fitting(state: State, fits: tuple[str, ...]) -> tuple[HeroAbility, ...]:
    """Return the hero's abilities whose timing is one of fits, in play order (kept with the
    hero's abilities for each fits asked)."""
    every = hero_abilities(state)
    by_fits: dict[tuple[str, ...], tuple[HeroAbility, ...]] = _HERO_ABILITIES[2]
    found = by_fits.get(fits)
    if found is None:
        found = by_fits[fits] = tuple(ab for ab in every if ab[2] in fits)
    return found


def _list_abilities(equipment: tuple[str, ...], skills: tuple[str, ...]) -> tuple[HeroAbility, ...]:
    out: list[HeroAbility] = []
    for cid in equipment:
        for i, ab in enumerate(card(cid).get("abilities", ())):
            out.append((cid, i, ab["timing"], 0, None))
    for cid in skills:
        c = card(cid)
        for i, ab in enumerate(c.get("abilities", ())):
            out.append((cid, i, ab["timing"], int(ab.get("tokens", 0)), c["group"]))
    return tuple(out)


def fitting_timings(state: State, seat: str, window: str) -> tuple[str, ...]:
    """Return every timing that fits a window now: `timing_fits` for all timings at once."""
    if window in ROLL_WINDOWS:
        return (window, "any_roll")
    if window == "after_result":
        return (window, "after_win" if state.peek("ch.winner") == seat else "after_lose")
    return (window,)


def _abilities(state: State, fits: tuple[str, ...]) -> list[tuple[str, Args]]:
    """Return the hero's usable abilities whose timing is one of fits."""
    out: list[tuple[str, Args]] = []
    fitting = abilities_fitting(state, fits)
    if not fitting:
        return out
    used = state.peek("ch.used", ())
    for cid, i, _timing, tokens, group in fitting:
        if group is None:  # Equipment: usable while refreshed
            if cid not in state.exhausted:
                out.append(("use", {"card": cid, "ability": i}))
        elif f"{cid}#{i}" not in used and state.count(f"skill_tokens.{group}") >= tokens:
            out.append(("use", {"card": cid, "ability": i}))
    return out


@options("window")
def window_options(state: State, data: Args) -> list[tuple[str, Args]]:
    """Return a seat's legal answers in a priority window."""
    seat, name = data["who"], data["name"]
    opts: list[tuple[str, Args]] = [("pass", {})]
    fits = fitting_timings(state, seat, name)  # timing_fits of each card and ability
    hand = state.zones.get(f"{seat}.hand")
    if hand:  # playable() of each card whose timing fits, its lookups done once
        cards = catalog_of(data_version()).cards
        fitting = []
        for cid in hand:
            if cards[cid]["timing"] in fits:
                fitting.append(cid)
        if fitting:
            fortune = state.counters.get(f"fortune.{seat}", 0)
            for cid in sorted(set(fitting)):
                c = cards[cid]
                if dv.card_cost(state, seat, c) > fortune:
                    continue
                need = c.get("requires")
                if need is None or holds(state, seat, need):
                    opts.append(("play", {"card": cid}))
    if ROLL_WINDOWS.get(name) == seat:
        if not state.peek(f"ch.fortune_spent.{seat}"):
            top = min(dv.fortune_limit(state, seat), state.count(f"fortune.{seat}"))
            opts += [("fortune", {"n": n}) for n in range(1, top + 1)]
        if ultimate_ready(state, seat):
            opts.append(("ultimate", {}))
    if seat == HERO:
        opts += _abilities(state, fits)
    return opts


def ultimate_ready(state: Reads, seat: str) -> bool:
    """Return True if a seat's Ultimate is fully charged and unused this challenge."""
    if state.peek(f"ch.ult_used.{seat}"):
        return False
    return state.count(f"charges.{seat}") >= dv.charge_slots(state, seat)


@task("window_open")
def open_window(ctx: Ctx, a: Args) -> None:
    """Open (or reopen) a priority window for a seat."""
    who = a["who"]
    ctx.ask(
        who,
        "window",
        "window",
        f"{a['name']}: play a card or ability, or pass",
        name=a["name"],
        passes=a.get("passes", 0),
        who=who,
    )


def use_ultimate(ctx: Ctx, seat: str) -> None:
    """Spend all Charges and queue the Ultimate's effects."""
    ctx.set_to(f"charges.{seat}", 0, "ultimate")
    ctx.setv(f"ch.ult_used.{seat}", True)
    ult = dv.character(ctx, seat)["ultimate"]
    ctx.note("ultimate_used", seat=seat, name=ult["name"])
    run_effects(ctx, seat, list(ult["effects"]), dv.character(ctx, seat)["id"])


def play_card(ctx: Ctx, seat: str, cid: str) -> None:
    """Pay for a card from hand, put it in limbo, and queue its effects and its discard."""
    cost = dv.power_cost(ctx, seat, cid)
    ctx.add(f"fortune.{seat}", -cost, "pay")
    ctx.move(cid, f"{seat}.hand", "limbo")
    ctx.note("card_played", seat=seat, card=cid, cost=cost)
    ctx.push(("settle", {"card": cid, "seat": seat}))
    run_effects(ctx, seat, list(card(cid).get("effects", ())), cid)


@task("settle")
def _settle(ctx: Ctx, a: Args) -> None:
    cid = a["card"]
    if cid not in ctx.zone("limbo"):
        return
    if card(cid)["type"] == "omen":
        ctx.move(cid, "limbo", "omen.deck", bottom=True)
    else:
        ctx.move(cid, "limbo", f"{card(cid)['side']}.discard")


def _use(ctx: Ctx, seat: str, cid: str, i: int) -> None:
    c = card(cid)
    ab = c["abilities"][i]
    if c["type"] == "skill":
        ctx.setv("ch.used", [*ctx.peek("ch.used", ()), f"{cid}#{i}"])
        ctx.add(f"skill_tokens.{c['group']}", -int(ab.get("tokens", 0)), "spent")
    else:
        ctx.exhaust(cid)
    ctx.note("ability_used", seat=seat, card=cid, ability=i)
    run_effects(ctx, seat, list(ab["effects"]), cid)


@answer("window")
def _window_answer(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat, name = data["who"], data["name"]
    if kind == "pass":
        if data["passes"] < 1:  # the task window_open, run now: it would be the next to run
            open_window(ctx, {"name": name, "who": other(seat), "passes": 1})
        return
    if name == "when_wounded":
        ctx.push(("react", {"seat": seat, "wound": data["wound"]}))
    else:
        ctx.push(("window_open", {"name": name, "who": other(seat)}))
    if kind == "play":
        play_card(ctx, seat, args["card"])
    elif kind == "fortune":
        n = int(args["n"])
        ctx.add(f"fortune.{seat}", -n, "fortune dice")
        ctx.setv(f"ch.fortune_spent.{seat}", True)
        ctx.push(("roll_dice", {"seat": seat, "dice": ["blue"] * n}))
    elif kind == "ultimate":
        use_ultimate(ctx, seat)
    elif kind == "use":
        _use(ctx, seat, args["card"], int(args["ability"]))
