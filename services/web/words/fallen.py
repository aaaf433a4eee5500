"""Fallen's events and commands in words."""
# ruff: noqa: E501  (tables of sentences read better one per line)

from __future__ import annotations

from typing import Any

from services.web.carddata import words
from services.web.words import Describer, dice_counts, signed

D = dict[str, Any]


def _rolled(w: Describer, d: D) -> str:
    faces = ", ".join(words(f) for f in d["faces"])
    return f"{w.seat(d['seat'])} rolled {dice_counts(d['dice'])}: {faces}"


def _answered(w: Describer, d: D) -> str:
    who = w.seat(d.get("seat"))
    if d.get("kind") == "pass" or (d.get("decision") == "window" and not d.get("args")):
        return f"{who} passed"
    if d.get("seat") == "chance":
        return f"Chance answered the {words(d['decision'])}"
    detail = w.fields(d.get("args") or {})
    return f"{who} chose {words(d.get('kind') or d['decision'])}" + (
        f" ({detail})" if detail else ""
    )


def _counter(w: Describer, d: D) -> str:
    key = str(d["key"])
    what, _, whose = key.partition(".")
    owner = f"{w.seat(whose)}'s " if whose in w.seats else ""
    label = f"{owner}{words(what)}" if owner else words(key)
    reason = f" ({d['reason']})" if d.get("reason") else ""
    return f"{label.capitalize()} {signed(d.get('delta', 0))}{reason}"


