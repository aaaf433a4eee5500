"""Victory: thresholds checked at the end of a phase, the tie-break and the turn limit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.rules.land.data import economy


@dataclass(frozen=True)
class Standing:
    """A player's victory tracks and resources owned."""

    prestige: int
    town_health: int
    resources: int


@dataclass(frozen=True)
class Victory:
    """Who won (one seat, or several sharing a win) and how."""

    winners: tuple[str, ...]
    kind: str
    opposing: tuple[str, ...] = ()  # Solo II: the opposing factions that won (or shared it)


def thresholds(options: Mapping[str, Any]) -> tuple[int, int]:
    """Return (prestige, town_health) needed to win: 20/80, or 10/50 in the short game."""
    v = economy()["short_victory" if options.get("short_game") else "victory"]
    return int(v["prestige"]), int(v["town_health"])


def score(s: Standing) -> int:
    """Return the tie-break score: 1 Prestige counts as 4 Town Health."""
    return int(economy()["tiebreak_prestige_weight"]) * s.prestige + s.town_health


def tiebreak(standings: Mapping[str, Standing]) -> tuple[str, ...]:
    """Return the seats best by score, then by resources (several = a shared win)."""
    best = max((score(s), s.resources) for s in standings.values())
    return tuple(seat for seat, s in standings.items() if (score(s), s.resources) == best)


def check_end_of_phase(
    standings: Mapping[str, Standing], options: Mapping[str, Any], turn: int, last_phase: bool
) -> Victory | None:
    """Return the victory reached at the end of a phase, or None."""
    need_p, need_th = thresholds(options)
    reached = {
        seat: s for seat, s in standings.items() if s.prestige >= need_p or s.town_health >= need_th
    }
    if len(reached) == 1:
        ((seat, s),) = reached.items()
        return Victory((seat,), "prestige" if s.prestige >= need_p else "town_health")
    if reached:
        return Victory(tiebreak(reached), "tiebreak")
    limit = options.get("max_turns")
    if limit is not None and last_phase and turn >= int(limit):
        return Victory(tiebreak(standings), "turn_limit")
    return None


def solo_end(
    standings: Mapping[str, Standing], options: Mapping[str, Any], turn: int, last_phase: bool
) -> Victory | None:
    """Return the solo result: a Prestige or Town Health victory, or a loss at the turn limit."""
    ((seat, s),) = standings.items()
    need_p, need_th = thresholds(options)
    if s.prestige >= need_p:
        return Victory((seat,), "prestige")
    if s.town_health >= need_th:
        return Victory((seat,), "town_health")
    limit = options.get("max_turns")
    if limit is not None and last_phase and turn >= int(limit):
        return Victory((), "turn_limit")
    return None


def solo2_end(
    standings: Mapping[str, Standing],
    opposing: Mapping[str, Standing],
    options: Mapping[str, Any],
    turn: int,
    last_phase: bool,
) -> Victory | None:
    """Return the Solo II result when the opposing factions can win (card data 3 on).

    Their markers race on the same victory tracks, so the first to 20 Prestige or 80 Town
    Health wins; reached together, the core tie-break decides among those who reached it (a
    share with the player is the player's win too). Nobody by the turn limit: a loss."""
    ((seat, s),) = standings.items()
    need_p, need_th = thresholds(options)
    every = {seat: s, **opposing}
    reached = {k: x for k, x in every.items() if x.prestige >= need_p or x.town_health >= need_th}
    if set(reached) == {seat}:
        return solo_end(standings, options, turn, last_phase)
    if reached:
        best = tiebreak(reached)
        others = tuple(k for k in best if k != seat)
        if seat in best:
            return Victory((seat,), "tiebreak", others)
        return Victory((), "opposing_faction", others)
    return solo_end(standings, options, turn, last_phase)


def clamp_track(track: str, value: int) -> int:
    """Return a track value kept within 0..20 Prestige or 0..80 Town Health."""
    top = int(economy()["victory"][track])
    return max(0, min(top, value))
