"""Pure matching: group queued tickets into games by size, roles and rating windows.

A ticket's rating window starts at BASE_WINDOW (in mu units) and widens by WIDEN_PER_S for
each second it has waited; after OPEN_AFTER_S it accepts any rating.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

from services.matchmaking.model import BOT_PREFIX, Ticket
from services.matchmaking.modes import Mode

BASE_WINDOW = 2.0
WIDEN_PER_S = 0.25
OPEN_AFTER_S = 60.0


def window(wait_s: float) -> float:
    """Return the rating distance a ticket accepts after waiting wait_s seconds."""
    if wait_s >= OPEN_AFTER_S:
        return float("inf")
    return BASE_WINDOW + WIDEN_PER_S * max(wait_s, 0.0)


def accepts(t: Ticket, size: int) -> bool:
    """Return whether a ticket accepts a game of size human players."""
    return not t.seat_counts or size in t.seat_counts


def assign_seats(mode: Mode, group: Sequence[Ticket]) -> dict[str, str] | None:
    """Return seat -> player for a group (bots fill the rest), or None when roles clash."""
    seats: dict[str, str] = {}
    players = [p for t in group for p in t.players]
    if mode.roles:
        for t in group:
            if t.role:
                if t.role in seats:
                    return None
                seats[t.role] = t.players[0]
    free = [s for s in mode.seats if s not in seats]
    placed = set(seats.values())
    for p in players:
        if p not in placed:
            seats[free.pop(0)] = p
    for n in range(mode.bots):
        seats[free.pop(0)] = f"{BOT_PREFIX}{mode.game}:{n}"
    return {s: seats[s] for s in mode.seats if s in seats}


def _nearest(by_rating: list[Ticket], ratings: list[float], anchor: Ticket) -> Iterator[Ticket]:
    """Yield the other tickets ordered by rating distance from the anchor (nearest first)."""
    i = bisect.bisect_left(ratings, anchor.rating)
    lo, hi = i - 1, i
    while lo >= 0 or hi < len(by_rating):
        left = anchor.rating - ratings[lo] if lo >= 0 else float("inf")
        right = ratings[hi] - anchor.rating if hi < len(by_rating) else float("inf")
        if left <= right:
            t, lo = by_rating[lo], lo - 1
        else:
            t, hi = by_rating[hi], hi + 1
        if t.ticket_id != anchor.ticket_id:
            yield t


def _fill(
    mode: Mode, anchor: Ticket, near: Iterator[Ticket], size: int, used: set[str], now: float
) -> list[Ticket] | None:
    """Return a group of exactly size players around the anchor, or None."""
    group, count = [anchor], len(anchor.players)
    reach = window(now - anchor.queued_at)
    for c in near:
        if count == size:
            break
        if abs(c.rating - anchor.rating) > max(reach, window(now - c.queued_at)):
            if reach != float("inf"):
                break  # nearest first: nobody further fits the anchor's window either
            continue
        if c.ticket_id in used or not accepts(c, size) or count + len(c.players) > size:
            continue
        if c.challenge_level != anchor.challenge_level:  # one game has one challenge level
            continue
        if assign_seats(mode, [*group, c]) is None:
            continue
        group.append(c)
        count += len(c.players)
    return group if count == size else None


def find_groups(mode: Mode, tickets: Sequence[Ticket], now: float) -> list[list[Ticket]]:
    """Return disjoint groups of queued tickets that make a game now, oldest tickets first."""
    queued = [t for t in tickets if t.expires_at > now]
    if mode.instant:
        return [[t] for t in sorted(queued, key=lambda t: t.queued_at)]
    by_rating = sorted(queued, key=lambda t: (t.rating, t.queued_at))
    ratings = [t.rating for t in by_rating]
    used: set[str] = set()
    groups: list[list[Ticket]] = []
    for anchor in sorted(queued, key=lambda t: (t.queued_at, t.ticket_id)):
        if anchor.ticket_id in used:
            continue
        for size in mode.sizes():
            if not accepts(anchor, size) or len(anchor.players) > size:
                continue
            group = _fill(mode, anchor, _nearest(by_rating, ratings, anchor), size, used, now)
            if group is not None:
                groups.append(group)
                used.update(t.ticket_id for t in group)
                break
    return groups
