"""Setup as tasks: decks formed, Mission chips, factions, dealing, equipping, first player."""

from __future__ import annotations

from itertools import combinations

from services.dice.kinds import read_composite
from services.rules.engine.api import ChanceRequest
from services.rules.engine.state import State
from services.rules.land.business import mission_hex
from services.rules.land.damage import can_carry
from services.rules.land.data import card, catalog, economy, factions
from services.rules.land.economy import adjust
from services.rules.land.effects import track_deltas
from services.rules.land.flow import Args, Ctx, answer, options, receive, sync_town, task
from services.rules.land.hexmap import game_map
from services.rules.land.party import CROWNS, can_load
from services.rules.land.setup import first_player, is_solo, is_solo2, reroll_seats
from services.rules.land.solo_decks import solo_deck
from services.rules.land.state import DECK_NAMES, faction_of, perks_of, players, town

# 2d10 read as 1-100: the composite's parts rolled as one chance request (docs/games/land.md)
D100 = ("d10_tens", "d10_units")


def percentile(faces: list[str]) -> int:
    """Return the 1-100 reading of a tens die and a units die (00 + 0 = 100)."""
    return int(read_composite("2d10", list(faces)))


@task("setup")
def _setup(ctx: Ctx, a: Args) -> None:
    i = int(a.get("i", 0))
    if i < len(DECK_NAMES):
        name = DECK_NAMES[i]
        cards = solo_deck(name, ctx.state.var("options", {}))
        req = ChanceRequest("deck_form", f"form {name}", deck=f"deck.{name}", cards=cards)
        ctx.deal(req, "deck_formed", i=i)
        return
    solo2 = is_solo2(ctx.state.var("options", {}))
    ctx.push(("red_dot_form", {}) if solo2 else ("mission_roll", {}))


@task("deck_formed")
def _formed(ctx: Ctx, a: Args) -> None:
    name = DECK_NAMES[int(a["i"])]
    ctx.set_to(f"deck.{name}", int(a["size"]), "formed")
    ctx.push(("setup", {"i": int(a["i"]) + 1}))


@task("mission_roll")
def _mission_roll(ctx: Ctx, a: Args) -> None:
    if len(ctx.state.var("missions", [])) >= int(economy()["missions_on_map"]):
        ctx.push(("faction_roll", {"i": 0}))
        return
    ctx.roll(list(D100), "mission location", "mission_rolled")


@task("mission_rolled")
def _mission_rolled(ctx: Ctx, a: Args) -> None:
    roll = percentile(a["faces"])
    missions = ctx.state.var("missions", [])
    hexes = mission_hex(game_map(), roll, missions)
    ctx.note("mission_rolled", roll=roll, placed=hexes is not None)
    if hexes is not None:
        ctx.setv("missions", [*missions, roll])
    ctx.push(("mission_roll", {}))


@task("faction_roll")
def _faction_roll(ctx: Ctx, a: Args) -> None:
    seats = players(ctx.state)
    i = int(a["i"])
    if ctx.state.var("options", {}).get("ronin"):
        # Ronin: "Players don't start with a Town Play Mat" (ronin.py places the parties)
        ctx.push(("ronin_place", {"i": 0}))
        return
    if i >= len(seats):
        solo2 = is_solo2(ctx.state.var("options", {}))
        ctx.push(("opp_roll", {}) if solo2 else ("deal_start", {"i": 0}))
        return
    chosen = ctx.state.var("options", {}).get("faction")
    if chosen is not None:
        # solo: "Select a Faction or roll 1d10 and refer to the chart" (the option `faction`)
        ctx.note("faction_selected", seat=seats[i], faction=int(chosen))
        _take_faction(ctx, i, int(chosen))
        return
    ctx.roll(["d10"], f"faction of {seats[i]}", "faction_rolled", i=i)


@task("faction_rolled")
def _faction_rolled(ctx: Ctx, a: Args) -> None:
    seats = players(ctx.state)
    i, roll = int(a["i"]), int(a["faces"][0])
    seat = seats[i]
    taken = [faction_of(ctx.state, s) for s in seats[:i]]
    taken += list(ctx.state.var("options", {}).get("opposing_factions") or [])  # selected
    ctx.note("faction_rolled", seat=seat, roll=roll, rerolled=roll in taken)
    if roll in taken:
        ctx.push(("faction_roll", {"i": i}))
        return
    _take_faction(ctx, i, roll)