EVENTS: dict[str, Any] = {
    "dice_rolled": _rolled,
    "die_rerolled": lambda w, d: (
        f"{w.seat(d['seat'])} re-rolled die {d['die'] + 1}: {words(d['face'])}"
    ),
    "answered": _answered,
    "card_moved": lambda w, d: (
        f"{w.name(d['card'])} moved from {words(d['from'])} to {words(d['to'])}"
    ),
    "hidden_card_moved": lambda w, d: (
        f"{d.get('count', 1)} hidden card(s) moved from {words(d['from'])} to {words(d.get('to', '?'))}"
    ),
    "symbols_gained": lambda w, d: f"{w.seat(d['seat'])} gained {d['n']} {words(d['symbol'])}",
    "symbols_cancelled": lambda w, d: (
        f"{w.seat(d['seat'])} cancelled {d['n']} {words(d['symbol'])}"
    ),
    "card_exhausted": lambda w, d: (
        f"{w.name(d['card'])} is {'exhausted' if d.get('exhausted', True) else 'ready again'}"
    ),
    "counter_changed": _counter,
    "token_claimed": lambda w, d: (
        f"{w.seat(d['seat'])} claimed a reward token ({w.name(d['token'])})"
    ),
    "hero_wounded": lambda w, d: f"The Hero took {d.get('n', 1)} Wound(s), {d['total']} in all",
    "deck_changed": lambda w, d: f"The {words(d['deck'])} now holds {d['count']} cards",
    "card_played": lambda w, d: f"{w.seat(d.get('seat'))} played {w.name(d['card'])}",
    "deck_dealt": lambda w, d: (
        f"{', '.join(w.name(c) for c in d['cards'])} dealt to {words(d['to'])}"
    ),
    "challenge_started": lambda w, d: (
        f"A {d['attribute']} challenge begins" + (f" ({d['kind']})" if d.get("kind") else "")
    ),
    "creature_activated": lambda w, d: f"{w.name(d['creature'])} (slot {d['slot']}) is activated",
    "challenge_result": lambda w, d: (
        f"{w.seat(d['winner'])} wins the challenge ({d.get('hero_swords', '?')} Hero swords to {d.get('dl_swords', '?')})"
    ),
    "rewards_claimed": lambda w, d: "Rewards are claimed",
    "challenge_ended": lambda w, d: "The challenge is over",
    "ultimate_used": lambda w, d: (
        f"{w.seat(d['seat'])} used the Ultimate {d.get('name', '')}".rstrip()
    ),
    "story_offer": lambda w, d: "Story choices: " + " or ".join(d["choices"]),
    "story_choice": lambda w, d: f"Story: {d['name']}. {d.get('text', '')}".strip(),
    "story_begins": lambda w, d: f"Story {d['number']} begins: {d['title']}",
    "story_resolution": lambda w, d: f"Story resolved: {d.get('text', '')}".strip(),
    "shadow_track": lambda w, d: (
        f"The Shadow Track moves to {d['position']} ({'Light' if d['light'] else 'Darkness'})"
    ),
    "creature_enters": lambda w, d: f"{w.name(d['creature'])} enters slot {d['slot']}",
    "creature_wounded": lambda w, d: (
        f"{w.name(d['creature'])} (slot {d['slot']}) took {d.get('n', 1)} Wound(s)"
    ),
    "wounds_blocked": lambda w, d: f"{w.seat(d['seat'])} blocked {d['n']} Wound(s)",
    "creature_upgraded": lambda w, d: f"Slot {d['slot']} upgraded to {w.name(d['creature'])}",
    "phase_changed": lambda w, d: f"Phase: {words(d['phase'])}",
    "skill_learned": lambda w, d: f"The Hero learned {w.name(d['skill'])}",
    "character_chosen": lambda w, d: f"{w.seat(d['seat'])} is {w.name(d['character'])}",
    "creatures_refreshed": lambda w, d: "The Creatures are refreshed",
    "ability_used": lambda w, d: f"{w.seat(d.get('seat'))} used {w.name(d['card'])}",
    "armor_breached": lambda w, d: f"The Hero's armor ({d.get('rating', '?')}) is breached",
    "card_bound": lambda w, d: (
        f"{w.name(d['card'])} bound to slot {d['slot']} as {words(d['binding'])}"
    ),
    "quest_begins": lambda w, d: f"Quest: {d['title']}. Choices: {' or '.join(d['choices'])}",
    "quest_choice": lambda w, d: f"Quest choice: {d['name']}",
    "random_claim": lambda w, d: f"A random {words(d.get('reward', 'reward'))} is claimed",
    "final_battle_begins": lambda w, d: f"The Final Battle begins: {d['name']}",
    "final_battle_card": lambda w, d: (
        f"Final Battle card: {d['name']} ({d.get('attribute') or 'any'})"
    ),
    "final_battle_card_claimed": lambda w, d: (
        f"{w.seat(d['seat'])} claims a Final Battle card ({d['total']} in all)"
    ),
    "final_battle_conclusion": lambda w, d: f"{w.seat(d['winner'])} wins the Final Battle",
    "game_over": lambda w, d: f"Game over: {w.seat(d['winner'])} wins ({d.get('reason', '')})",
    "GameEnded": lambda w, d: f"The game ended: {w.seat(d['outcome'].get('winner'))} wins",
}

COMMANDS: dict[str, Any] = {
    "pass": lambda w, a: "Pass",
    "resolve_symbol": lambda w, a: f"Take die {a['die'] + 1} as a {words(a['as'])}",
    "choose": lambda w, a: f"Choose {w.value('choice', a.get('choice') or a.get('character'))}",
    "choose_hero": lambda w, a: f"Play the Hero {w.name(a['character'])}",
    "choose_dungeon_lord": lambda w, a: f"Play the Dungeon Lord {w.name(a['character'])}",
    "play": lambda w, a: (
        f"Play {w.name(a['card'])}"
        + (f" ({w.fields({k: v for k, v in a.items() if k != 'card'})})" if len(a) > 1 else "")
    ),
    "upgrade": lambda w, a: f"Upgrade the Creature in slot {a['slot']}",
    "activate": lambda w, a: f"Activate the Creature in slot {a['slot']}",
}


class FallenWords(Describer):
    """Fallen: Hero and Dungeon Lord."""

    seats = {"hero": "Hero", "dungeon_lord": "Dungeon Lord", "chance": "Chance"}
    events = EVENTS
    commands = COMMANDS
