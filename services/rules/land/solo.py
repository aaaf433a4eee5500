"""Solo Variant I: decks without Red Dot cards, the Bank's Auction House and the solo victory."""

from __future__ import annotations

from services.rules.land.data import card, card_data_of, economy
from services.rules.land.economy import adjust
from services.rules.land.flow import Args, Ctx, answer, sync_town, task
from services.rules.land.oftec import solo2
from services.rules.land.party import CROWNS
from services.rules.land.setup import is_solo2
from services.rules.land.setup_flow import apply_simple
from services.rules.land.state import game_options, town

BANK_AUCTION = "auction.bank"  # the three face-up Spoils of the solo Auction House


ALLY_HIRE_SINCE = 2  # card data 2: an Ally drawn here is hired for its hiring cost, once


def hires_allies(options: dict[str, object]) -> bool:
    """Return whether the Bank's Auction House hires Allies for their hiring cost (data 2+)."""
    return card_data_of(options) >= ALLY_HIRE_SINCE


def solo_price(card_id: str, version: int = 1) -> int:
    """Return what the player pays the Bank: an Event costs 5, an Ally its hiring cost (card
    data 2 on), any other card its value."""
    data = card(card_id)
    if "event" in data["types"]:
        return int(economy()["solo"]["event_price"])
    if "ally" in data["types"] and version >= ALLY_HIRE_SINCE:
        # "Allies: If drawn during the Auction House Sub-Phase, you may pay the hiring cost
        # to equip them."
        return int(data["hire"])
    return int(data["value"])


def auction_buys(options: dict[str, object]) -> int:
    """Return how many of the three Spoils the player may buy: 2 (Solo I), all 3 (Solo II)."""
    if is_solo2(options):
        return int(solo2()["auction_buys"])  # "You may purchase any or all of them"
    return int(economy()["solo"]["auction_buys"])


def buy_options(
    cards: list[str], salvage: int, crowns: list[int] | None = None, version: int = 1
) -> list[tuple[str, Args]]:
    """Return pass and the affordable buys among the face-up Spoils; from card data 2 an
    Ally is hired straight onto a crowned Character (`crowns`: the crowns with one)."""
    opts: list[tuple[str, Args]] = [("pass", {})]
    for c in cards:
        if solo_price(c, version) > salvage:
            continue
        if "ally" in card(c)["types"] and version >= ALLY_HIRE_SINCE:
            opts += [("buy", {"card": c, "from": "bank", "crown": k}) for k in crowns or []]
        else:
            opts.append(("buy", {"card": c, "from": "bank"}))
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
    crowns = [k for k in CROWNS if ctx.state.zone(f"crown.{seat}.{k}")]
    version = card_data_of(game_options(ctx.state))
    opts = buy_options(list(cards), ctx.state.count(f"salvage.{seat}"), crowns, version)
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
    price = solo_price(c, card_data_of(game_options(ctx.state)))
    sync_town(ctx, seat, adjust(town(ctx.state, seat), salvage=-price), "auction house")
    ctx.note("auction_bought", buyer=seat, seller="bank", card=c, price=price)
    ctx.push(("solo_auction_ask", {"seat": seat, "bought": int(data["bought"]) + 1}))
    if "event" in card(c)["types"]:
        ctx.move(c, BANK_AUCTION, "discard.spoils")
        apply_simple(ctx, seat, card(c)["effects"], "event")
    elif "crown" in args:  # an Ally hired for its hiring cost is equipped at once
        ctx.move(c, BANK_AUCTION, f"gear.{seat}.{int(args['crown'])}")
        ctx.note("ally_hired", seat=seat, card=c, crown=int(args["crown"]), paid=price)
    else:
        ctx.move(c, BANK_AUCTION, f"auction.{seat}")