def _take_faction(ctx: Ctx, i: int, roll: int) -> None:
    """Seat i takes a faction: its town, its party marker there, its starting TTs."""
    seat = players(ctx.state)[i]
    f = factions()[roll]
    ctx.setv(f"faction.{seat}", roll)
    ctx.setv(f"pos.{seat}", list(f["at"]))
    ctx.setv(f"home.{seat}", list(f["at"]))
    harsh = ctx.state.var("options", {}).get("harsh_reality")
    for tech in f["techs"]:
        ctx.add(f"tech.{seat}.{tech}", 1, "starting technology")
        if harsh and ctx.state.count(f"bank.tech.{tech}") > 0:
            # "Organize the TTs before handing out each Faction's Starting TTs"
            ctx.add(f"bank.tech.{tech}", -1, "starting technology")
    ctx.push(("faction_roll", {"i": i + 1}))


def _numbers(ctx: Ctx) -> dict[str, int]:
    return dict(ctx.state.var("numbers"))


@task("deal_start")
def _deal_start(ctx: Ctx, a: Args) -> None:
    seats = players(ctx.state)
    i = int(a["i"])
    if i >= len(seats):
        ctx.push(("perk_items", {"i": 0}))
        return
    seat, n = seats[i], _numbers(ctx)
    ctx.push(
        (
            "draw",
            {"seat": seat, "deck": "characters", "n": n["characters"], "zone": f"roster.{seat}"},
        ),
        ("draw", {"seat": seat, "deck": "spoils", "n": n["spoils"], "zone": f"stash.{seat}"}),
        ("draw", {"seat": seat, "deck": "action", "n": n["action"], "zone": f"hand.{seat}"}),
        ("deal_start", {"i": i + 1}),
    )


@task("draw")
def _draw(ctx: Ctx, a: Args) -> None:
    """Draw n cards of a deck into a zone, re-forming the deck from its discard when short."""
    deck, n = a["deck"], int(a["n"])
    have = ctx.state.count(f"deck.{deck}")
    if n <= 0:
        return
    if have == 0:
        pile = ctx.state.zone(f"discard.{deck}")
        if not pile:
            ctx.note("deck_empty", deck=deck)
            return
        ctx.emit("zone_set", {"zone": f"discard.{deck}", "cards": []})
        req = ChanceRequest("deck_form", f"reshuffle {deck}", deck=f"deck.{deck}", cards=pile)
        ctx.deal(req, "reformed", name=deck, then=dict(a))
        return
    take = min(have, n)
    seat = a.get("seat", "")
    zone = a["zone"]
    vis = (seat,) if zone.split(".")[0] in ("hand", "roster", "stash") else ()
    req = ChanceRequest(
        "deck_draw", f"draw {deck}", deck=f"deck.{deck}", count=take, visible_to=vis
    )
    ctx.deal(req, "drawn", name=deck, zone=zone, who=seat, left=n - take, then=dict(a))


@task("reformed")
def _reformed(ctx: Ctx, a: Args) -> None:
    ctx.set_to(f"deck.{a['name']}", int(a["size"]), "reshuffled")
    ctx.push(("draw", a["then"]))


@task("drawn")
def _drawn(ctx: Ctx, a: Args) -> None:
    receive(ctx, a["zone"], a["cards"], a["name"], a.get("who", ""))
    if int(a["left"]) > 0:
        ctx.push(("draw", dict(a["then"], n=int(a["left"]))))


@task("perk_items")
def _perk_items(ctx: Ctx, a: Args) -> None:
    seats = players(ctx.state)
    i = int(a["i"])
    if i >= len(seats):
        ctx.push(("events_at_setup", {"i": 0}))
        return
    seat = seats[i]
    wanted = [p["card"] for p in perks_of(ctx.state, seat) if p["kind"] == "starting_spoils"]
    if not wanted:
        ctx.push(("perk_items", {"i": i + 1}))
        return
    match = tuple(c for c in catalog().decks["spoils"] if c.split("#")[0] == wanted[0])
    req = ChanceRequest(
        "deck_search",
        "starting spoils",
        deck="deck.spoils",
        match=match,
        count=1,
        visible_to=(seat,),
    )
    ctx.deal(req, "perk_found", i=i, who=seat)


@task("perk_found")
def _perk_found(ctx: Ctx, a: Args) -> None:
    receive(ctx, f"stash.{a['who']}", a["cards"], "spoils", a["who"])
    ctx.push(("perk_items", {"i": int(a["i"]) + 1}))


@task("events_at_setup")
def _events(ctx: Ctx, a: Args) -> None:
    """Resolve Event Spoils dealt at setup: their bonus now, then the discard pile."""
    ctx.push(("equip", {"i": 0}))
    for seat in players(ctx.state):
        for c in ctx.state.zone(f"stash.{seat}"):
            if "event" in card(c)["types"]:
                apply_simple(ctx, seat, card(c)["effects"], "event")
                ctx.move(c, f"stash.{seat}", "discard.spoils")


