"""Solo Variant II's Red Dot Action deck as tasks: cards drawn for an opposing faction act.

"When directed to do so by the OFTEC, players draw cards for the Opposing Factions from the
Red Dot Action deck. ... Red Dot Action cards take effect, in the Phase or Sub-Phase it lists
or immediately if it states "Play at any time."" Card data 2: the player may ignore one
played on it with a special ability (abilities_flow.py, register 31).
"""

from __future__ import annotations

from services.rules.engine.state import State
from services.rules.land.abilities import ignorer
from services.rules.land.data import card, factions
from services.rules.land.economy import adjust
from services.rules.land.flow import Args, Ctx, sync_town, task
from services.rules.land.oftec import opposing_id
from services.rules.land.play import ignore_info
from services.rules.land.solo_decks import RED_DOT_DECK
from services.rules.land.state import opposing_factions, town

PLAYER = "p1"  # Solo Variant II has one seat
RED_DISCARD = f"discard.{RED_DOT_DECK}"


@task("red_dot_draw")
def _red_dot_draw(ctx: Ctx, a: Args) -> None:
    # "Draw and play 1 card from the Red Dot Action deck."
    of = opposing_id(int(a["faction"]))
    ctx.push(
        ("draw", {"seat": "", "deck": RED_DOT_DECK, "n": int(a["n"]), "zone": f"play.{of}"}),
        ("red_dot_play", {"faction": a["faction"]}),
    )


def enter(ctx: Ctx, c: str, of: str, at: list[int], first_strike: bool = False) -> None:
    """An NPCM enters play for an opposing faction, unpaid, targeting the player.

    With `first_strike` (PVP option 1, card data 3 on) it "enters play at the player's Party
    location and utilizes their First Strike": its listed damage hits a random crowned
    Character at once (armor applies), before it acts in the NPCM step (register 35)."""
    ctx.move(c, f"play.{of}", f"npcm.{of}")
    entry = {"card": c, "hirer": of, "target": PLAYER, "at": at}
    ctx.setv("npcms", [*ctx.state.var("npcms", []), entry])
    ctx.note("npcm_entered", faction=of, card=c, at=at)
    if first_strike:
        ctx.note("npcm_first_strike", faction=of, card=c, target=PLAYER)
        damage = sorted(card(c)["npcm"]["damage"].items())
        ctx.push(
            *[
                ("damage", {"seat": PLAYER, "type": t, "n": int(n), "how": "random"})
                for t, n in damage
            ]
        )


@task("red_dot_play")
def _red_dot_play(ctx: Ctx, a: Args) -> None:
    f = int(a["faction"])
    of = opposing_id(f)
    cards = list(ctx.state.zone(f"play.{of}"))
    if ignorer(ctx.state, PLAYER):
        # the player may ignore a card played on it (a special ability): one card at a time
        ctx.push(*[("red_dot_one", {"faction": f, "card": c}) for c in cards])
        return
    for c in cards:
        _play_one(ctx, f, c)


def _play_one(ctx: Ctx, f: int, c: str) -> None:
    of = opposing_id(f)
    data = card(c)
    if "npcm" in data:
        # "NPCMs originate in that Faction's Starting Town Location" / "That Faction does
        # not pay their hiring cost."
        enter(ctx, c, of, list(factions()[f]["at"]))
    elif data["timing"] in ("town_business", "any"):
        _resolve(ctx, of, c)
    else:
        ctx.note("red_dot_waiting", faction=f, card=c, timing=data["timing"])


@task("red_dot_one")
def _red_dot_one(ctx: Ctx, a: Args) -> None:
    f, c = int(a["faction"]), a["card"]
    of = opposing_id(f)
    acts = "npcm" in card(c) or card(c)["timing"] in ("town_business", "any")
    if acts and not a.get("asked") and ignorer(ctx.state, PLAYER):
        then = ("red_dot_one", {**a, "asked": True})
        ctx.push(("played_on_ask", ignore_info(of, c, PLAYER, then)))
        return
    if c in ctx.state.zone(f"play.{of}"):
        _play_one(ctx, f, c)


@task("red_dot_enter")
def _red_dotenter(ctx: Ctx, a: Args) -> None:
    """An NPCM enters play at a place unless the player ignores it (a special ability)."""
    of, c = a["of"], a["card"]
    if not a.get("asked") and ignorer(ctx.state, PLAYER):
        then = ("red_dot_enter", {**a, "asked": True})
        ctx.push(("played_on_ask", ignore_info(of, c, PLAYER, then)))
        return
    enter(ctx, c, of, list(a["at"]), bool(a.get("first_strike")))


