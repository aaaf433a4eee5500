"""Fallen Land's events and commands in words (factions, hexes, Characters, Spoils)."""
# ruff: noqa: E501  (tables of sentences read better one per line)

from __future__ import annotations

from typing import Any

from services.web.carddata import words
from services.web.words import Describer, Names, signed

D = dict[str, Any]


class LandWords(Describer):
    """Fallen Land: players p1-p6, opposing factions "of<roll>" in solo, hexes [x, y]."""

    seats = {"chance": "Chance"}

    def __init__(self, names: Names, factions: dict[str, Any] | None = None) -> None:
        super().__init__(names)
        self.factions = factions or {}

    def seat(self, seat: Any) -> str:
        s = str(seat or "")
        if s.startswith("of") and s[2:].isdigit():
            f = self.factions.get(s[2:])
            return f"opposing faction {f['name'] if f else s[2:]}"
        return super().seat(s)

    def value(self, key: str, v: Any) -> str:
        if key in ("to", "at", "hex") and isinstance(v, list) and len(v) == 2:
            return f"hex ({v[0]}, {v[1]})"
        if key == "tech" and isinstance(v, str):
            return words(v).title()
        return super().value(key, v)


def _check(w: LandWords, d: D) -> str:
    verdict = "passed" if d.get("passed") else "failed"
    rolls = ", ".join(map(str, d.get("rolls", [])))
    return (
        f"{w.seat(d['seat'])} {verdict} a {words(d['skill'])} check: {d['successes']} successes"
        f" of {d['required']} needed (rolled {rolls})"
    )


def _counter(w: LandWords, d: D) -> str:
    key = str(d["key"])
    parts = key.split(".")
    label = {"th": "Town Health", "salvage": "coins", "prestige": "Prestige", "weeks": "weeks"}
    if len(parts) == 2 and parts[0] in label:
        return f"{w.seat(parts[1])}: {label[parts[0]]} {signed(d.get('delta', 0))} ({d.get('reason', '')})"
    if parts[0] == "deck":
        return f"The {words(parts[1])} deck {signed(d.get('delta', 0))}"
    return f"{words(key)} {signed(d.get('delta', 0))}"


def _won(w: LandWords, d: D) -> str:
    who = ", ".join(w.seat(s) for s in d.get("winners", [])) or "nobody"
    return f"Game won by {who} ({words(d.get('kind', ''))})"