def apply_simple(ctx: Ctx, seat: str, effects: list[dict], reason: str) -> None:
    """Apply salvage/prestige/Town Health effects and card draws to a seat."""
    d = track_deltas(effects)
    sync_town(ctx, seat, adjust(town(ctx.state, seat), **d), reason)
    for e in effects:
        if "draw" in e:
            deck = e["draw"]["deck"]
            zone = {"spoils": f"auction.{seat}", "action": f"hand.{seat}"}.get(
                deck, f"roster.{seat}"
            )
            ctx.push(("draw", {"seat": seat, "deck": deck, "n": e["draw"]["n"], "zone": zone}))


@task("equip")
def _equip(ctx: Ctx, a: Args) -> None:
    seats = players(ctx.state)
    i = int(a["i"])
    if i >= len(seats):
        if is_solo(ctx.state.var("options", {})):
            ctx.push(("solo_first", {}))
        else:
            ctx.push(("first_roll", {"seats": seats}))
        return
    seat = seats[i]
    ctx.ask(seat, "choose_roster", "rostered", "which Characters wait in the Town Roster", i=i)


@options("choose_roster")
def _roster_options(state: State, data: Args) -> list[tuple[str, Args]]:
    seat = players(state)[int(data["i"])]
    roster = state.zone(f"roster.{seat}")
    keep = int(state.var("numbers")["roster"]) if len(roster) > len(CROWNS) else 0
    return [("roster", {"cards": sorted(c)}) for c in combinations(sorted(roster), keep)]


@answer("rostered")
def _rostered(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = players(ctx.state)[int(data["i"])]
    crowned = [c for c in ctx.state.zone(f"roster.{seat}") if c not in args["cards"]]
    for k, c in zip(CROWNS, sorted(crowned), strict=False):
        ctx.move(c, f"roster.{seat}", f"crown.{seat}.{k}")
    ctx.push(("assign", {"i": int(data["i"])}))


@task("assign")
def _assign(ctx: Ctx, a: Args) -> None:
    seat = players(ctx.state)[int(a["i"])]
    stash = ctx.state.zone(f"stash.{seat}")
    if not stash:
        ctx.push(("equip", {"i": int(a["i"]) + 1}))
        return
    ctx.ask(seat, "assign_spoils", "assigned", "equip a Spoils card", i=int(a["i"]))


@options("assign_spoils")
def _assign_options(state: State, data: Args) -> list[tuple[str, Args]]:
    seat = players(state)[int(data["i"])]
    c = sorted(state.zone(f"stash.{seat}"))[0]
    opts: list[tuple[str, Args]] = [("assign", {"card": c, "to": "auction"})]
    if "vehicle" in card(c)["types"]:
        if not state.zone(f"vehicle.{seat}"):
            opts.append(("assign", {"card": c, "to": "vehicle"}))
    else:
        for k in CROWNS:
            ch = state.zone(f"crown.{seat}.{k}")
            if ch and can_carry(ch[0], [*state.zone(f"gear.{seat}.{k}"), c]):
                opts.append(("assign", {"card": c, "to": f"crown{k}"}))
        vehicle = state.zone(f"vehicle.{seat}")
        if vehicle and can_load(vehicle[0], state.zone(f"load.{seat}"), c):
            opts.append(("assign", {"card": c, "to": "load"}))
    return opts


@answer("assigned")
def _assigned(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = players(ctx.state)[int(data["i"])]
    to = args["to"]
    dst = (
        f"auction.{seat}"
        if to == "auction"
        else f"vehicle.{seat}"
        if to == "vehicle"
        else f"load.{seat}"
        if to == "load"
        else f"gear.{seat}.{to.removeprefix('crown')}"
    )
    ctx.move(args["card"], f"stash.{seat}", dst)
    ctx.push(("assign", {"i": int(data["i"])}))


@task("solo_first")
def _solo_first(ctx: Ctx, a: Args) -> None:
    """Solo: 'The player functions as the First Player; always going first.'"""
    ctx.setv("first", players(ctx.state)[0])
    ctx.set_to("turn", 1, "turn marker 1/1")
    ctx.push(("turn_start", {}))


@task("first_roll")
def _first_roll(ctx: Ctx, a: Args) -> None:
    seats = list(a["seats"])
    ctx.roll(["d10"] * len(seats), "first player", "first_rolled", seats=seats)


@task("first_rolled")
def _first_rolled(ctx: Ctx, a: Args) -> None:
    rolls = {s: int(f) for s, f in zip(a["seats"], a["faces"], strict=True)}
    ctx.note("first_player_rolled", rolls=rolls)
    first = first_player(rolls)
    if first is None:
        ctx.push(("first_roll", {"seats": reroll_seats(rolls)}))
        return
    ctx.setv("first", first)
    ctx.set_to("turn", 1, "turn marker 1/1")
    ctx.push(("turn_start", {}))
