"""The map: terrain per hex, numbered hexes, resources, towns, adjacency and distances."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cache

from services.rules.land.data import factions, load

Hex = tuple[int, int]


@dataclass(frozen=True)
class Resource:
    """A Resource Location: id, name, hex and its yield per Resource Production."""

    id: str
    name: str
    at: Hex
    yields: tuple[tuple[str, int | str], ...]


@dataclass(frozen=True)
class GameMap:
    """The whole board: terrain by hex, numbered hexes, resources and faction towns."""

    width: int
    height: int
    terrain: dict[Hex, frozenset[str]]
    impassable: frozenset[str]
    numbered: dict[int, Hex]
    resources: dict[str, Resource]
    towns: dict[int, Hex]
    number_by_hex: dict[Hex, int]
    blocked: frozenset[Hex] = frozenset()  # hexes made impassable in play (God's Hammer)

    def passable(self, h: Hex) -> bool:
        """Return whether a party may enter the hex."""
        t = self.terrain.get(h)
        return t is not None and not (t & self.impassable) and h not in self.blocked

    def neighbours(self, h: Hex) -> list[Hex]:
        """Return the passable hexes adjacent to h (odd-q offset layout, y northwards)."""
        return [n for n in _adjacent(h) if self.passable(n)]

    def number_of(self, h: Hex) -> int | None:
        """Return the hex's number (1-100) or None."""
        return self.number_by_hex.get(h)

    def resource_at(self, h: Hex) -> Resource | None:
        """Return the Resource Location on a hex, if any."""
        for r in self.resources.values():
            if r.at == h:
                return r
        return None


def adjacent(h: Hex) -> list[Hex]:
    """Return every hex position next to h, passable or not."""
    return _adjacent(h)


def _adjacent(h: Hex) -> list[Hex]:
    x, y = h
    # odd columns sit half a hex higher (north): their diagonal neighbours are y and y+1
    up = 1 if x % 2 else 0
    return [
        (x, y + 1),
        (x, y - 1),
        (x - 1, y - 1 + up),
        (x - 1, y + up),
        (x + 1, y - 1 + up),
        (x + 1, y + up),
    ]


@cache
def game_map() -> GameMap:
    """Return the map loaded from data/map.yaml (once)."""
    raw = load("map")
    legend = {str(k): frozenset(v) for k, v in raw["legend"].items()}
    rows = raw["rows"]
    height = int(raw["height"])
    terrain: dict[Hex, frozenset[str]] = {}
    for i, row in enumerate(rows):
        y = height - 1 - i
        for x, ch in enumerate(row):
            terrain[(x, y)] = legend[ch]
    resources = {
        r["id"]: Resource(r["id"], r["name"], (r["at"][0], r["at"][1]), tuple(r["yield"].items()))
        for r in raw["resources"]
    }
    numbered = {int(n): (xy[0], xy[1]) for n, xy in raw["numbered"].items()}
    return GameMap(
        width=int(raw["width"]),
        height=height,
        terrain=terrain,
        impassable=frozenset(raw["impassable"]),
        numbered=numbered,
        resources=resources,
        towns={roll: (f["at"][0], f["at"][1]) for roll, f in factions().items()},
        number_by_hex={h: n for n, h in numbered.items()},
    )


def distances(m: GameMap, start: Hex, mountain_cost: int = 1) -> dict[Hex, int]:
    """Return the movement cost from start to every reachable hex (entering mountain costs more)."""
    if m is game_map():
        return _board_distances(start, mountain_cost)
    return _distances(m, start, mountain_cost)


@cache
def _board_distances(start: Hex, mountain_cost: int) -> dict[Hex, int]:
    return _distances(game_map(), start, mountain_cost)


def _distances(m: GameMap, start: Hex, mountain_cost: int) -> dict[Hex, int]:
    best = {start: 0}
    frontier: deque[Hex] = deque([start])
    while frontier:
        h = frontier.popleft()
        for n in m.neighbours(h):
            step = mountain_cost if "mountain" in m.terrain[n] else 1
            d = best[h] + step
            if d < best.get(n, 1 << 30):
                best[n] = d
                frontier.append(n)
    return best


def reachable(m: GameMap, start: Hex, points: int, mountain_cost: int) -> list[Hex]:
    """Return the hexes a party can reach with `points` movement points, sorted."""
    return sorted(h for h, d in distances(m, start, mountain_cost).items() if 0 < d <= points)


def step_toward(m: GameMap, start: Hex, goal: Hex, points: int, mountain_cost: int) -> Hex:
    """Return where a mover with `points` ends when heading for goal along a cheapest path."""
    to_goal = distances(m, goal, mountain_cost)
    if start not in to_goal:
        return start
    here, left = start, points
    while here != goal:
        options = [n for n in m.neighbours(here) if n in to_goal]
        nxt = min(options, key=lambda n: (to_goal[n], n))
        cost = mountain_cost if "mountain" in m.terrain[nxt] else 1
        if cost > left or to_goal[nxt] >= to_goal[here]:
            break
        here, left = nxt, left - cost
    return here


def hex_steps(a: Hex, b: Hex, limit: int) -> int | None:
    """Return how many hexes apart a and b are (any terrain), or None when over `limit`."""
    seen, ring = {a}, [a]
    for d in range(limit + 1):
        if b in ring:
            return d
        ring = [n for h in ring for n in _adjacent(h) if n not in seen]
        seen.update(ring)
    return None
