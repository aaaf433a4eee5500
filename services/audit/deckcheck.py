"""Deck answers re-derived from the deck stream, for the state replay (docs/disputes.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.deck import zones
from services.platform.envelope import Envelope
from services.rules.engine.api import CHANCE, DECK_ANSWERS, ChanceRequest, Command

_TAKEN = (zones.CARDS_DRAWN, zones.CARDS_SEARCHED)


class DeckReplay:
    """The deck stream folded up to a point in the log, and the cards it dealt since."""

    def __init__(self, events: Sequence[tuple[int, Envelope]]) -> None:
        self.events = events
        self.next = 0
        self.state = zones.Zones()
        self.taken: dict[str, list[str]] = {}

    def _advance(self, before: int) -> None:
        """Fold deck events logged before a global index; remember the cards taken off decks."""
        while self.next < len(self.events) and self.events[self.next][0] < before:
            env = self.events[self.next][1]
            d: Any = env.data
            if env.type in _TAKEN:
                self.taken.setdefault(str(d["zone"]), []).extend(d["cards"])
            elif env.type == zones.CARD_DISCARDED:
                self.taken.setdefault(str(d["from_zone"]), []).append(d["card"])
            self.state = zones.evolve(self.state, env)
            self.next += 1

    def answer(self, index: int, req: ChanceRequest) -> Command:
        """Return the chance answer the deck stream gave to a request logged at index."""
        self._advance(index)
        out: dict[str, Any] = {"deck": req.deck}
        if req.kind in ("deck_draw", "deck_search"):
            out["cards"] = self.taken.pop(req.deck, [])
        else:
            zone = self.state.zones.get(req.deck)
            out["count"] = len(zone.cards) if zone is not None else 0
        return Command(CHANCE, DECK_ANSWERS[req.kind], out)
