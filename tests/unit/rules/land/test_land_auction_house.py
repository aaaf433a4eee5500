"""The Auction House sub-phase of the 2-6 player game (docs/games/land.md 5.4, register 11).

"In the Auction House sub-phase, in turn order, each player may buy one card from another
player's Auction House at its listed value, paid to the owner, who cannot refuse."
"""

from __future__ import annotations

from services.rules.engine.flow import Ctx
from services.rules.land.data import card, catalog
from services.rules.land.flow import REGISTRY
from services.rules.land.turn import _auction_done
from tests.unit.rules.land.support import drive, place_card, run_tasks, setup


def _game_with_wares() -> tuple[Ctx, str, str]:
    """Return a 3-seat game at its first turn: p2's Auction House holds a cheap and a dear card."""
    state = drive(setup(3), lambda s: s.count("turn") == 1 and s.var("step") is not None)
    ctx = REGISTRY.ctx(state)
    ctx.tasks = []
    for seat in ("p1", "p2", "p3"):
        for c in list(ctx.state.zone(f"auction.{seat}")):
            ctx.move(c, f"auction.{seat}", "discard.spoils")
    held = {c for cs in ctx.state.zones.values() for c in cs}
    free = [c for c in catalog().decks["spoils"] if c not in held and card(c)["value"] > 0]
    cheap = min(free, key=lambda c: card(c)["value"])
    dear = max(free, key=lambda c: card(c)["value"])
    for c in (cheap, dear):
        place_card(ctx, c, "auction.p2")
    # p1 can pay for the cheap card only
    ctx.add("salvage.p1", int(card(cheap)["value"]) - ctx.state.count("salvage.p1"), "test")
    return ctx, cheap, dear


def test_a_player_may_buy_one_affordable_card_of_another_players_auction_house() -> None:
    # given p2's Auction House with a card p1 can pay for and one it cannot
    ctx, cheap, dear = _game_with_wares()
    # when the Auction House sub-phase comes to p1
    run_tasks(ctx, ("auction", {"seat": "p1"}))
    # then p1 may pass or buy the affordable card from p2, nothing else
    assert ctx.pending is not None and ctx.pending["seat"] == "p1"
    offers = [(k, a) for k, a in ctx.pending["data"]["options"]]
    assert offers == [("pass", {}), ("buy", {"card": cheap, "from": "p2"})]
    assert dear not in str(offers)


def test_the_price_is_paid_to_the_owner_who_cannot_refuse() -> None:
    # given p1 buying the cheap card from p2's Auction House
    ctx, cheap, _ = _game_with_wares()
    run_tasks(ctx, ("auction", {"seat": "p1"}))
    assert ctx.pending is not None
    price = int(card(cheap)["value"])
    before = {s: ctx.state.count(f"salvage.{s}") for s in ("p1", "p2")}
    # when p1 buys it (the owner is not asked)
    _auction_done(ctx, ctx.pending["data"], "buy", {"card": cheap, "from": "p2"})
    # then p1 pays its listed value to p2 and the card moves to p1's Auction House
    assert ctx.state.count("salvage.p1") == before["p1"] - price == 0
    assert ctx.state.count("salvage.p2") == before["p2"] + price
    assert cheap in ctx.state.zone("auction.p1") and cheap not in ctx.state.zone("auction.p2")


def test_nothing_to_buy_asks_nothing() -> None:
    # given no card in any other Auction House that p3 can pay for
    ctx, _, _ = _game_with_wares()
    ctx.add("salvage.p3", -ctx.state.count("salvage.p3"), "test")
    # when the sub-phase comes to p3, then it is not asked at all
    run_tasks(ctx, ("auction", {"seat": "p3"}))
    assert ctx.pending is None
