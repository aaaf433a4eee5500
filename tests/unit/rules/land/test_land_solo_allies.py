"""Allies in the solo Auction House: hired once for their hiring cost (card data 2).

The Solo Variant Overview: "Allies: If drawn during the Auction House Sub-Phase, you may pay
the hiring cost to equip them." Before card data 2 the engine sold the Ally at its value and
charged the hiring cost again to equip it; games created then keep that (register 26).
"""

from __future__ import annotations

from typing import Any

import pytest

from services.rules.engine.api import Setup
from services.rules.engine.flow import Ctx
from services.rules.land import finance
from services.rules.land.data import card, catalog
from services.rules.land.flow import REGISTRY
from services.rules.land.solo import BANK_AUCTION
from tests.unit.rules.land.support import drive, place_card, run_tasks

ALLY = next(c for c in catalog().decks["spoils"] if c.startswith("ally_gunner"))
SHOTGUN = next(c for c in catalog().decks["spoils"] if c.startswith("shotgun"))


def _bank_auction(options: dict[str, Any], seed: str = "al") -> Ctx:
    """Return a solo game at its Auction House with an Ally and a Shotgun drawn face up."""
    until = lambda s: s.var("step") == ["town_business", "auction_house"]  # noqa: E731
    ctx = REGISTRY.ctx(drive(Setup({"p1": "u1"}, options), until, seed))
    ctx.tasks, ctx.pending = [], None
    for c in list(ctx.state.zone(BANK_AUCTION)):
        ctx.move(c, BANK_AUCTION, "discard.spoils")
    for c in (ALLY, SHOTGUN):
        place_card(ctx, c, BANK_AUCTION)
    ctx.set_to("salvage.p1", 20, "test")
    run_tasks(ctx, ("solo_auction_ask", {"seat": "p1", "bought": 0}))
    assert ctx.pending is not None and ctx.pending["kind"] == "auction_house"
    return ctx


def _offers(ctx: Ctx) -> list[tuple[str, dict[str, Any]]]:
    assert ctx.pending is not None
    return [(k, a) for k, a in ctx.pending["data"]["options"]]


def _buy(ctx: Ctx, args: dict[str, Any]) -> None:
    assert ctx.pending is not None
    data = ctx.pending["data"]
    ctx.pending = None
    REGISTRY.answers["solo_bought"](ctx, data, "buy", args)


@pytest.mark.parametrize("variant", [{"variant": "solo1"}, {"variant": "solo2", "challenge": 2}])
def test_an_ally_drawn_in_the_auction_house_is_hired_once_for_its_hiring_cost(
    variant: dict[str, Any],
) -> None:
    # "Allies: If drawn during the Auction House Sub-Phase, you may pay the hiring cost to
    # equip them."
    # given a new solo game (card data 2) whose Auction House shows an Ally
    ctx = _bank_auction({**variant, "card_data": 2})
    crowned = [k for k in range(1, 6) if ctx.state.zone(f"crown.p1.{k}")]
    # then it is offered for its hiring cost onto each crowned Character
    hires = [a for k, a in _offers(ctx) if k == "buy" and a["card"] == ALLY]
    assert hires == [{"card": ALLY, "from": "bank", "crown": k} for k in crowned]
    # when the player hires it onto the first crowned Character
    _buy(ctx, hires[0])
    # then the hiring cost is paid once, and the Ally is equipped at once
    assert ctx.state.count("salvage.p1") == 20 - int(card(ALLY)["hire"])
    assert ALLY in ctx.state.zone(f"gear.p1.{crowned[0]}")
    assert ALLY not in ctx.state.zone("auction.p1")
    # and any other Spoils card is still bought at its listed value
    queued, ctx.tasks = ctx.tasks, []
    run_tasks(ctx, *queued)
    assert ("buy", {"card": SHOTGUN, "from": "bank"}) in _offers(ctx)
    _buy(ctx, {"card": SHOTGUN, "from": "bank"})
    assert ctx.state.count("salvage.p1") == 20 - int(card(ALLY)["hire"]) - int(
        card(SHOTGUN)["value"]
    )


def test_a_game_created_before_card_data_2_keeps_value_then_hire() -> None:
    # given a Solo I game created before card data 2 (options without `card_data`)
    ctx = _bank_auction({"variant": "solo1"})
    # then the Ally is bought at its value into the Auction House, as it was recorded
    assert ("buy", {"card": ALLY, "from": "bank"}) in _offers(ctx)
    _buy(ctx, {"card": ALLY, "from": "bank"})
    assert ctx.state.count("salvage.p1") == 20 - int(card(ALLY)["value"])
    assert ALLY in ctx.state.zone("auction.p1")
    # and equipping it in the Purchase sub-phase costs its hiring cost (register 26)
    opts = finance._finance_options(ctx, "p1", "purchase")
    assert any(k == "equip" and a["card"] == ALLY for k, a in opts)
