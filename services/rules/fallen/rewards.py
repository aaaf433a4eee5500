"""Rewards: Treasure/Omen cards at stake, Reward tokens drawn from the cup and claimed."""

from __future__ import annotations

from typing import Any, Final

from services.rules.fallen import decks
from services.rules.fallen.cards import card
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, answer, options, task
from services.rules.fallen.state import DL, HERO, State, other

TOKEN_EFFECTS: Final = {
    "card": {"draw": 1},
    "charge": {"gain_charge": 1},
    "fortune": {"gain_fortune": 1},
    "shift": {"shift": 1},
    "wound": {"deal_wound": 1},
}


def token_effects(seat: str, token: str) -> list[dict[str, Any]]:
    """Return the effects a Reward token gives to the seat claiming it."""
    out: list[dict[str, Any]] = []
    for sym in card(token)["gives"]:
        if sym == "treasure_omen":
            out.append({"gain_treasure": 1} if seat == HERO else {"gain_omen": 1})
        else:
            out.append(TOKEN_EFFECTS[sym])
    return out


# --- Treasure / Omen cards at stake ---------------------------------------------------
@task("claim_cards")
def _claim_cards(ctx: Ctx, a: Args) -> None:
    reward = ctx.peek("ch.reward")
    if decks.dealt(ctx):
        _claim_dealt(ctx, reward)
        return
    stake = ctx.zone("reward.face_down")
    if not reward or not stake:
        return
    owner = HERO if reward == "treasure" else DL
    if ctx.peek("ch.winner") == owner:
        look = "reward.hero_looks" if owner == HERO else "reward.dl_looks"
        for cid in stake:
            ctx.move(cid, "reward.face_down", look)
        ctx.ask(
            owner,
            "take_card",
            "take_card",
            f"claim one of the {reward} cards",
            who=owner,
            zone=look,
            reward=reward,
        )
    else:
        ctx.shuffle(len(stake), f"random {reward} claim", "random_claim", reward=reward)


def _claim_dealt(ctx: Ctx, reward: str | None) -> None:
    """The stake is in the deck service: its owner, on winning, sees both cards and keeps
    one; otherwise the owner gets the top one unseen-by-others (random, as the stake was
    shuffled) and the other goes under the deck unseen."""
    n = decks.size(ctx, "reward.face_down")
    if not reward or not n:
        return
    owner = HERO if reward == "treasure" else DL
    if ctx.peek("ch.winner") == owner:
        look = "reward.hero_looks" if owner == HERO else "reward.dl_looks"
        then = ("stake_seen", {"who": owner, "zone": look, "reward": reward})
        ctx.push(decks.draw("reward.face_down", look, n, then))
        return
    ctx.note("random_claim", reward=reward)
    follow: tuple[str, Args]
    if reward == "treasure":
        dest, follow = "hero.new_treasure", ("equip_decision", {})
    else:
        dest, follow = f"{DL}.hand", ("hand_limit", {"seat": DL})
    ctx.push(
        decks.draw("reward.face_down", dest, 1),
        decks.move("reward.face_down", f"{reward}.deck", n - 1, "bottom"),
        follow,
    )


@task("stake_seen")
def _stake_seen(ctx: Ctx, a: Args) -> None:
    owner, reward = a["who"], a["reward"]
    ctx.ask(
        owner,
        "take_card",
        "take_card",
        f"claim one of the {reward} cards",
        who=owner,
        zone=a["zone"],
        reward=reward,
    )


@options("take_card")
def _take_options(state: State, data: Args) -> list[tuple[str, Args]]:
    return [("take_card", {"card": c}) for c in state.zone(data["zone"])]


def _claim(ctx: Ctx, reward: str, zone: str, chosen: str) -> None:
    deck = f"{reward}.deck"
    for cid in ctx.zone(zone):
        if cid != chosen:
            ctx.move(cid, zone, deck, bottom=True)
    if reward == "treasure":
        ctx.move(chosen, zone, "hero.new_treasure")
        ctx.push(("equip_decision", {}))
    else:
        ctx.move(chosen, zone, f"{DL}.hand")
        ctx.push(("hand_limit", {"seat": DL}))


