"""Fallen's face-down decks, dealt by the deck service (docs/games/fallen.md, "Decks").

A game created since the deck service deals (var `decks` = "service") holds no face-down
order: each face-down deck's cards are in the deck service (stream deck-<game id>) and the
engine keeps only its count (counter `deck.<zone>`). Cards put *under* a deck from a zone a
seat could see stay in the engine zone of that deck, below the deck service's cards: the
seats that saw them know they are at the bottom, in the order put. A draw takes the deck
service's cards first, then those (a card put under is never reshuffled into the unseen
part). A card put under unseen (the unclaimed Reward card at stake) goes to the bottom of
the deck service's part.

Games recorded before this (no `decks` var) keep every deck's order in the engine, as
they were played; the rule modules keep that path for them so old logs replay exactly.
"""

from __future__ import annotations

from typing import Any, Final

from services.rules.engine.api import PUBLIC, ChanceRequest
from services.rules.engine.state import Reads, deck_key
from services.rules.fallen.flow import Args, Ctx, task
from services.rules.fallen.state import SEATS, zone_public, zone_seen_by

MODE_VAR: Final = "decks"
SERVICE: Final = "service"


def dealt(state: Reads) -> bool:
    """Return True when the deck service deals this game's face-down decks."""
    return bool(state.peek(MODE_VAR) == SERVICE)


def size(state: Reads, deck: str) -> int:
    """Return how many cards a face-down deck holds (in the deck service plus put under)."""
    return state.count(deck_key(deck)) + len(state.zone(deck))


def receivers(zone: str) -> tuple[str, ...]:
    """Return the seats that see cards dealt into a zone (every seat for a public zone)."""
    return SEATS if zone_public(zone) else zone_seen_by(zone)


def form(deck: str, cards: list[str], src: str = "", shuffled: bool = True) -> tuple[str, Args]:
    """Return the task putting cards (from an engine zone, or the box when src is "") face
    down into a deck, shuffled unless asked not to."""
    return ("deck.form", {"deck": deck, "cards": list(cards), "from": src, "shuffled": shuffled})


def put_top(deck: str, cards: list[str], src: str) -> tuple[str, Args]:
    """Return the task putting cards face down on top of a deck, in order."""
    return ("deck.form", {"deck": deck, "cards": list(cards), "from": src, "top": True})


def draw(deck: str, to: str, n: int, then: tuple[str, Args] | None = None) -> tuple[str, Args]:
    """Return the task dealing the top n cards of a deck into a zone; `then` (a task) runs
    next with `cards` added to its args."""
    return ("deck.draw", {"deck": deck, "to": to, "n": n, "then": list(then) if then else None})


def move(deck: str, to: str, n: int, position: str = "top") -> tuple[str, Args]:
    """Return the task moving the top n cards of a deck face down onto another deck, unseen."""
    return ("deck.move", {"deck": deck, "to": to, "n": n, "position": position})


@task("deck.form")
def _form(ctx: Ctx, a: Args) -> None:
    top = bool(a.get("top"))
    req = ChanceRequest(
        "deck_put" if top else "deck_form",
        f"{'top of' if top else 'form'} {a['deck']}",
        deck=a["deck"],
        cards=tuple(a["cards"]),
        shuffled=bool(a.get("shuffled", True)),
        position="top",
    )
    ctx.deal(req, "deck.formed", src=a["from"], put=list(a["cards"]))


@task("deck.formed")
def _formed(ctx: Ctx, a: Args) -> None:
    data: dict[str, Any] = {"deck": a["deck"], "count": int(a["size"])}
    if a["src"]:
        data.update({"from": a["src"], "cards": a["put"]})
    ctx.emit("deck_changed", data)


@task("deck.draw")
def _draw(ctx: Ctx, a: Args) -> None:
    deck, to, n = a["deck"], a["to"], int(a["n"])
    held = ctx.count(deck_key(deck))
    if held:
        req = ChanceRequest(
            "deck_draw", f"draw {deck}", deck=deck, count=min(n, held), visible_to=receivers(to)
        )
        ctx.deal(req, "deck.dealt", into=to, then=a.get("then"), more=max(0, n - held))
        return
    cards = list(ctx.zone(deck)[:n])  # the cards put under it, in the order put
    for cid in cards:
        ctx.move(cid, deck, to)
    _then(ctx, a.get("then"), cards)


def _then(ctx: Ctx, then: list[Any] | None, cards: list[str]) -> None:
    if then:
        name, args = then
        ctx.push((name, dict(args, cards=cards)))


@task("deck.dealt")
def _dealt(ctx: Ctx, a: Args) -> None:
    deck, to, cards = a["deck"], a["into"], list(a["cards"])
    vis = PUBLIC if zone_public(to) else (zone_seen_by(to) or "nobody")
    ctx.emit("deck_dealt", {"deck": deck, "to": to, "cards": cards}, vis)
    if vis != PUBLIC:
        ctx.emit("hidden_card_moved", {"from": deck, "to": to, "count": len(cards)})
    more = int(a.get("more", 0))
    _then(ctx, a.get("then"), cards)
    if more and ctx.zone(deck):  # the deck service ran out: the cards put under it
        ctx.push(("deck.draw", {"deck": deck, "to": to, "n": more, "then": None}))


@task("deck.move")
def _move(ctx: Ctx, a: Args) -> None:
    deck, to = a["deck"], a["to"]
    n = min(int(a["n"]), ctx.count(deck_key(deck)))
    if n <= 0:
        return
    req = ChanceRequest(
        "deck_move", f"move {n} from {deck}", deck=deck, to=to, count=n, position=a["position"]
    )
    ctx.deal(req, "deck.moved", n=n)


@task("deck.moved")
def _moved(ctx: Ctx, a: Args) -> None:
    to, n = a["to"], int(a["n"])
    ctx.emit("deck_changed", {"deck": a["deck"], "count": int(a["size"])})
    ctx.emit("deck_changed", {"deck": to, "count": ctx.count(deck_key(to)) + n})
