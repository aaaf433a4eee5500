"""What each game's balance run plays: the pairings, and one seeded bot game of a pairing.

A task names one game to play (strings and numbers only, so it crosses to a worker
process); ``play_task`` plays it in-process on the game's real rules engine with the stock
heuristic bots on every seat (``services.rules.playout.play``: chance from the fair scheme
under the task's seed, so a task always plays the same game) and returns who won.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from services.bots.policies import Policy, Turn, policy_for
from services.rules.engine.api import GameRules, Setup
from services.rules.playout import play
from services.rules.registry import load

GAMES: Final = ("fallen", "worlds", "land")
SOLO_LEVELS: Final = (1, 2, 3, 4)  # Solo Variant II challenge: 1-4 opposing factions


@dataclass(frozen=True)
class Task:
    """One seeded game of a pairing: which game, its contestants and options."""

    game: str
    kind: str  # worlds: "factions"; fallen: "characters"; land: "epic", "solo1", "solo2"
    first: str  # worlds: p1's faction; fallen: the Hero; land: "" (or the Solo II level)
    second: str  # worlds: p2's faction; fallen: the Dungeon Lord
    seed: str
    card_data: int | None = None


Outcome = tuple[tuple[str, str, bool], ...]


@dataclass(frozen=True)
class Played:
    """A finished game: per matrix cell (row, column) whether the row won, and per
    contestant (group, label) whether it won."""

    cells: Outcome
    contestants: Outcome


@dataclass(frozen=True)
class Pinned:
    """A policy that answers one setup choice (a character) itself and leaves the rest."""

    policy: Policy
    kind: str
    character: str

    def __call__(self, turn: Turn) -> int:
        for i, c in enumerate(turn.legal):
            if c.kind == self.kind and c.args.get("character") == self.character:
                return i
        return self.policy(turn)


def rules_of(game: str) -> GameRules:
    """The rules engine of a game (imported on demand: a worker loads only its game)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games: {GAMES}")
    return load(game)


def factions() -> tuple[str, ...]:
    """The Worlds factions (each has a starter deck named after it)."""
    from services.rules.worlds.vocab import FACTIONS

    return FACTIONS


def characters(card_data: int | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The Fallen Heroes and Dungeon Lords of a card-data version (the newest by default)."""
    from services.rules.fallen.cards import LATEST, catalog_of

    cat = catalog_of(LATEST if card_data is None else card_data)
    return cat.heroes, cat.dungeon_lords


def tasks(game: str, games: int, seed: str, card_data: int | None = None) -> list[Task]:
    """Every game of a run: ``games`` per pairing (per seat order for Worlds)."""
    if games < 1:
        raise ValueError("games per pairing must be at least 1")
    pairs: list[tuple[str, str, str]]
    if game == "worlds":
        pairs = [("factions", a, b) for a, b in itertools.permutations(factions(), 2)]
    elif game == "fallen":
        heroes, lords = characters(card_data)
        pairs = [("characters", h, d) for h, d in itertools.product(heroes, lords)]
    elif game == "land":
        pairs = [("epic", "", ""), ("solo1", "", "")]
        pairs += [("solo2", str(level), "") for level in SOLO_LEVELS]
    else:
        raise ValueError(f"unknown game {game!r}; games: {GAMES}")
    return [
        Task(game, kind, a, b, f"{seed}:{game}:{kind}:{a}:{b}:{i}", card_data)
        for kind, a, b in pairs
        for i in range(games)
    ]


def _options(task: Task, extra: Mapping[str, Any]) -> dict[str, Any]:
    options = dict(extra)
    if task.card_data is not None:
        options["card_data"] = task.card_data
    return options


def _game(task: Task, seats: Mapping[str, str], options: Mapping[str, Any], bots: Any) -> Any:
    rules = rules_of(task.game)
    opts = getattr(rules, "new_game_options", dict)(_options(task, options))
    p = play(rules, Setup(dict(seats), opts), task.seed, "balance", policies=bots)
    outcome = rules.outcome(p.state) or {}
    return outcome


def play_task(task: Task) -> Played:
    """Play one task's game to the end and report who won."""
    if task.game == "worlds":
        return _worlds(task)
    if task.game == "fallen":
        return _fallen(task)
    return _land(task)


def _worlds(task: Task) -> Played:
    heuristic = policy_for("worlds", "heuristic")
    a, b = task.first, task.second
    out = _game(
        task,
        {"p1": "bot-1", "p2": "bot-2"},
        {"decks": {"p1": a, "p2": b}},
        {"p1": heuristic, "p2": heuristic},
    )
    p1, p2 = out.get("winner") == "p1", out.get("winner") == "p2"
    return Played(
        cells=((a, b, p1), (b, a, p2)),
        contestants=(
            ("faction", a, p1),
            ("faction", b, p2),
            ("seat", "p1", p1),
            ("seat", "p2", p2),
        ),
    )


def _fallen(task: Task) -> Played:
    heuristic = policy_for("fallen", "heuristic")
    hero, lord = task.first, task.second
    out = _game(
        task,
        {"hero": "hero-bot", "dungeon_lord": "dl-bot"},
        {},
        {
            "hero": Pinned(heuristic, "choose_hero", hero),
            "dungeon_lord": Pinned(heuristic, "choose_dungeon_lord", lord),
        },
    )
    won = out.get("winner") == "hero"
    lost = out.get("winner") == "dungeon_lord"
    return Played(
        cells=((hero, lord, won),),
        contestants=(
            ("hero", hero, won),
            ("dungeon lord", lord, lost),
            ("side", "hero", won),
            ("side", "dungeon_lord", lost),
        ),
    )


def solo_label(kind: str, level: str) -> str:
    """The column a solo game is counted in: ``Solo I`` or ``Solo II level N``."""
    return "Solo I" if kind == "solo1" else f"Solo II level {level}"


def _land(task: Task) -> Played:
    heuristic = policy_for("land", "heuristic")
    if task.kind == "epic":
        seats = {f"p{i}": f"bot-{i}" for i in range(1, 7)}
        out = _game(task, seats, {}, dict.fromkeys(seats, heuristic))
        winners = set(out.get("winners", ()))
        return Played(
            cells=tuple(("Epic", s, s in winners) for s in seats),
            contestants=tuple(("Epic seat", s, s in winners) for s in seats),
        )
    options: dict[str, Any] = {"variant": task.kind}
    if task.kind == "solo2":
        options["challenge"] = int(task.first)
    out = _game(task, {"p1": "player"}, options, {"p1": heuristic})
    label = solo_label(task.kind, task.first)
    player_won = "p1" in out.get("winners", ())
    return Played(
        cells=(("player", label, player_won),), contestants=(("solo", label, player_won),)
    )