@task("red_dot_resolve")
def _red_dot_resolve(ctx: Ctx, a: Args) -> None:
    """A waiting Red Dot card acts at its timing unless the player ignores it."""
    of, c = a["of"], a["card"]
    if not a.get("asked") and ignorer(ctx.state, PLAYER):
        then = ("red_dot_resolve", {**a, "asked": True})
        ctx.push(("played_on_ask", ignore_info(of, c, PLAYER, then)))
        return
    if c in ctx.state.zone(f"play.{of}"):
        _resolve(ctx, of, c)


def _resolve(ctx: Ctx, of: str, c: str) -> None:
    """Resolve a Red Dot Action card on the player, then discard it."""
    ctx.move(c, f"play.{of}", RED_DISCARD)
    ctx.note("action_played", seat=of, card=c, target=PLAYER, timing=card(c)["timing"])
    for e in card(c)["effects"]:
        ((op, arg),) = e.items()
        t = town(ctx.state, PLAYER)
        if op in ("salvage", "prestige", "town_health"):
            sync_town(ctx, PLAYER, adjust(t, **{op: -abs(int(arg))}), "red dot")
        elif op == "steal" and arg["what"] == "salvage":
            # the opposing faction keeps no coins: the player's go to the Bank
            sync_town(ctx, PLAYER, adjust(t, salvage=-min(int(arg["n"]), t.salvage)), "red dot")
        elif op == "steal":
            ctx.push(("lose_random_spoils", {"seat": PLAYER, "to": ""}))
        elif op == "damage":
            d = {"seat": PLAYER, "type": arg["type"], "n": arg["n"], "how": arg["target"]}
            ctx.push(("damage", d))
        elif op == "weeks":
            left = ctx.state.count(f"weeks.{PLAYER}")
            ctx.set_to(f"weeks.{PLAYER}", max(0, left - abs(int(arg))), "red dot")


def waiting(state: State, timing: str) -> list[tuple[str, str]]:
    """Return the (opposing faction, card) Red Dot cards in play waiting for a timing."""
    out = []
    for f in opposing_factions(state):
        of = opposing_id(f)
        out += [(of, c) for c in state.zone(f"play.{of}") if card(c)["timing"] == timing]
    return out


@task("red_dot_timing")
def _red_dot_timing(ctx: Ctx, a: Args) -> None:
    # "Red Dot Action cards take effect, in the Phase or Sub-Phase it lists"
    if ignorer(ctx.state, PLAYER):
        cards = waiting(ctx.state, a["timing"])
        ctx.push(*[("red_dot_resolve", {"of": of, "card": c}) for of, c in cards])
        return
    for of, c in waiting(ctx.state, a["timing"]):
        _resolve(ctx, of, c)


def check_card(state: State) -> tuple[str, str] | None:
    """Return the first Red Dot skill-check card waiting in play, if any."""
    cards = waiting(state, "skill_check")
    return cards[0] if cards else None


@task("red_dot_check")
def _red_dot_check(ctx: Ctx, a: Args) -> None:
    """The opposing faction plays its waiting skill-check card on the player's check."""
    found = check_card(ctx.state)
    chk = ctx.state.var("check")
    if found is None or chk is None:
        ctx.push(("window", {}))
        return
    of, c = found
    if not a.get("asked") and ignorer(ctx.state, PLAYER):
        then = ("red_dot_check", {"asked": True})
        ctx.push(("played_on_ask", ignore_info(of, c, PLAYER, then, ("window", {}))))
        return
    ctx.move(c, f"play.{of}", RED_DISCARD)
    ctx.note("action_played", seat=of, card=c, target=chk["seat"], timing="skill_check")
    ((op, arg),) = card(c)["effects"][0].items()
    if op == "successes":
        ctx.setv("check", dict(chk, bonus=int(chk["bonus"]) + int(arg["n"])))
        ctx.push(("window", {}))
        return
    # reroll_opponent: the player's successful dice are rolled again
    ones = [v % 10 for v in chk["values"]]
    faces = chk["faces"]
    hits = [f != 10 and (f == 1 or f <= o) for f, o in zip(faces, ones, strict=True)]
    pick = [i for i, h in enumerate(hits) if h][: int(arg)]
    if not pick:
        ctx.push(("window", {}))
        return
    ctx.roll(["d10"] * len(pick), f"reroll for {chk['seat']}", "rerolled", idx=pick)
