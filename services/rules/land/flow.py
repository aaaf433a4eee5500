"""Fallen Land's registry on the kernel, and helpers every rule module uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.rules.engine.api import PUBLIC
from services.rules.engine.flow import Args, Ctx, Registry
from services.rules.engine.state import State
from services.rules.land.data import RULES_3, economy
from services.rules.land.economy import Bank, Town
from services.rules.land.state import ZONES, bank, players, rules_from, town


def _facts_only(state: State) -> bool:
    """Games of record format 2 (every new game) record only facts: the flow and vars ride
    on them, counter changes on their facts, an answer alone is `answered`."""
    options = state.vars.get("options") or {}
    return int(options.get("record_format", 1)) >= 2


ACTION_CARD = "action card"  # the reason of an Action card's track changes (card data 3 on)
REGISTRY = Registry("land", ZONES, compact=_facts_only, facts=_facts_only)
task, answer, options = REGISTRY.task, REGISTRY.answer, REGISTRY.options

__all__ = ["REGISTRY", "Args", "Ctx", "answer", "options", "task"]


def receive(ctx: Ctx, zone: str, cards: Sequence[str], deck: str, seat: str = "") -> None:
    """Put drawn cards into a zone (seen by who may see it) and note the count publicly."""
    if not cards:
        return
    seen = ZONES.seen_by(zone)
    vis = PUBLIC if ZONES.public(zone) else (seen or ("nobody",))
    new = (*ctx.state.zone(zone), *cards)
    ctx.emit(
        "zone_set", {"zone": zone, "cards": list(new)}, vis if vis != ("nobody",) else "nobody"
    )
    ctx.add(f"deck.{deck}", -len(cards), "drawn")
    if vis != PUBLIC:
        ctx.note("cards_dealt", seat=seat, deck=deck, count=len(cards))


def sync_town(ctx: Ctx, seat: str, new: Town, reason: str) -> None:
    """Emit the counter changes that turn a seat's town into `new`."""
    old = town(ctx.state, seat)
    ctx.add(f"salvage.{seat}", new.salvage - old.salvage, reason)
    if ctx.state.var(f"ronin.{seat}") == "wandering":
        # Ronin: "They cannot gain and lose Town Health or Prestige until they successfully
        # complete a City/Rad Encounter card." An Event's bonus waits for the new mat.
        gains = {
            "prestige": new.prestige - old.prestige,
            "town_health": new.town_health - old.town_health,
        }
        card_bonus = reason == ACTION_CARD
        if card_bonus:
            # "All bonus Prestige and Town Health are then applied from Spoils, Action and
            # Characters they possess": an Action card's bonus waits too (not a loss)
            gains = {k: max(0, v) for k, v in gains.items()}
        if reason == "event" or (card_bonus and any(gains.values())):
            held = dict(ctx.state.var(f"ronin_bonus.{seat}", {}) or {})
            for k, v in gains.items():
                held[k] = held.get(k, 0) + v
            ctx.setv(f"ronin_bonus.{seat}", held)
        new = replace(new, prestige=old.prestige, town_health=old.town_health)
    ctx.add(f"prestige.{seat}", new.prestige - old.prestige, reason)
    gain = new.town_health - old.town_health
    if gain > 0 and ctx.state.var(f"homeless.{seat}"):
        gain = 0  # God's Hammer: "may not gain Town Health again until they relocate"
    ctx.add(f"th.{seat}", gain, reason)
    ctx.add(f"defense.{seat}", new.defense - old.defense, reason)
    for t in set(old.techs) | set(new.techs):
        ctx.add(f"tech.{seat}.{t}", new.techs.get(t, 0) - old.techs.get(t, 0), reason)
    gained = sorted(t for t in new.techs if new.techs[t] > old.techs.get(t, 0))
    if gained and dict(ctx.state.var("options", {})).get("variant") == "solo2":
        # Solo II's OFTEC row 10 takes "the last Town Technology you equipped"
        kept = [t for t in ctx.state.var(f"equipped.{seat}", []) if t not in gained]
        ctx.setv(f"equipped.{seat}", [*kept, *gained])
    for r in set(old.resource_defense) | set(new.resource_defense):
        ctx.add(
            f"rdef.{r}", new.resource_defense.get(r, 0) - old.resource_defense.get(r, 0), reason
        )
    lost_chips = sum(n for r, n in old.resource_defense.items() if r not in new.resources)
    if lost_chips and ctx.state.var("epic"):  # chips on a lost resource return to the Bank
        ctx.add("bank.defense", lost_chips, reason)
    if set(old.resources) != set(new.resources):
        owners = dict(ctx.state.var("resources", {}))
        for r in old.resources:
            if r not in new.resources and owners.get(r) == seat:
                owners.pop(r)
        for r in new.resources:
            owners[r] = seat
        ctx.setv("resources", owners)


def sync_bank(ctx: Ctx, new: Bank) -> None:
    """Emit the counter changes of the Bank's limited stock (Epic only)."""
    old = bank(ctx.state)
    if old.techs is not None and new.techs is not None:
        for t, n in new.techs.items():
            ctx.add(f"bank.tech.{t}", n - old.techs[t], "bank")
    if old.defense is not None and new.defense is not None:
        ctx.add("bank.defense", new.defense - old.defense, "bank")


def wiped_draw(ctx: Ctx, seat: str) -> None:
    """A party left with no Character and an empty Town Roster draws 2 Characters into its
    roster, crowned in the next Purchase sub-phase (card data 3 on; docs 6.4)."""
    if seat not in players(ctx.state) or not rules_from(ctx.state, RULES_3):
        return  # a Solo II PVP Party has no roster; older games keep their rules
    if not ctx.state.zone(f"roster.{seat}"):
        n = int(economy()["wiped_party_draw"])
        ctx.push(("draw", {"seat": seat, "deck": "characters", "n": n, "zone": f"roster.{seat}"}))