LandWords.events = {
    "skill_checked": _check,
    "counter_changed": _counter,
    "card_moved": lambda w, d: (
        f"{w.name(d['card'])} moved from {words(d['from'])} to {words(d['to'])}"
    ),
    "mission_rolled": lambda w, d: (
        f"A Mission is placed on hex {d['roll']}"
        if d.get("placed")
        else f"Mission roll {d['roll']}: not placed"
    ),
    "faction_rolled": lambda w, d: (
        f"{w.seat(d['seat'])} rolled {d['roll']}: {w.factions.get(str(d['roll']), {}).get('name', 'faction ' + str(d['roll']))}"
    ),
    "opposing_faction_rolled": lambda w, d: (
        f"Opposing faction: {w.factions.get(str(d['roll']), {}).get('name', d['roll'])}"
    ),
    "cards_dealt": lambda w, d: (
        f"{w.seat(d['seat'])} was dealt {d['count']} {words(d['deck'])} card(s)"
    ),
    "first_player_rolled": lambda w, d: (
        "First player rolls: " + ", ".join(f"{w.seat(s)} {r}" for s, r in d["rolls"].items())
    ),
    "turn_started": lambda w, d: f"Turn {d['turn']} begins; {w.seat(d.get('first'))} goes first",
    "phase_started": lambda w, d: (
        f"Turn {d.get('turn', '?')}: {words(d['phase'])} phase"
        + (f" ({words(d['subphase'])})" if d.get("subphase") else "")
    ),
    "auction_bought": lambda w, d: (
        f"{w.seat(d['buyer'])} bought {w.name(d['card'])} from {w.seat(d.get('seller'))} for {d.get('price', '?')} coins"
    ),
    "town_event_rolled": lambda w, d: (
        f"{w.seat(d.get('seat'))} rolled {d['roll']} on the Town Events chart"
    ),
    "action_played": lambda w, d: (
        f"{w.seat(d['seat'])} played {w.name(d['card'])} on {w.seat(d.get('target'))}"
    ),
    "ability_used": lambda w, d: f"{w.seat(d['seat'])} used the ability of {w.name(d['card'])}",
    "tech_sold": lambda w, d: (
        f"{w.seat(d['seat'])} sold the Town Technology {words(d['tech']).title()}"
    ),
    "tech_bought": lambda w, d: (
        f"{w.seat(d['seat'])} bought the Town Technology {words(d['tech']).title()}"
    ),
    "tech_upgraded": lambda w, d: (
        f"{w.seat(d['seat'])} upgraded the Town Technology {words(d['tech']).title()}"
    ),
    "deed_begun": lambda w, d: f"{w.seat(d['seat'])} begins a deed: {words(d['deed'])}",
    "zone_set": lambda w, d: (
        f"{words(d['zone']).capitalize()}: {', '.join(w.name(c) for c in d['cards']) or 'empty'}"
    ),
    "encounter_drawn": lambda w, d: f"{w.seat(d['seat'])} drew the Encounter {w.name(d['card'])}",
    "encounter_resolved": lambda w, d: (
        f"{w.seat(d['seat'])} {'succeeded at' if d['success'] else 'failed'} the Encounter {w.name(d['card'])}"
    ),
    "damage_taken": lambda w, d: (
        f"{w.name(d['card'])} ({w.seat(d.get('seat'))}) took {d.get('amount', 0)} {words(d.get('type', ''))} damage"
        + (f", {d['prevented']} prevented" if d.get("prevented") else "")
    ),
    "party_healed": lambda w, d: f"{w.seat(d['seat'])}'s party is healed",
    "exploits_ended": lambda w, d: f"{w.seat(d.get('seat'))} ends their exploits",
    "party_moved": lambda w, d: (
        f"{w.seat(d['seat'])}'s party moves to hex ({d['to'][0]}, {d['to'][1]})"
    ),
    "spoils_sold": lambda w, d: (
        f"{w.seat(d['seat'])} sold {w.name(d['card'])} for {d.get('price', '?')} coins"
    ),
    "spoils_lost": lambda w, d: (
        f"{w.seat(d['seat'])} lost {w.name(d['card'])}"
        + (f" to {w.seat(d['to'])}" if d.get("to") else "")
    ),
    "spoils_unloaded": lambda w, d: f"{w.seat(d['seat'])} unloaded {w.name(d['card'])}",
    "defense_bought": lambda w, d: f"{w.seat(d['seat'])} bought a Town Defense chip",
    "defense_converted": lambda w, d: (
        f"{w.seat(d['seat'])} turned a Town Defense chip into Town Health"
    ),
    "npcm_hired": lambda w, d: (
        f"{w.seat(d['seat'])} hired {w.name(d['card'])} against {w.seat(d['target'])}"
    ),
    "npcm_moved": lambda w, d: f"{w.name(d['card'])} moves to hex ({d['to'][0]}, {d['to'][1]})",
    "npcm_struck": lambda w, d: f"{w.name(d['card'])} strikes {w.seat(d['target'])}",
    "resource_claimed": lambda w, d: (
        f"{w.seat(d['seat'])} claims the Resource Location {words(d['resource']).title()}"
    ),
    "resource_produced": lambda w, d: (
        f"{words(d['resource']).title()} produces for {w.seat(d['seat'])}: {w.fields(d['yields'])}"
    ),
    "oftec_rolled": lambda w, d: (
        f"OFTEC of {w.seat('of' + str(d['faction']))}: rolled {d['roll']}, Town Health {d['town_health']}, Prestige {d['prestige']}"
    ),
    "secondary_effect": lambda w, d: (
        f"Secondary effect of {w.seat('of' + str(d['faction']))}: {words(d['effect'])}"
    ),
    "secondary_effect_ignored": lambda w, d: (
        f"Secondary effect of {w.seat('of' + str(d['faction']))} ignored (roll {d['roll']})"
    ),
    "salvage_lost": lambda w, d: f"{w.seat(d['seat'])} lost {d['amount']} coins",
    "red_dot_waiting": lambda w, d: (
        f"{w.name(d['card'])} waits for {words(d['timing'])} ({w.seat('of' + str(d['faction']))})"
    ),
    "game_won": _won,
    "game_over": lambda w, d: (
        f"Game over: {w.seat(d.get('winner')) if d.get('winner') else 'no winner'} ({words(d.get('reason', ''))})"
    ),
    "GameEnded": lambda w, d: (
        f"The game ended: {w.seat(d['outcome'].get('winner')) if d['outcome'].get('winner') else 'no winner'}"
    ),
}

LandWords.commands = {
    "pass": lambda w, a: "Pass",
    "end": lambda w, a: "End",
    "move": lambda w, a: f"Move the party to hex ({a['to'][0]}, {a['to'][1]})",
}


def land_words(names: Names, factions: dict[str, Any]) -> LandWords:
    """Return a Land describer that knows the faction chart."""
    return LandWords(names, factions)
