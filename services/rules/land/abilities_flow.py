"""Special abilities as tasks: using one, the steals, Keep 1, and ignoring a card played on you.

docs/games/land.md 9.1; the solo conversions quote the Solo Variant Overview (register 31).
"""

from __future__ import annotations

from services.rules.engine.state import State
from services.rules.land.abilities import BANK, USED, ability_of, ignorer, targets, usable
from services.rules.land.data import card
from services.rules.land.economy import adjust
from services.rules.land.flow import Args, Ctx, answer, options, sync_town, task
from services.rules.land.play import action_reason, apply_effects
from services.rules.land.setup import is_solo
from services.rules.land.state import game_options, players, town

RED_DISCARD = "discard.red_dot"


def _solo(ctx: Ctx) -> bool:
    return is_solo(game_options(ctx.state))


def use_ability(ctx: Ctx, seat: str, c: str, target: str = "") -> None:
    """Use a card's ability now (marked used for its turn or the game), on a target."""
    ctx.setv(USED, {**dict(ctx.state.var(USED, {}) or {}), c: ctx.state.count("turn")})
    ctx.note("ability_used", seat=seat, card=c, target=target)
    for e in (ability_of(c) or {}).get("effects", []):
        ((op, arg),) = e.items()
        if op == "steal":
            _steal(ctx, seat, str(arg["what"]), int(arg["n"]), target)
        elif op == "look_at_hands":
            _look(ctx, seat)
        elif op in ("reroll", "successes", "ignore_action"):
            continue  # a skill check's window applies these; ignoring is `played_on_ask`
        else:
            apply_effects(ctx, seat, seat, [e])


def _steal(ctx: Ctx, seat: str, what: str, n: int, target: str) -> None:
    if what == "salvage":
        if target == BANK:
            # "steal 2 Salvage Coins from another player." In this example, the Bank pays
            sync_town(ctx, seat, adjust(town(ctx.state, seat), salvage=n), "the Bank pays")
        else:
            apply_effects(ctx, seat, target, [{"steal": {"what": "salvage", "n": n}}])
        return
    kind, _, key = target.partition(".")
    if kind != "town":  # a party: a random Spoils card it carries (its Characters' or load)
        ctx.push(*[("lose_random_spoils", {"seat": target, "to": seat})] * n)
    elif key in players(ctx.state):
        ctx.push(*[("steal_from_town", {"seat": seat, "victim": key, "what": what})] * n)
    else:
        # a Neutral or Opposing Faction's town holds no cards: "Here, the player would
        # instead draw 1 card from the Character deck" (and a Spoils card for a Spoils steal)
        deck = "characters" if what == "character" else "spoils"
        apply_effects(ctx, seat, seat, [{"draw": {"deck": deck, "n": n}}])


def _town_zone(what: str, seat: str) -> str:
    return f"{'roster' if what == 'character' else 'auction'}.{seat}"


@task("steal_from_town")
def _steal_from_town(ctx: Ctx, a: Args) -> None:
    """A random card of another seat's Auction House or (face down) Town Roster is taken."""
    cards = ctx.state.zone(_town_zone(a["what"], a["victim"]))
    if cards:  # only the count goes in the chance request: a roster stays hidden
        ctx.shuffle(len(cards), f"card stolen from {a['victim']}", "stolen_from_town", **a)


@task("stolen_from_town")
def _stolen(ctx: Ctx, a: Args) -> None:
    src, dst = _town_zone(a["what"], a["victim"]), _town_zone(a["what"], a["seat"])
    c = sorted(ctx.state.zone(src))[int(a["order"][0])]
    ctx.move(c, src, dst)
    ctx.note("card_stolen", seat=a["seat"], victim=a["victim"], zone=src.split(".")[0])


