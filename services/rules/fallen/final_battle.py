"""The Final Battle: Final Battle cards are challenges; the first to claim three wins.

The game ends with the Begins card turned to its "Conclusion" side: the winner's
flavour text is recorded (a public note, the game_over event and the "conclusion" var).
"""

from __future__ import annotations

from typing import Final

from services.rules.fallen import decks
from services.rules.fallen.cards import card
from services.rules.fallen.effects import run_effects
from services.rules.fallen.flow import Args, Ctx, task
from services.rules.fallen.state import DL, HERO

WINS_NEEDED: Final = 3


@task("final_battle")
def _final_battle(ctx: Ctx, a: Args) -> None:
    ctx.emit("phase_changed", {"phase": "final_battle"})
    ctx.push(("stage_prep", {}), ("fb_begins", {}), ("fb_round", {}))


@task("fb_begins")
def _fb_begins(ctx: Ctx, a: Args) -> None:
    if decks.dealt(ctx):
        ctx.push(decks.draw("fb.deck", "fb.begins", 1, ("fb_begins_drawn", {})))
        return
    cid = ctx.zone("fb.deck")[0]
    ctx.move(cid, "fb.deck", "fb.begins")
    _begins(ctx, cid)


@task("fb_begins_drawn")
def _fb_begins_drawn(ctx: Ctx, a: Args) -> None:
    for cid in a["cards"]:
        _begins(ctx, cid)


def _begins(ctx: Ctx, cid: str) -> None:
    c = card(cid)
    ctx.note("final_battle_begins", name=c["name"], text=c["text"])


@task("fb_round")
def _fb_round(ctx: Ctx, a: Args) -> None:
    """Draw the next Final Battle card and run its challenge."""
    if not decks.size(ctx, "fb.deck"):
        hero, dl = (len(ctx.zone(f"fb.won.{s}")) for s in (HERO, DL))
        conclude(ctx, HERO if hero > dl else DL, "deck exhausted")
        return
    if decks.dealt(ctx):
        ctx.push(decks.draw("fb.deck", "fb.current", 1, ("fb_card_drawn", {})))
        return
    cid = ctx.zone("fb.deck")[0]
    ctx.move(cid, "fb.deck", "fb.current")
    _fb_card(ctx, cid)


@task("fb_card_drawn")
def _fb_card_drawn(ctx: Ctx, a: Args) -> None:
    for cid in a["cards"]:
        _fb_card(ctx, cid)


def _fb_card(ctx: Ctx, cid: str) -> None:
    c = card(cid)
    ctx.note(
        "final_battle_card",
        card=cid,
        name=c["name"],
        text=c["text"],
        attribute=c["attribute"],
        difficulty=c.get("difficulty"),
    )
    ctx.push(
        (
            "challenge",
            {
                "kind": "final",
                "attribute": c["attribute"],
                "difficulty": c.get("difficulty"),
                "wound": c.get("wound", 0),
            },
        ),
        ("fb_round", {}),
    )


@task("fb_effects")
def _fb_effects(ctx: Ctx, a: Args) -> None:
    """Apply the current Final Battle card's effects (for this challenge only)."""
    for cid in ctx.zone("fb.current"):
        c = card(cid)
        for seat in (DL, HERO):
            run_effects(ctx, seat, list(c.get(seat, ())), cid)


@task("fb_claim")
def _fb_claim(ctx: Ctx, a: Args) -> None:
    winner = ctx.peek("ch.winner")
    for cid in ctx.zone("fb.current"):
        ctx.move(cid, "fb.current", f"fb.won.{winner}")
    won = len(ctx.zone(f"fb.won.{winner}"))
    ctx.note("final_battle_card_claimed", seat=winner, total=won)
    if won >= WINS_NEEDED:
        conclude(ctx, winner, "three Final Battle cards")


def conclude(ctx: Ctx, winner: str, reason: str) -> None:
    """End the game: turn the Begins card to its Conclusion and read the winner's text."""
    begins = ctx.zone("fb.begins")
    text = ""
    if begins:
        c = card(begins[0])
        text = str(c.get("conclusion", {}).get(winner, ""))
        ctx.setv("conclusion", {"card": begins[0], "winner": winner, "text": text})
        ctx.note(
            "final_battle_conclusion", card=begins[0], name=c["name"], winner=winner, text=text
        )
    ctx.emit("game_over", {"winner": winner, "reason": reason, "conclusion": text})
