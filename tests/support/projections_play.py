"""Random legal playouts through a GameRunner, for the projection, replay and audit tests."""

from __future__ import annotations

import importlib
import random
from typing import Any

from services.dice.engine import DiceEngine
from services.platform.store.base import EventStore
from services.rules.engine.api import GameRules
from services.rules.runner import GameRunner
from tests.support.toy_game import RULES as TOY

MAX_STEPS = 2000


def engines() -> dict[str, GameRules]:
    """Return the engines to play: the toy always, Fallen when it imports and has RULES."""
    out: dict[str, GameRules] = {"toy": TOY}
    try:
        fallen = importlib.import_module("services.rules.fallen")
        out["fallen"] = fallen.RULES
    except Exception:
        pass
    return out


def players(rules: GameRules, game_id: str) -> dict[str, str]:
    """Return seat -> player id for a game."""
    return {seat: f"p-{seat}-{game_id}" for seat in rules.seats}


def runner_for(store: EventStore, games: dict[str, GameRules] | None = None) -> GameRunner:
    """Return a GameRunner with in-process dice over store, serving the test engines."""
    return GameRunner(store, DiceEngine(store), games or engines())


async def play(
    runner: GameRunner,
    game: str,
    game_id: str,
    rng: random.Random,
    steps: int | None = None,
    options: dict[str, Any] | None = None,
) -> bool:
    """Create a game and play random legal commands (all of them, or `steps`); return ended."""
    rules = runner.extra[game]
    loaded, _ = await runner.create(game, game_id, players(rules, game_id), options or {})
    done = 0
    while not loaded.ended and done < (steps if steps is not None else MAX_STEPS):
        pending = rules.pending(loaded.state)
        if pending is None:
            break
        legal = rules.legal_commands(loaded.state, pending.seat)
        if not legal:
            raise AssertionError(f"{game_id}: {pending.seat} must act but has no legal command")
        loaded, _ = await runner.submit(game_id, rng.choice(legal))
        done += 1
    return loaded.ended


async def advance(runner: GameRunner, game_id: str, rng: random.Random, steps: int = 1) -> bool:
    """Play up to `steps` more random legal commands in an existing game; return ended."""
    loaded = await runner.load(game_id)
    for _ in range(steps):
        if loaded.ended:
            break
        pending = loaded.rules.pending(loaded.state)
        if pending is None:
            break
        legal = loaded.rules.legal_commands(loaded.state, pending.seat)
        loaded, _ = await runner.submit(game_id, rng.choice(legal))
    return loaded.ended


def rechain(records: list[dict[str, Any]], stream: str) -> list[dict[str, Any]]:
    """Return records with one stream's hashes recomputed (a forger's consistent chain)."""
    from services.platform.canonical import GENESIS_HASH, chain_hash

    out: list[dict[str, Any]] = []
    prev = GENESIS_HASH
    for rec in records:
        rec = dict(rec)
        if rec["stream"] == stream:
            rec["prev_hash"] = prev
            rec["hash"] = chain_hash(
                rec["stream"], rec["version"], rec["type"], rec["visibility"], rec["data"], prev
            )
            prev = rec["hash"]
        out.append(rec)
    return out


async def finished_game(
    store: EventStore, game: str = "toy", game_id: str = "t1", seed: int = 1
) -> GameRunner:
    """Play one game to its end in store; return the runner used."""
    runner = runner_for(store)
    assert await play(runner, game, game_id, random.Random(seed))
    return runner
