"""What a seat may do now, as small argument maps, and the events each choice causes.

Commands are incremental so legal lists stay short: deploy one card, use one ability,
declare one attacker, line up one defender, give one order, discard one card, then `done`.
"""

from __future__ import annotations

from typing import Any

from services.rules.engine.api import Event
from services.rules.worlds import effects, moves
from services.rules.worlds.board import InPlay
from services.rules.worlds.cards import Ability, Card, catalog, heals
from services.rules.worlds.facts import fact
from services.rules.worlds.steps import plan_of
from services.rules.worlds.table import Table

Args = dict[str, Any]


def _targets(table: Table, seat: str, ability_or_card: Card | Ability) -> list[str] | None:
    """Chosen-target options: None when no choice is needed, [] when nothing is targetable."""
    kind = effects.target_kind(ability_or_card.effects)
    return effects.options(table.board, seat, kind) if kind else None


def playable_now(table: Table, card: Card) -> bool:
    """Whether a card from hand may be played in this phase: healing Events only in the
    Healing phase, every other card in the Deploy phase (rules version 4 on; before, any
    card whenever the seat could deploy)."""
    if not table.phased:
        return True
    healing = card.type == "event" and heals(card.effects)
    return healing == (table.turn.phase == "healing")


def ability_phase(table: Table, ability: Ability) -> str:
    """The phase an ability is limited to ("" = any): its own, or Healing for any ability
    that heals (rules version 4 on; before, only the Heal keyword's)."""
    if ability.phase or not table.phased:
        return ability.phase
    return "healing" if heals(ability.effects) else ""


def deploy_options(table: Table, seat: str) -> list[Args]:
    """Cards from hand the seat can pay for and put into play or resolve now."""
    side = table.board.side(seat)
    out: list[Args] = []
    for card_id in sorted(set(side.hand)):
        card = catalog()[card_id]
        if card.res > side.pool or (card.type == "scenario" and side.scenario_deployed):
            continue
        if not playable_now(table, card):
            continue
        if card.type == "attachment":
            out += [
                {"card": card_id, "on": uid}
                for uid in moves.attach_targets(table.board, seat, card_id)
            ]
        elif card.type == "event":
            targets = _targets(table, seat, card)
            out += (
                [{"card": card_id}]
                if targets is None
                else [{"card": card_id, "target": t} for t in targets]
            )
        else:
            out.append({"card": card_id})
    return out


def abilities_of(p: InPlay) -> list[tuple[Ability, str]]:
    """A card's abilities, its own first, then its attachments' (with the card giving each)."""
    own = [(a, p.card) for a in catalog()[p.card].abilities]
    return own + [(a, att) for att in p.attached for a in catalog()[att].abilities]


def ability_options(table: Table, seat: str) -> list[Args]:
    """Paid abilities of the seat's cards usable now (phase limit, once per turn, targets)."""
    side, phase = table.board.side(seat), table.turn.phase
    out: list[Args] = []
    for p in table.board.play:
        if p.owner != seat:
            continue
        for index, (ability, _) in enumerate(abilities_of(p)):
            if ability.cost > side.pool or p.used.count(index) >= ability.per_turn:
                continue
            limit = ability_phase(table, ability)
            if limit and (limit != phase or table.turn.active != seat):
                continue
            targets = _targets(table, seat, ability)
            base = {"uid": p.uid, "ability": index}
            out += [base] if targets is None else [dict(base, target=t) for t in targets]
    return out


def deploy_events(table: Table, seat: str, args: Args) -> tuple[list[Event], int]:
    """The events of deploying or playing one card, and the cards the seat must draw."""
    card = catalog()[args["card"]]
    if card.type == "event":
        played = [
            fact(
                "event_played",
                seat=seat,
                card=card.id,
                paid=card.res,
                targets=[args.get("target", "")],
            )
        ]
        events, draws = effects.resolve_all(
            effects.run(table, played), seat, card.effects, args.get("target", "")
        )
        return played + events, draws
    uid = args.get("on") or f"{seat}.{table.board.next_uid}"
    deployed = fact(
        "card_deployed", seat=seat, uid=uid, card=card.id, paid=card.res, on=args.get("on", "")
    )
    return [deployed], 0


def ability_events(table: Table, seat: str, args: Args) -> tuple[list[Event], int]:
    """The events of using one ability, and the cards the seat must draw."""
    p = table.board.get(args["uid"])
    ability, source_card = abilities_of(p)[args["ability"]]
    used = fact(
        "ability_used",
        seat=seat,
        uid=p.uid,
        card=source_card,
        ability=args["ability"],
        paid=ability.cost,
        targets=[args.get("target", "")],
    )
    events, draws = effects.resolve_all(
        effects.run(table, [used]), seat, ability.effects, args.get("target", ""), source=p.uid
    )
    return [used, *events], draws


def attack_options(table: Table) -> list[Args]:
    """Creatures the active seat may still declare as attackers."""
    declared = set(table.turn.attackers)
    available = moves.attackers_available(table.board, table.turn.active)
    return [{"uid": uid} for uid in available if uid not in declared]


def block_options(table: Table, seat: str) -> list[Args]:
    """(defender, attacker) pairs still open, within each defender's Guard."""
    blocks = dict(table.turn.blocks)
    out: list[Args] = []
    for d in moves.defenders_available(table.board, seat):
        lined = blocks.get(d, ())
        if len(lined) >= catalog()[table.board.get(d).card].guard:
            continue
        out += [{"defender": d, "attacker": a} for a in table.turn.attackers if a not in lined]
    return out


def order_options(table: Table) -> list[Args]:
    """Orders for unchallenged attackers still without one: raid, a Scenario, or aid an ally."""
    plan = plan_of(table)
    fought = {a for targets in plan.blocks.values() for a in targets}
    given = dict(table.turn.orders)
    foe = table.board.other(table.turn.active)
    scenarios = [p.uid for p in moves.of_type(table.board, foe, "scenario")]
    out: list[Args] = []
    for a in plan.attackers:
        if a in fought or a in given:
            continue
        out.append({"uid": a, "order": "raid"})
        out += [{"uid": a, "order": "scenario", "target": s} for s in scenarios]
        out += [{"uid": a, "order": "aid", "target": ally} for ally in sorted(fought)]
    return out


def discard_options(table: Table, seat: str) -> list[Args]:
    """Distinct cards in hand the seat may discard."""
    return [{"card": c} for c in sorted(set(table.board.side(seat).hand))]