def _look(ctx: Ctx, seat: str) -> None:
    if _solo(ctx):
        # "Here, the player would receive 1 Action card per Opposing Faction from the Action
        # deck, not the Red Dot Action deck."
        n = len(ctx.state.var("opposing", []) or [])
        ctx.push(("draw", {"seat": seat, "deck": "action", "n": n, "zone": f"hand.{seat}"}))
        return
    # "look at each players' hand of Action cards. Keep 1 and return the rest."
    hands = {o: list(ctx.state.zone(f"hand.{o}")) for o in players(ctx.state) if o != seat}
    ctx.emit("hands_seen", {"seat": seat, "hands": hands}, (seat,))
    ctx.ask(seat, "keep_card", "kept", "keep 1 Action card of another player's hand", who=seat)


@options("keep_card")
def _keep_options(state: State, data: Args) -> list[tuple[str, Args]]:
    seat = data["who"]
    others = [o for o in players(state) if o != seat]
    return [("keep", {"card": c}) for o in others for c in sorted(state.zone(f"hand.{o}"))]


@answer("kept")
def _kept(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat, c = data["who"], args["card"]
    src = next(f"hand.{o}" for o in players(ctx.state) if c in ctx.state.zone(f"hand.{o}"))
    ctx.move(c, src, f"hand.{seat}")
    ctx.note("card_kept", seat=seat, victim=src.split(".")[1])


# --- Resource Production: abilities that act by themselves ----------------------------


@task("production_abilities")
def _production(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    for c in usable(ctx.state, seat, ("resource_production",)):
        names = targets(ctx.state, seat, c)
        if not names:
            continue
        ctx.push(("production_abilities", {"seat": seat}))
        if len(names) == 1:
            use_ability(ctx, seat, c, names[0])
            return
        opts = [("use", {"card": c, "target": t}) for t in names]
        prompt = f"choose whom {card(c)['name']} steals from"
        ctx.ask(seat, "ability_target", "ability_target_chosen", prompt, opts, who=seat)
        return


@answer("ability_target_chosen")
def _target_chosen(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    use_ability(ctx, data["who"], args["card"], args["target"])


# --- "ignore an Action card played on you, including NPCMs" ---------------------------


@task("played_on_ask")
def _played_on_ask(ctx: Ctx, a: Args) -> None:
    target = a["target"]
    own = ignorer(ctx.state, target)
    if own is None or a["card"] not in ctx.state.zone(a["zone"]):
        ctx.push((a["then"][0], a["then"][1]))
        return
    opts: list[tuple[str, Args]] = [("pass", {}), ("use", {"card": own})]
    prompt = f"ignore {card(a['card'])['name']} played on you ({card(own)['name']})"
    ctx.ask(target, "ignore_action", "ignore_answered", prompt, opts, info=a)


@answer("ignore_answered")
def _ignore_answered(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    a = data["info"]
    if kind == "pass":
        ctx.push((a["then"][0], a["then"][1]))
        return
    if "after" in a:
        ctx.push((a["after"][0], a["after"][1]))
    target, c, zone = a["target"], a["card"], a["zone"]
    use_ability(ctx, target, args["card"], a["by"])
    ctx.note("action_ignored", seat=target, card=c, by=a["by"])
    if _solo(ctx):
        # "Here the player would receive a new Action card drawn from the Action deck, but
        # discard the Red Dot Action card."
        ctx.move(c, zone, RED_DISCARD)
        ctx.push(("draw", {"seat": target, "deck": "action", "n": 1, "zone": f"hand.{target}"}))
        return
    ctx.move(c, zone, f"hand.{target}")  # "Place that card into your hand."


@task("play_resolve")
def _play_resolve(ctx: Ctx, a: Args) -> None:
    """An Action card played on another seat, not ignored, acts and goes to the discard."""
    seat, c = a["seat"], a["card"]
    ctx.move(c, f"play.{seat}", "discard.action")
    apply_effects(ctx, seat, a["target"], card(c)["effects"], action_reason(ctx))
