"""Bot policies: given a seat's view and legal commands, pick one (pure, deterministic)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from services.platform.grpcx.structs import struct_to_py


@dataclass(frozen=True)
class Choice:
    """One legal command as the API lists it."""

    kind: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Turn:
    """What a policy sees: game, seat, version, the seat's view and its legal commands."""

    game: str
    game_id: str
    seat: str
    version: int
    view: dict[str, Any]
    legal: Sequence[Choice]
    seed: str


Policy = Callable[[Turn], int]

# Per-game policies live next to each engine, in services/rules/<game>/policies.py or else
# services/rules/<game>/bot.py, exposing POLICIES: dict[str, Policy]; loaded on demand.


def stable_index(turn: Turn, salt: str = "") -> int:
    """Return an index into turn.legal chosen by hashing the seed, game, seat and version."""
    text = f"{turn.seed}:{turn.game_id}:{turn.seat}:{turn.version}:{salt}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") % len(turn.legal)


def random_legal(turn: Turn) -> int:
    """Return a uniformly chosen legal command (reproducible from the bot seed)."""
    return stable_index(turn)


def first_legal(turn: Turn) -> int:
    """Return the first legal command."""
    return 0


# "easy" is the bot level a player picks for a quick game: a uniformly random legal move
BUILTIN: dict[str, Policy] = {"easy": random_legal, "random": random_legal, "first": first_legal}
# Policies that never read Turn.view: a bot playing one picks without waiting for its seat's
# view on the read side (docs/decisions.md, "Bot seats are played by a worker pool").
VIEW_BLIND: frozenset[Policy] = frozenset({random_legal, first_legal})


def reads_view(policy: Policy) -> bool:
    """Whether a policy looks at the seat's view (a bot then reads it before it picks)."""
    return policy not in VIEW_BLIND


def policy_for(game: str, name: str) -> Policy:
    """Return a named policy: a built-in one or the game's own heuristic."""
    if name in BUILTIN:
        return BUILTIN[name]
    module = None
    for leaf in ("policies", "bot"):
        spec = f"services.rules.{game}.{leaf}"
        with contextlib.suppress(ModuleNotFoundError):
            if importlib.util.find_spec(spec) is not None:
                module = importlib.import_module(spec)
                break
    if module is None:
        raise ValueError(f"no policy {name!r} for {game}; built-in: {sorted(BUILTIN)}")
    policies: dict[str, Policy] = getattr(module, "POLICIES", {})
    if name not in policies:
        raise ValueError(
            f"no policy {name!r} for {game}; choose from {sorted([*BUILTIN, *policies])}"
        )
    return policies[name]


def parse_choices(commands: Sequence[Any]) -> list[Choice]:
    """Return Choice objects from LegalCommand messages."""
    return [Choice(c.kind, struct_to_py(c.args)) for c in commands]
