"""The Worlds golden playthrough: record with `python -m tests.unit.rules.worlds.golden`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.bots.policies import policy_for
from services.rules.engine.api import Command, Event, Setup
from services.rules.playout import play
from services.rules.registry import load
from tests.unit.rules.fallen.golden import dump, events_digest

RULES = load("worlds")
GOLDEN = Path(__file__).parents[3] / "golden" / "worlds_playthrough.json"
SEED = "golden-worlds-1"
SEATS = {"p1": "alice", "p2": "bob"}
OPTIONS = {"decks": {"p1": "uea", "p2": "draga"}}

__all__ = ["GOLDEN", "OPTIONS", "RULES", "SEATS", "dump", "events_digest", "record"]


def record() -> dict[str, Any]:
    """Play the seeded game (heuristic p1, random p2) and record every command and answer."""
    commands: list[Command] = []
    original = RULES.step  # the kernel engine decides and folds in one step during play

    def recording(state: Any, command: Command) -> tuple[list[Event], Any]:
        commands.append(command)
        return original(state, command)

    RULES.step = recording  # type: ignore[method-assign]
    try:
        policies = {"p1": policy_for("worlds", "heuristic")}
        p = play(RULES, Setup(SEATS, OPTIONS), SEED, "golden", policies=policies)
    finally:
        RULES.step = original  # type: ignore[method-assign]
    return {
        "seed": SEED,
        "seats": SEATS,
        "options": OPTIONS,
        "commands": [[c.seat, c.kind, dict(c.args)] for c in commands],
        "events": len(p.events),
        "events_digest": events_digest(list(p.events)),
        "final_state_hash": RULES.state_hash(p.state),
        "outcome": RULES.outcome(p.state),
    }


if __name__ == "__main__":
    GOLDEN.write_text(dump(record()))
    print(f"wrote {GOLDEN}")
