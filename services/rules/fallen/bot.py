"""Fallen bot policies beyond random: a greedy heuristic for either side.

The heuristic acts rather than passes: it fires Ultimates and Power cards when it may,
spends all the Fortune it is allowed on dice, buys skills and upgrades creatures at
every chance, rerolls only dice showing no sword, cancels the opponent's best die, and
resolves charge-or-wound as a Charge for the hero and a Wound for the Dungeon Lord.
"""

from __future__ import annotations

from typing import Any, Final

from services.bots.policies import Choice, Policy, Turn, stable_index

PRIORITY: Final = {
    "ultimate": 90,
    "play": 80,
    "use": 75,
    "cancel": 70,
    "buy": 65,
    "upgrade": 60,
    "equip": 55,
    "activate": 50,
    "challenge_roll": 40,
    "take_card": 30,
    "take_token": 30,
    "fortune": 20,
    "resolve_symbol": 20,
    "choose": 20,
    "target": 20,
    "reroll": 10,
    "discard": 5,
    "lose_equipment": 5,
    "decline": 1,
    "pass": 0,
    "done": 0,
}


SWORDS: Final = {"two_swords": 2, "sword": 1, "sword_symbol": 1}
OTHER: Final = {"hero": "dungeon_lord", "dungeon_lord": "hero"}


def _die_swords(view: dict[str, Any], seat: str, index: int) -> int | None:
    """Return the swords showing on a seat's die in the current challenge, if known."""
    dice = view.get("vars", {}).get(f"ch.dice.{seat}") or []
    if 0 <= index < len(dice) and isinstance(dice[index], list) and len(dice[index]) > 1:
        return SWORDS.get(str(dice[index][1]), 0)
    return None


def score(choice: Choice, turn: Turn | None = None) -> float:
    """Return how much the heuristic likes a legal command (higher is better)."""
    args: dict[str, Any] = choice.args
    base = float(PRIORITY.get(choice.kind, 15))
    if turn is not None and choice.kind in ("reroll", "cancel") and "die" in args:
        owner = turn.seat if choice.kind == "reroll" else OTHER.get(turn.seat, turn.seat)
        swords = _die_swords(turn.view, owner, int(args["die"]))
        if swords is not None:
            # reroll only dice showing no sword; cancel the opponent's best die
            return 12.0 - 20 * swords if choice.kind == "reroll" else 70.0 + swords
    if choice.kind == "challenge_roll":
        base += 2 * int(args.get("fortune", 0)) + (5 if args.get("ultimate") else 0)
    elif choice.kind == "fortune":
        base += int(args.get("n", 0))
    elif choice.kind == "resolve_symbol":
        # measured: the hero does best banking Charges, the Dungeon Lord wounding
        wanted = "charge" if turn is not None and turn.seat == "hero" else "wound"
        base += 2 if args.get("as") == wanted else 0
    return base


def heuristic(turn: Turn) -> int:
    """Return the best-scored legal command; ties broken by the bot seed."""
    scores = [score(c, turn) for c in turn.legal]
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s == best]
    if len(top) == 1:
        return top[0]
    sub = Turn(
        turn.game,
        turn.game_id,
        turn.seat,
        turn.version,
        turn.view,
        [turn.legal[i] for i in top],
        turn.seed,
    )
    return top[stable_index(sub, "tie")]


POLICIES: Final[dict[str, Policy]] = {"heuristic": heuristic}
