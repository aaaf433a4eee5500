"""Game events and legal commands described in short sentences, one describer per game.

`describer(game, names)` returns a `Describer` whose `event(type, data)` writes one event as
a sentence a player reads ("Hero rolled 2 white, 1 red: two swords, sword, charge") and whose
`command(kind, args)` writes one legal command. Card ids become names through `names` (the
game's card data, services/web/carddata.py); an event without a sentence of its own is
written from its type and its fields, ids turned into names, never as raw JSON.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from services.web.carddata import words

Names = Mapping[str, Mapping[str, Any]]
Template = Callable[[Any, dict[str, Any]], str]  # (the game's describer, event fields)

# Engine bookkeeping a player does not see at the table.
QUIET = frozenset({"flow", "var_set", "zones_set", "game_created", "GameCreated"})


class Describer:
    """Writes one game's events and commands in words (per-game templates + a fallback)."""

    events: dict[str, Template] = {}
    commands: dict[str, Template] = {}
    seats: dict[str, str] = {}

    def __init__(self, names: Names) -> None:
        self.names = names

    def name(self, cid: Any) -> str:
        """Return a card's name ("shotgun#2" -> "Pump Shotgun"), else the id as words."""
        cid = str(cid)
        card = self.names.get(cid) or self.names.get(cid.split("#", 1)[0])
        return str(card["name"]) if card else words(cid)

    def seat(self, seat: Any) -> str:
        """Return a seat as a person reads it."""
        s = str(seat or "")
        if not s:
            return "nobody"
        return self.seats.get(s) or (f"Player {s[1:]}" if s[1:].isdigit() else words(s))

    def value(self, key: str, v: Any) -> str:
        """Return one field's value in words (ids as names, seats as seats)."""
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, list):
            return ", ".join(self.value(key, x) for x in v) or "none"
        if isinstance(v, dict):
            return ", ".join(f"{words(k)} {self.value(k, x)}" for k, x in v.items())
        if key in ("seat", "winner", "buyer", "seller", "target", "owner", "who", "hirer"):
            if isinstance(v, str) and (v in self.seats or v[1:].isdigit() or v == ""):
                return self.seat(v)
        if isinstance(v, str):
            return self.name(v) if v in self.names or v.split("#", 1)[0] in self.names else words(v)
        return str(v)

    def fields(self, data: Mapping[str, Any]) -> str:
        """Return an event's or command's fields in words."""
        return "; ".join(
            f"{words(k)} {self.value(k, v)}"
            for k, v in data.items()
            if not k.startswith("_") and v not in (None, "", [], {})
        )

    def learn(self, etype: str, data: Mapping[str, Any]) -> None:
        """Take note of what later events refer to (a first pass over a whole list)."""

    def event(self, etype: str, data: Mapping[str, Any]) -> str:
        """Return one event in a short sentence."""
        clean = {k: v for k, v in data.items() if not k.startswith("_")}
        template = self.events.get(etype)
        if template is not None:
            try:
                return template(self, clean)
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # an older record shape: the fallback writes it
        if etype in ("GameCreated", "game_created"):
            return "The game is created"
        if etype in QUIET:
            return f"Bookkeeping ({words(etype)})"
        detail = self.fields(clean)
        text = words(etype).capitalize()
        return f"{text}: {detail}" if detail else text

    def command(self, kind: str, args: Mapping[str, Any]) -> str:
        """Return one legal command in words."""
        template = self.commands.get(kind)
        if template is not None:
            try:
                return template(self, dict(args))
            except (KeyError, TypeError, ValueError, IndexError):
                pass
        detail = self.fields(args)
        return f"{words(kind).capitalize()}" + (f": {detail}" if detail else "")


def dice_counts(colours: list[str]) -> str:
    """Return "2 white, 1 red" for a list of dice colours (first-seen order)."""
    return ", ".join(f"{n} {c}" for c, n in Counter(colours).items())


def signed(n: Any) -> str:
    """Return a delta as "+2" or "-1"."""
    return f"{int(n):+d}"


def describer(game: str, names: Names) -> Describer:
    """Return the describer of a game (a generic one for a game without templates)."""
    from services.web.words import fallen, land, worlds

    kinds: dict[str, type[Describer]] = {
        "fallen": fallen.FallenWords,
        "worlds": worlds.WorldsWords,
        "land": land.LandWords,
    }
    return kinds.get(game, Describer)(names)
