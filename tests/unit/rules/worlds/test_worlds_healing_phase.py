"""Healing cards work only in the Healing phase, on the path new games take.

Rulebook, "PHASE 2 - HEALING": "There are some cards that will also provide additional
healing, such as those with the Heal ability, and those cards can only be used during this
phase." Games are created as the service creates them (libraries sealed into the dealer,
rules version 4) and played with random legal commands.
"""

from __future__ import annotations

from collections import Counter
from itertools import accumulate
from typing import Any

from services.rules.engine.api import Event, Setup
from services.rules.playout import play
from services.rules.registry import load
from services.rules.worlds.cards import catalog, heals
from services.rules.worlds.choices import abilities_of, deploy_options
from services.rules.worlds.effects import run
from services.rules.worlds.facts import fact
from services.rules.worlds.state import WorldsState
from services.rules.worlds.table import PHASED, Table

RULES = load("worlds")
# every healing card of the set (Heal keyword creatures, healing Events, the healing
# artefact, the healing Scenarios) and a few creatures to carry and be healed
HEALERS = {
    "kee_patch_up": 5,
    "fel_spirit_call": 5,
    "dae_skull_of_aza": 5,
    "kee_mushroom_garden": 5,
    "fel_spirit_grove": 5,
    "uea_field_hospital": 5,
    "fel_fang_priestess": 5,
    "kee_moss_mender": 5,
    "uea_field_medic": 5,
    "rep_coil_priest": 5,
    "kee_elder_warden": 5,
    "dae_ashling": 5,
    "dae_pit_brute": 5,
}
GAMES = 6


def _healing_cards() -> set[str]:
    cat = catalog()
    return {
        c.id
        for c in cat.cards.values()
        if heals(c.effects) or heals(c.on_upkeep) or any(heals(a.effects) for a in c.abilities)
    }


def _walk(n: int) -> list[tuple[WorldsState, Event, bool]]:
    """A new game (libraries sealed into the dealer, as the service deals them) of two healer
    decks played with random legal commands: each event with the state before it, and whether
    that state is a decision point (the end of an append)."""
    decks: dict[str, Any] = {"p1": HEALERS, "p2": HEALERS}
    result = play(RULES, Setup({"p1": "a", "p2": "b"}, {"decks": decks}), f"heal-{n}", f"h{n}")
    ends = set(accumulate(result.batches))
    state, out = RULES.initial_state(), []
    for i, e in enumerate(result.events):
        assert isinstance(state, WorldsState)
        out.append((state, e, i in ends))
        state = RULES.evolve(state, e)
    assert isinstance(state, WorldsState) and state.table.phased and state.phase == "over"
    return out


def _heals(state: WorldsState, e: Event) -> bool:
    """Whether an event is a healing card played or used."""
    if e.type == "event_played":
        return heals(catalog()[e.data["card"]].effects)
    if e.type == "ability_used":
        ability, _ = abilities_of(state.table.board.get(e.data["uid"]))[e.data["ability"]]
        return heals(ability.effects)
    return False


def test_the_healers_deck_holds_all_eleven_healing_cards() -> None:
    assert _healing_cards() <= set(HEALERS) and len(_healing_cards()) == 11


def test_given_new_games_then_healing_cards_heal_only_in_their_owners_healing_phase() -> None:
    seen: Counter[str] = Counter()
    for n in range(GAMES):
        # given a new game played with random legal commands
        for before, e, _ in _walk(n):
            t = before.table
            # then every healing Event and healing ability is played by the active player in
            # its Healing phase, and every heal (a Scenario's upkeep too) happens in it
            if _heals(before, e):
                assert (t.turn.phase, t.turn.active) == ("healing", e.data["seat"]), e
                seen[e.type] += 1
            elif e.type == "card_healed":
                assert t.turn.phase == "healing", e
                seen[e.type] += 1
    # and the games did play healing Events, healing abilities and heals
    assert min(seen["event_played"], seen["ability_used"]) >= 3, seen
    assert seen["card_healed"] >= 10, seen


def test_a_healing_card_is_offered_only_in_its_players_healing_phase() -> None:
    offered: Counter[str] = Counter()
    for n in range(GAMES):
        # given each decision of a new game played with random legal commands
        for before, _, decided in _walk(n):
            pending = RULES.pending(before)
            if not decided or pending is None or pending.seat not in ("p1", "p2"):
                continue
            t = before.table
            for c in RULES.legal_commands(before, pending.seat):
                if c.kind == "deploy":
                    healing = heals(catalog()[c.args["card"]].effects)
                elif c.kind == "use":
                    p = t.board.get(c.args["uid"])
                    healing = heals(abilities_of(p)[c.args["ability"]][0].effects)
                else:
                    continue
                # then a healing Event or ability is offered only to the active player in its
                # Healing phase, and no other card from hand is offered then
                if healing:
                    assert (t.turn.phase, t.turn.active) == ("healing", pending.seat), c
                    offered[c.kind] += 1
                elif c.kind == "deploy":
                    assert t.turn.phase == "deploy", c
    assert min(offered["deploy"], offered["use"]) >= 3, offered


def _deploy_step(rules: int | None) -> Table:
    """p1 in its Deploy phase with a Pridecub in play and Spirit Call in hand."""
    started: dict[str, Any] = {"rules": rules} if rules is not None else {}
    table = run(
        Table(),
        [
            fact("game_started", seats=["p1", "p2"], library_sizes=[20, 20], **started),
            fact("card_drawn", ("p1",), seat="p1", card="fel_spirit_call"),
            fact("card_drawn", ("p1",), seat="p1", card="fel_pridecub"),
            fact("turn_started", seat="p1", turn=1),
            fact("resources_changed", seat="p1", delta=3, reason="t"),
            fact("card_deployed", seat="p1", uid="p1.1", card="fel_pridecub", paid=0, on=""),
            fact("phase_started", seat="p1", phase="deploy"),
        ],
    )
    return table


def test_a_game_recorded_before_rules_version_4_keeps_its_healing_rules() -> None:
    # given p1's Deploy phase in a game whose game_started names no rules version
    old, new = _deploy_step(None), _deploy_step(PHASED)
    # then Spirit Call may still be played there, as such games were played; in a new game not
    spirit_call = {"card": "fel_spirit_call", "target": "p1.1"}
    assert spirit_call in deploy_options(old, "p1")
    assert spirit_call not in deploy_options(new, "p1")
