"""Fallen Worlds' events and commands in words (cards in play are named by their uid)."""
# ruff: noqa: E501  (tables of sentences read better one per line)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.web.carddata import words
from services.web.words import Describer, Names

D = dict[str, Any]


class WorldsWords(Describer):
    """Fallen Worlds: two players, Capitals, creatures in play known by uid ("p2.4")."""

    seats = {"chance": "Chance"}

    def __init__(self, names: Names) -> None:
        super().__init__(names)
        self.uids: dict[str, str] = {}

    def unit(self, uid: Any) -> str:
        """Return a card in play as "Pit Brute (Player 2)"."""
        uid = str(uid or "")
        if not uid:
            return "no target"
        owner = self.seat(uid.split(".", 1)[0]) if "." in uid else ""
        card = self.uids.get(uid)
        name = self.name(card) if card else f"card {uid}"
        return f"{name} ({owner})" if owner else name

    def value(self, key: str, v: Any) -> str:
        if key in ("uid", "attacker", "defender", "striker") or key == "targets":
            if isinstance(v, list):
                return ", ".join(self.unit(x) for x in v) or "none"
            return self.unit(v)
        if key == "target" and isinstance(v, str) and "." in v:
            return self.unit(v)
        return super().value(key, v)

    def event(self, etype: str, data: Mapping[str, Any]) -> str:
        self.learn(etype, data)
        return super().event(etype, data)

    def learn(self, etype: str, data: Mapping[str, Any]) -> None:
        """Remember which card each uid is (deployed, destroyed, or a view's play list)."""
        if data.get("uid") and data.get("card"):
            self.uids[str(data["uid"])] = str(data["card"])
        for c in data.get("play", []) if isinstance(data.get("play"), list) else []:
            if isinstance(c, dict) and c.get("uid") and c.get("card"):
                self.uids[str(c["uid"])] = str(c["card"])


def _strike(w: WorldsWords, d: D) -> str:
    hit = f"hits for {d['damage']}" if d.get("hit") else "misses"
    return f"{w.unit(d['striker'])} strikes {w.unit(d['target'])}: rolled {d['roll']} (needed {d['needed']}), {hit}"


def _deployed(w: WorldsWords, d: D) -> str:
    on = f" on {w.unit(d['on'])}" if d.get("on") else ""
    return f"{w.seat(d['seat'])} deployed {w.name(d['card'])}{on} for {d.get('paid', 0)}"


def _answered(w: WorldsWords, d: D) -> str:
    if d.get("seat") == "chance":
        return f"Chance answered the {words(d['decision'])}"
    detail = w.fields(d.get("args") or {})
    kind = words(d.get("kind") or d["decision"])
    return f"{w.seat(d.get('seat'))}: {kind}" + (f" ({detail})" if detail else "")


WorldsWords.events = {
    "game_started": lambda w, d: f"The game starts: {', '.join(w.seat(s) for s in d['seats'])}",
    "first_player_chosen": lambda w, d: f"{w.seat(d['seat'])} goes first",
    "turn_started": lambda w, d: (
        f"Turn {d['turn']}" + (f": {w.seat(d['seat'])}" if d.get("seat") else "")
    ),
    "turn_ended": lambda w, d: f"{w.seat(d['seat'])} ends turn {d['turn']}",
    "phase_started": lambda w, d: f"{w.seat(d['seat'])}: {words(d['phase'])} phase",
    "resources_rolled": lambda w, d: (
        f"{w.seat(d['seat'])} rolled resources {', '.join(map(str, d['faces']))}: +{d['gained']} (pool {d['pool']})"
    ),
    "cards_drawn": lambda w, d: (
        f"{w.seat(d['seat'])} drew {d['count']} card(s), {d['library_size']} left in the library"
    ),
    "cards_unlocked": lambda w, d: f"{w.seat(d['seat'])}'s cards are unlocked",
    "card_deployed": _deployed,
    "attacker_declared": lambda w, d: f"{w.seat(d['seat'])} attacks with {w.unit(d['uid'])}",
    "order_given": lambda w, d: f"{w.unit(d['uid'])} is ordered to {words(d['order'])}",
    "defender_lined_up": lambda w, d: (
        f"{w.seat(d['seat'])} blocks {w.unit(d['attacker'])} with {w.unit(d['defender'])}"
    ),
    "strike_rolled": _strike,
    "card_damaged": lambda w, d: (
        f"{w.unit(d['uid'])} takes {d['amount']} damage ({words(d.get('source', ''))})"
    ),
    "card_healed": lambda w, d: f"{w.unit(d['uid'])} heals {d.get('amount', 1)}",
    "card_destroyed": lambda w, d: f"{w.name(d['card'])} ({w.seat(d['owner'])}) is destroyed",
    "card_modified": lambda w, d: (
        f"{w.unit(d['uid'])} gets {', '.join(f'{k.upper()} {v:+d}' for k, v in d['mods'].items())} until end of {words(d.get('until', 'turn'))}"
    ),
    "raid": lambda w, d: (
        f"{w.unit(d['attacker'])} raids {w.seat(d['seat'])}'s Capital for {d['damage']}"
    ),
    "capital_changed": lambda w, d: (
        f"{w.seat(d['seat'])}'s Capital {d['delta']:+d} ({words(d.get('reason', ''))}), now {d['capital']}"
    ),
    "ability_used": lambda w, d: (
        f"{w.unit(d['uid'])} uses its ability on {w.value('targets', d.get('targets', []))}"
    ),
    "event_played": lambda w, d: f"{w.seat(d['seat'])} plays {w.name(d['card'])}",
    "card_discarded": lambda w, d: f"{w.seat(d['seat'])} discards {w.name(d['card'])}",
    "library_shuffled": lambda w, d: f"{words(d['deck'])} shuffled ({d['count']} cards)",
    "answered": _answered,
    "game_ended": lambda w, d: f"{w.seat(d['winner'])} wins ({words(d.get('reason', ''))})",
    "game_over": lambda w, d: f"Game over: {w.seat(d['winner'])} wins",
    "GameEnded": lambda w, d: f"The game ended: {w.seat(d['outcome'].get('winner'))} wins",
}

WorldsWords.commands = {
    "deploy": lambda w, a: (
        f"Deploy {w.name(a['card'])}" + (f" on {w.unit(a['on'])}" if a.get("on") else "")
    ),
    "attack": lambda w, a: f"Attack with {w.unit(a['uid'])}",
    "block": lambda w, a: f"Block {w.unit(a['attacker'])} with {w.unit(a['defender'])}",
    "order": lambda w, a: (
        f"Order {w.unit(a['uid'])} to {words(a['order'])}"
        + (f" {w.unit(a['target'])}" if a.get("target") else "")
    ),
    "done": lambda w, a: "Done",
    "pass": lambda w, a: "Pass",
}
