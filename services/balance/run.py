"""A balance run: play every task of a game (on all cores), tally cells and contestants."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from services.balance.contests import Played, Task, play_task, tasks
from services.balance.stats import Rate


@dataclass(frozen=True)
class Report:
    """The tallies of a run: the pairing matrix (row's wins against the column) and the
    win rate of every contestant, grouped (faction, seat, hero, ...), in first-seen order."""

    game: str
    games: int  # per pairing (per seat order for Worlds)
    seed: str
    card_data: int | None
    cells: dict[tuple[str, str], Rate]
    contestants: dict[tuple[str, str], Rate]
    seconds: float
    workers: int

    @property
    def rows(self) -> list[str]:
        """The matrix's row labels in first-seen order."""
        return list(dict.fromkeys(r for r, _ in self.cells))

    @property
    def columns(self) -> list[str]:
        """The matrix's column labels in first-seen order (the rows' order where they are
        also rows, as the factions of Worlds)."""
        cols = list(dict.fromkeys(c for _, c in self.cells))
        rows = self.rows
        return sorted(cols, key=lambda c: rows.index(c) if c in rows else len(rows))

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "game": self.game,
            "games_per_pairing": self.games,
            "seed": self.seed,
            "card_data": self.card_data,
            "workers": self.workers,
            "seconds": round(self.seconds, 1),
            "matrix": [
                {"row": r, "column": c, **rate.as_dict()} for (r, c), rate in self.cells.items()
            ],
            "contestants": [
                {"group": g, "label": label, **rate.as_dict()}
                for (g, label), rate in self.contestants.items()
            ],
        }


def tally(
    played: Iterable[Played],
) -> tuple[dict[tuple[str, str], Rate], dict[tuple[str, str], Rate]]:
    """Add up finished games into per-cell and per-contestant win counts."""
    cells: dict[tuple[str, str], list[int]] = {}
    who: dict[tuple[str, str], list[int]] = {}
    for p in played:
        for table, entries in ((cells, p.cells), (who, p.contestants)):
            for a, b, won in entries:
                count = table.setdefault((a, b), [0, 0])
                count[0] += int(won)
                count[1] += 1
    groups = list(dict.fromkeys(g for g, _ in who))
    ordered = sorted(who.items(), key=lambda kv: groups.index(kv[0][0]))  # stable in a group
    return (
        {k: Rate(w, n) for k, (w, n) in cells.items()},
        {k: Rate(w, n) for k, (w, n) in ordered},
    )


def default_workers() -> int:
    """All the cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def play_all(
    todo: list[Task], workers: int, progress: Callable[[int, int], None] | None = None
) -> list[Played]:
    """Play the tasks (in worker processes unless ``workers`` is 1), in task order."""
    done: list[Played] = []
    if workers <= 1:
        for task in todo:
            done.append(play_task(task))
            if progress:
                progress(len(done), len(todo))
        return done
    chunk = max(1, len(todo) // (workers * 8))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for played in pool.map(play_task, todo, chunksize=chunk):
            done.append(played)
            if progress:
                progress(len(done), len(todo))
    return done


def measure(
    game: str,
    games: int,
    seed: str = "balance",
    card_data: int | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Play ``games`` seeded bot games per pairing of a game and tally them."""
    todo = tasks(game, games, seed, card_data)
    n = workers or default_workers()
    started = time.perf_counter()
    cells, contestants = tally(play_all(todo, n, progress))
    return Report(
        game, games, seed, card_data, cells, contestants, time.perf_counter() - started, n
    )
