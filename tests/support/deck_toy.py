"""A tiny game on the kernel whose face-down deck lives in the deck service (tests only).

Seats a and b take turns: draw one card (the deck service deals it; only the drawer
sees it) or pass. When the deck runs out, the discard is formed into the deck again;
after six draws the game ends and the seat holding more cards wins (a wins ties).
"""

from __future__ import annotations

from typing import Any

from services.rules.engine.api import ChanceRequest, Event, Setup
from services.rules.engine.engine import KernelRules
from services.rules.engine.flow import Args, Ctx, Registry
from services.rules.engine.state import State
from services.rules.engine.zones import ZoneRules

SEATS = ("a", "b")
DECK = "draw.deck"
CARDS = ("card.1", "card.2", "card.3", "card.4")
DRAWS = 6


def _seen_by(zone: str) -> tuple[str, ...]:
    if zone.startswith("hand."):
        return (zone.split(".", 1)[1],)
    return () if zone.endswith(".deck") else SEATS


REGISTRY = Registry("decktoy", ZoneRules(SEATS, _seen_by))
task, answer = REGISTRY.task, REGISTRY.answer


@task("form")
def _form(ctx: Ctx, a: Args) -> None:
    cards = list(a["cards"])
    ctx.deal(ChanceRequest("deck_form", f"form {DECK}", deck=DECK, cards=tuple(cards)), "formed")


@task("formed")
def _formed(ctx: Ctx, a: Args) -> None:
    ctx.set_to(f"count.{DECK}", int(a["size"]), "formed")
    ctx.emit("DeckFormed", {"deck": DECK, "count": a["size"]})


@task("turn")
def _turn(ctx: Ctx, a: Args) -> None:
    if ctx.state.count("draws") >= DRAWS:
        hands = {s: len(ctx.state.zone(f"hand.{s}")) for s in SEATS}
        ctx.emit("game_over", {"winner": "a" if hands["a"] >= hands["b"] else "b"})
        return
    seat = SEATS[ctx.state.count("turns") % 2]
    ctx.ask(seat, "act", "acted", "draw or pass", [("draw", {}), ("pass", {})], who=seat)


@answer("acted")
def _acted(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    ctx.add("turns", 1)
    seat = data["who"]
    if kind == "pass":
        ctx.push(("turn", {}))
        return
    if ctx.state.count(f"count.{DECK}") == 0:  # an empty deck: the discard becomes the deck
        ctx.push(("form", {"cards": list(ctx.state.zone("discard"))}), ("draw", {"seat": seat}))
        for cid in ctx.state.zone("discard"):
            ctx.emit("CardReturned", {"card": cid, "zone": "discard"})
        ctx.emit("zone_set", {"zone": "discard", "cards": []})
        return
    ctx.push(("draw", {"seat": seat}))


@task("draw")
def _draw(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    req = ChanceRequest("deck_draw", f"{seat} draws", deck=DECK, count=1, visible_to=(seat,))
    ctx.deal(req, "drawn", seat=seat)


@task("drawn")
def _drawn(ctx: Ctx, a: Args) -> None:
    seat, cards = a["seat"], list(a["cards"])
    ctx.add(f"count.{DECK}", -len(cards), "drawn")
    ctx.add("draws", 1)
    ctx.emit("CardDrawn", {"seat": seat, "deck": DECK, "cards": cards}, (seat,))
    ctx.emit("CardsDrawnCount", {"seat": seat, "deck": DECK, "count": len(cards)})
    hand = ctx.state.zone(f"hand.{seat}")
    ctx.emit("zone_set", {"zone": f"hand.{seat}", "cards": [*hand, *cards]}, (seat,))
    if len(ctx.state.zone(f"hand.{seat}")) > 1:  # keep one card: the oldest is discarded
        old = ctx.state.zone(f"hand.{seat}")[0]
        ctx.move(old, f"hand.{seat}", "discard")
    ctx.push(("turn", {}))


class DeckToyRules(KernelRules):
    """The deck toy game."""

    game = "decktoy"
    seats = SEATS
    registry = REGISTRY
    schemas = {"draw": {}, "pass": {}}

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        """Return the opening events: the deck is formed by the deck service first."""
        ctx = REGISTRY.ctx(State())
        ctx.emit("game_created", {"game_id": game_id})
        ctx.push(("form", {"cards": list(CARDS)}), ("turn", {}))
        ctx.run()
        return ctx.finish()

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """Return counts for everybody and the seat's own hand."""
        return {
            "deck": state.count(f"count.{DECK}"),
            "hand": list(state.zone(f"hand.{seat}")) if seat else [],
        }

    def outcome(self, state: State) -> dict[str, Any] | None:
        """Return the winner once over."""
        return {"winner": state.winner} if state.phase == "over" else None


RULES = DeckToyRules()