@answer("take_card")
def _took(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    _claim(ctx, data["reward"], data["zone"], args["card"])


@task("random_claim")
def _random_claim(ctx: Ctx, a: Args) -> None:
    stake = ctx.zone("reward.face_down")
    ctx.note("random_claim", reward=a["reward"], pick=a["order"][0], nonce=a["nonce"])
    _claim(ctx, a["reward"], "reward.face_down", stake[a["order"][0]])


# --- Reward tokens -------------------------------------------------------------------------
@task("tokens")
def _tokens(ctx: Ctx, a: Args) -> None:
    """Draw the winner's two tokens or the loser's one token from the cup."""
    winner = ctx.peek("ch.winner")
    role = a["role"]
    seat = winner if role == "winner" else other(winner)
    if role == "loser" and ctx.peek(f"ch.no_token.{seat}"):
        ctx.note("reward_denied", seat=seat)
        return
    _draw_tokens(ctx, seat, role, 2 if role == "winner" else 1)


def _draw_tokens(ctx: Ctx, seat: str, role: str, k: int) -> None:
    cup = ctx.zone("reward.cup")
    if cup:
        ctx.shuffle(len(cup), "draw reward tokens", "tokens_drawn", who=seat, role=role, k=k)
    elif role != "extra":
        ctx.push(("token_pick", {"seat": seat, "role": role}))


@task("tokens_drawn")
def _tokens_drawn(ctx: Ctx, a: Args) -> None:
    cup = ctx.zone("reward.cup")
    picks = [cup[i] for i in a["order"][: a["k"]]]
    seat, role = a["who"], a["role"]
    if role == "extra":
        for t in picks:
            ctx.move(t, "reward.cup", "reward.discard")
            ctx.note("token_claimed", seat=seat, token=t)
            run_effects(ctx, seat, token_effects(seat, t), t)
        return
    for t in picks:
        ctx.move(t, "reward.cup", "reward.tokens")
    ctx.push(("token_pick", {"seat": seat, "role": role}))


@task("token_pick")
def _token_pick(ctx: Ctx, a: Args) -> None:
    tokens = ctx.zone("reward.tokens")
    if tokens:
        ctx.ask(
            a["seat"],
            "take_token",
            "take_token",
            "claim one Reward token",
            [("take_token", {"token": t}) for t in tokens],
            who=a["seat"],
            role=a["role"],
        )


@answer("take_token")
def _took_token(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat, t = data["who"], args["token"]
    ctx.move(t, "reward.tokens", "reward.discard")
    ctx.note("token_claimed", seat=seat, token=t)
    if data["role"] == "loser":
        for rest in ctx.zone("reward.tokens"):
            ctx.move(rest, "reward.tokens", "reward.discard")
    run_effects(ctx, seat, token_effects(seat, t), t)


@task("rewards_claimed")
def _rewards_claimed(ctx: Ctx, a: Args) -> None:
    """Once both seats have claimed their Reward tokens: triggers, then a priority window.

    It comes before killed Creatures are replaced ("After rewards are claimed at the end
    of a challenge, any face-down Creatures ... are replaced"); the Dungeon Lord first.
    """
    ctx.note("rewards_claimed")
    ctx.push(
        ("fire", {"event": "rewards_claimed"}),
        ("window_open", {"name": "rewards_claimed", "who": DL}),
    )


@task("extra_tokens")
def _extra_tokens(ctx: Ctx, a: Args) -> None:
    if int(a["n"]) > 1:
        ctx.push(("extra_tokens", {"seat": a["seat"], "n": int(a["n"]) - 1}))
    _draw_tokens(ctx, a["seat"], "extra", 1)


@task("tokens_back")
def _tokens_back(ctx: Ctx, a: Args) -> None:
    for zone in ("reward.discard", "reward.tokens"):
        for t in ctx.zone(zone):
            ctx.move(t, zone, "reward.cup")
