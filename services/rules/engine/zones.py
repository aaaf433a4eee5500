"""Visibility of zones and card moves, from one game's table of who sees which zone."""

from __future__ import annotations

from collections.abc import Callable

from services.rules.engine.api import NOBODY, PUBLIC

SeenBy = Callable[[str], tuple[str, ...]]


class ZoneRules:
    """Who sees the cards of each zone (memoised by zone name), and so who sees a move."""

    def __init__(self, seats: tuple[str, ...], seen_by: SeenBy) -> None:
        self.seats = seats
        self._seen_by = seen_by
        self._memo: dict[str, tuple[str, ...]] = {}
        self._moves: dict[tuple[str, str], str | tuple[str, ...]] = {}

    def seen_by(self, zone: str) -> tuple[str, ...]:
        """Return the seats that may see the identity of cards in a zone."""
        seen = self._memo.get(zone)
        if seen is None:
            seen = self._memo[zone] = tuple(self._seen_by(zone))
        return seen

    def public(self, zone: str) -> bool:
        """Return True if everybody (spectators too) may see a zone's cards."""
        return self.seen_by(zone) == self.seats

    def hidden(self, zone: str) -> bool:
        """Return True if nobody may see a zone's cards (a face-down deck)."""
        return not self.seen_by(zone)

    def move_visibility(self, src: str, dst: str) -> str | tuple[str, ...]:
        """Return who may see a card moving from src to dst."""
        key = (src, dst)
        vis = self._moves.get(key)
        if vis is None:
            vis = self._moves[key] = self._compute(src, dst)
        return vis

    def _compute(self, src: str, dst: str) -> str | tuple[str, ...]:
        if self.public(src) or self.public(dst):
            return PUBLIC
        seen = set(self.seen_by(src)) | set(self.seen_by(dst))
        if not seen:
            return NOBODY
        return tuple(s for s in self.seats if s in seen)
