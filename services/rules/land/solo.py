"""Solo Variant I: decks without Red Dot cards, the Bank's Auction House and the solo victory."""

from __future__ import annotations

from services.rules.land.data import card, economy
from services.rules.land.economy import adjust
from services.rules.land.flow import Args, Ctx, answer, sync_town, task
from services.rules.land.oftec import solo2
from services.rules.land.setup import is_solo2
from services.rules.land.setup_flow import apply_simple
from services.rules.land.state import game_options, town

BANK_AUCTION = "auction.bank"  # the three face-up Spoils of the solo Auction House


def solo_price(card_id: str) -> int:
    """Return what the player pays the Bank: an Event costs 5, any other card its value."""
    data = card(card_id)
    if "event" in data["types"]:
        return int(economy()["solo"]["event_price"])
    return int(data["value"])


def auction_buys(options: dict[str, object]) -> int:
    """Return how many of the three Spoils the player may buy: 2 (Solo I), all 3 (Solo II)."""
    if is_solo2(options):
        return int(solo2()["auction_buys"])  # "You may purchase any or all of them"
    return int(economy()["solo"]["auction_buys"])


def buy_options(cards: list[str], salvage: int) -> list[tuple[str, Args]]:
    """Return pass and the affordable buys among the face-up Spoils."""
    opts: list[tuple[str, Args]] = [("pass", {})]
    opts += [("buy", {"card": c, "from": "bank"}) for c in cards if solo_price(c) <= salvage]
    return opts


@task("solo_auction")
def _solo_auction(ctx: Ctx, a: Args) -> None:
    n = int(economy()["solo"]["auction_draw"])
    ctx.push(
        ("draw", {"seat": "", "deck": "spoils", "n": n, "zone": BANK_AUCTION}),
        ("solo_auction_ask", {"seat": a["seat"], "bought": 0}),
    )


@task("solo_auction_ask")
def _solo_ask(ctx: Ctx, a: Args) -> None:
    seat, bought = a["seat"], int(a["bought"])
    cards = ctx.state.zone(BANK_AUCTION)
    opts = buy_options(list(cards), ctx.state.count(f"salvage.{seat}"))
    if bought >= auction_buys(game_options(ctx.state)) or len(opts) == 1:
        _close(ctx)
        return
    prompt = "buy a Spoils card from the Bank's Auction House"
    ctx.ask(seat, "auction_house", "solo_bought", prompt, opts, who=seat, bought=bought)


def _close(ctx: Ctx) -> None:
    for c in ctx.state.zone(BANK_AUCTION):
        ctx.move(c, BANK_AUCTION, "discard.spoils")


@answer("solo_bought")
def _solo_bought(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    if kind == "pass":
        _close(ctx)
        return
    c = args["card"]
    price = solo_price(c)
    sync_town(ctx, seat, adjust(town(ctx.state, seat), salvage=-price), "auction house")
    ctx.note("auction_bought", buyer=seat, seller="bank", card=c, price=price)
    ctx.push(("solo_auction_ask", {"seat": seat, "bought": int(data["bought"]) + 1}))
    if "event" in card(c)["types"]:
        ctx.move(c, BANK_AUCTION, "discard.spoils")
        apply_simple(ctx, seat, card(c)["effects"], "event")
    else:
        ctx.move(c, BANK_AUCTION, f"auction.{seat}")
