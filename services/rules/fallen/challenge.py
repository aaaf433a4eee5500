"""A challenge, step by step: the Dungeon Lord's roll, the hero's roll, the winner, rewards.

The whole sequence is queued as tasks when a challenge starts (rulebook "Challenges"
and "Challenge Summary"); each step reads the challenge vars ("ch.*") it needs.
"""

from __future__ import annotations

from typing import Final

from services.rules.fallen import decks
from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import REREAD_IN
from services.rules.fallen.cards import card, since
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, answer, task
from services.rules.fallen.state import DL, HERO, other
from services.rules.fallen.windows import ultimate_ready, use_ultimate

# the standing blocks, emptied when a challenge starts and ends: each seat's, and each
# Creature's own (data 4+, on its slot)
SHIELDS: Final = (f"shield.{HERO}", f"shield.{DL}", *(f"shield.slot.{s}" for s in dv.SLOTS))


@task("challenge")
def _challenge(ctx: Ctx, a: Args) -> None:
    """Start a challenge: set its attribute, difficulty and stakes, and queue its steps."""
    ctx.emit("vars_cleared", {"prefix": "ch."})
    for shield in SHIELDS:
        ctx.set_to(shield, 0, "new challenge")
    final = a["kind"] == "final"
    ctx.setv("between_stages", None)
    ctx.setv("ch.kind", a["kind"])
    ctx.setv("ch.attribute", a["attribute"])
    ctx.setv("ch.difficulty", a.get("difficulty"))
    ctx.setv("ch.reward", a.get("reward"))
    ctx.setv("ch.last", bool(a.get("last")))
    ctx.note(
        "challenge_started",
        kind=a["kind"],
        attribute=a["attribute"],
        difficulty=a.get("difficulty"),
        reward=a.get("reward"),
        wound=a.get("wound", 0),
    )
    reward = a.get("reward")
    steps: list[tuple[str, Args]] = []
    if reward and decks.dealt(ctx):  # the deck service moves the two cards, unseen
        steps.append(decks.move(f"{reward}.deck", "reward.face_down", 2))
    elif reward:
        deck = f"{reward}.deck"
        for cid in ctx.zone(deck)[:2]:
            ctx.move(cid, deck, "reward.face_down")
    steps += [("fb_effects", {})] if final else []
    if a.get("wound"):
        steps.append(("wound", {"side": HERO, "n": int(a["wound"])}))
    steps += [
        ("fire", {"event": "challenge_start"}),
        ("refresh_check", {}),
        ("window_open", {"name": "before_activation", "who": DL}),
        ("ask_activate", {}),
        ("initial_roll", {"seat": DL}),
        ("window_open", {"name": "dl_roll", "who": DL}),
        ("initial_roll", {"seat": HERO}),
        ("window_open", {"name": "hero_roll", "who": HERO}),
        ("judge", {}),
        ("result_abilities", {}),
        ("window_open", {"name": "after_result", "who": DL}),
    ]
    # the stake is claimed after both seats' Reward tokens (Challenge Summary 5-7; data 4+)
    stake_last = since(REREAD_IN)
    steps += [] if stake_last else [("claim_cards", {})]
    steps += [("winner_xp", {}), ("tokens", {"role": "winner"})]
    if final:
        steps += [
            ("fb_claim", {}),
            ("tokens", {"role": "loser"}),
            *([("claim_cards", {})] if stake_last else []),
            ("rewards_claimed", {}),
            ("replace_dead", {}),
            ("challenge_end", {}),
            ("purchases", {}),
            ("upgrades", {}),
        ]
    else:
        steps += [
            ("tokens", {"role": "loser"}),
            *([("claim_cards", {})] if stake_last else []),
            ("rewards_claimed", {}),
            ("replace_dead", {}),
            ("challenge_end", {}),
        ]
        if not a.get("last"):
            steps += [("upgrades", {}), ("purchases", {})]
    ctx.push(*steps)


def base_dice(ctx: Ctx, seat: str) -> list[str]:
    """Return the dice a seat always rolls in this challenge (rulebook steps 2 and 5)."""
    s = ctx.state
    attr = s.peek("ch.attribute")
    if seat == DL:
        dice = ["black", "black"]
        cid = s.peek("ch.creature")
        if cid:
            dice += list(card(cid).get("dice", ()))
            dice += dv.slot_dice(s, s.peek("ch.slot"))
        if s.peek("ch.difficulty") == "hard":
            dice.append("blue")
        return dice + dv.mod_dice(s, DL, "dl_dice", attr)
    dice = ["white", "white", *dv.character(s, HERO)["attributes"].get(attr, ())]
    if s.peek("ch.difficulty") == "easy":
        dice.append("blue")
    return dice + dv.mod_dice(s, HERO, "attribute_dice", attr)


@task("initial_roll")
def _initial_roll(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    top = min(dv.fortune_limit(ctx, seat), ctx.count(f"fortune.{seat}"))
    ults = [False, True] if ultimate_ready(ctx, seat) else [False]
    opts = [("challenge_roll", {"fortune": n, "ultimate": u}) for n in range(top + 1) for u in ults]
    ctx.ask(
        seat,
        "challenge_roll",
        "initial_roll",
        "make your challenge roll: Fortune dice to add (all at once) and whether to add "
        "your Ultimate",
        opts,
        who=seat,
    )


@answer("initial_roll")
def _initial_rolled(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    n = int(args["fortune"])
    dice = base_dice(ctx, seat)
    if n:
        ctx.add(f"fortune.{seat}", -n, "fortune dice")
        ctx.setv(f"ch.fortune_spent.{seat}", True)
        dice += ["blue"] * n
    ctx.setv(f"ch.gather.{seat}", dice)
    ctx.push(("roll_gathered", {"seat": seat}))
    if args["ultimate"]:
        use_ultimate(ctx, seat)


@task("judge")
def _judge(ctx: Ctx, a: Args) -> None:
    hero, dl = dv.swords(ctx, HERO), dv.swords(ctx, DL)
    winner = HERO if hero > dl else DL
    ctx.setv("ch.winner", winner)
    ctx.note("challenge_result", hero_swords=hero, dl_swords=dl, winner=winner)


@task("result_abilities")
def _result_abilities(ctx: Ctx, a: Args) -> None:
    winner = ctx.peek("ch.winner")
    ctx.push(
        ("fire", {"event": "win", "seat": winner}),
        ("fire", {"event": "lose", "seat": other(winner)}),
    )
    ability = dv.active_ability(ctx)
    if ability and ability.get("when") == ("win" if winner == DL else "lose"):
        run_effects(ctx, DL, list(ability.get("effects", ())), ctx.peek("ch.creature"))


@task("winner_xp")
def _winner_xp(ctx: Ctx, a: Args) -> None:
    ctx.add(f"xp.{ctx.peek('ch.winner')}", 1, "won challenge")


@task("challenge_end")
def _challenge_end(ctx: Ctx, a: Args) -> None:
    for t in ctx.zone("reward.tokens"):
        ctx.move(t, "reward.tokens", "reward.discard")
    for shield in SHIELDS:
        ctx.set_to(shield, 0, "challenge over")
    ctx.note("challenge_ended")
    ctx.emit("vars_cleared", {"prefix": "ch."})
