"""Solo Variant II as pure functions: challenge levels, OFTEC rows and Secondary Effects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from services.rules.land.data import card, load

SE_KINDS = (
    "nothing",
    "lose_salvage_1d6",
    "red_dot_1",
    "red_dot_2",
    "choose_resource",
    "farthest_resource",
    "discard_roster",
    "discard_priciest_spoils",
    "lose_last_tech",
    "pvp",
)


@cache
def solo2() -> dict[str, Any]:
    """Return the Solo Variant II data (services/rules/land/data/solo2.yaml)."""
    return dict(load("solo2"))


@dataclass(frozen=True)
class Challenge:
    """A challenge level: opposing factions, OFTEC rolls each turn, SE cap each turn."""

    level: int
    factions: int
    rolls: int
    se_cap: int


def challenge(level: int) -> Challenge:
    """Return a challenge level 1-4 as listed under "Challenge Level For Variant II"."""
    row = solo2()["challenges"].get(level)
    if row is None:
        raise ValueError(f"a challenge level is 1-4, not {level}")
    return Challenge(level, int(row["factions"]), int(row["rolls"]), int(row["se_cap"]))


def roller(c: Challenge, turn: int, j: int) -> int:
    """Return which opposing faction (index) the j-th OFTEC roll of a turn is for.

    With as many rolls as factions each faction rolls once; the Ultimate challenge's three
    rolls rotate over its four factions (ours, docs/games/land.md register 35).
    """
    return (c.rolls * (turn - 1) + j) % c.factions


@dataclass(frozen=True)
class Row:
    """An OFTEC row: the opposing faction's gains, whether it loses its next roll, its SE."""

    roll: int
    town_health: int
    prestige: int
    lose_next_roll: bool
    se: str | Mapping[int, str] | None


def row(roll: int) -> Row:
    """Return the OFTEC row of a 1d10 roll."""
    if not 1 <= roll <= 10:
        raise ValueError(f"a d10 shows 1-10, not {roll}")
    r = solo2()["rows"][roll]
    se = r["se"]
    if isinstance(se, dict):
        se = {int(k): str(v) for k, v in se["d6"].items()}
    return Row(roll, int(r["town_health"]), int(r["prestige"]), bool(r.get("lose_next_roll")), se)


def se_of(r: Row, d6: int | None) -> str:
    """Return the Secondary Effect kind of a row, reading a d6 split when it has one."""
    if r.se is None:
        return "nothing"
    if isinstance(r.se, str):
        return r.se
    if d6 is None or d6 not in r.se:
        raise ValueError(f"row {r.roll} needs a d6 (1-6), not {d6}")
    return r.se[d6]


def opposing_tracks(town_health: int, prestige: int, r: Row) -> tuple[int, int]:
    """Return an opposing faction's Town Health and Prestige after a row (kept 0-80 / 0-20)."""
    return min(80, max(0, town_health + r.town_health)), min(20, max(0, prestige + r.prestige))


def farthest(distances: Mapping[str, int]) -> list[str]:
    """Return the owned Resources tied for farthest from the party ("If tied, you choose")."""
    if not distances:
        return []
    far = max(distances.values())
    return sorted(r for r, d in distances.items() if d == far)


def priciest(cards: Sequence[str]) -> list[str]:
    """Return the Auction House Spoils tied for most expensive (by Salvage Coin value)."""
    if not cards:
        return []
    top = max(int(card(c)["value"]) for c in cards)
    return sorted(c for c in cards if int(card(c)["value"]) == top)


def last_tech(equipped: Sequence[str], held: Mapping[str, int]) -> str | None:
    """Return the Town Technology equipped last that the town still holds."""
    for t in reversed(equipped):
        if held.get(t, 0) > 0:
            return t
    return None


def pvp_cap(c: Challenge) -> int:
    """Return how many PVP parties or NPCMs may be in play (two in the Ultimate challenge)."""
    caps = solo2()["pvp_in_play"]
    return int(caps["ultimate"] if c.level == 4 else caps["standard"])


def pvp_option_1_pick(cards: Sequence[str]) -> int | None:
    """Return the index of the first Bounty Hunter, Assassin or Hitman NPCM drawn, if any."""
    classes = solo2()["pvp_option_1_classes"]
    for i, c in enumerate(cards):
        info = card(c).get("npcm")
        if info and info["class"] in classes:
            return i
    return None


def red_dot_deck(action: Sequence[str]) -> tuple[str, ...]:
    """Return the Red Dot Action deck: every Red Dot Action card plus the nine NPCMs."""
    return tuple(c for c in action if card(c).get("red_dot") or "npcm" in card(c))


def opposing_id(faction_roll: int) -> str:
    """Return the key of an opposing faction in counters and zones (`of3` for faction 3)."""
    return f"of{faction_roll}"
