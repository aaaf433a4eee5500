"""The Fallen golden playthrough: record with `python -m tests.unit.rules.fallen.golden`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from services.platform.canonical import canonical_json
from services.rules.engine.api import Command, Event, Setup
from services.rules.fallen import RULES
from services.rules.fallen.bot import heuristic
from services.rules.playout import play

GOLDEN = Path(__file__).parents[3] / "golden" / "fallen_playthrough.json"
SEED = "golden-1"
SEATS = {"hero": "alice", "dungeon_lord": "bob"}


def events_digest(events: list[Event]) -> str:
    """Return a SHA-256 over every event's type, payload and visibility, in order."""
    h = hashlib.sha256()
    for ev in events:
        vis = ev.visibility if isinstance(ev.visibility, str) else list(ev.visibility)
        h.update(canonical_json([ev.type, dict(ev.data), vis]).encode())
    return h.hexdigest()


def record() -> dict[str, Any]:
    """Play the seeded game (heuristic hero, random Dungeon Lord) and record every command."""
    commands: list[Command] = []
    original = RULES.step

    def recording(state: Any, command: Command) -> tuple[list[Event], Any]:
        commands.append(command)
        return original(state, command)

    RULES.step = recording  # type: ignore[method-assign]
    try:
        p = play(RULES, Setup(SEATS), SEED, "golden", policies={"hero": heuristic})
    finally:
        del RULES.step  # the class's method again
    return {
        "seed": SEED,
        "seats": SEATS,
        "commands": [[c.seat, c.kind, dict(c.args)] for c in commands],
        "events": len(p.events),
        "events_digest": events_digest(list(p.events)),
        "final_state_hash": RULES.state_hash(p.state),
        "outcome": RULES.outcome(p.state),
    }


def dump(rec: dict[str, Any]) -> str:
    """Return the record as JSON with one command per line (reviewable diffs)."""
    head = {k: v for k, v in rec.items() if k != "commands"}
    lines = ",\n".join(json.dumps(c, sort_keys=True) for c in rec["commands"])
    return json.dumps(head, sort_keys=True)[:-1] + ',\n"commands": [\n' + lines + "\n]}\n"


if __name__ == "__main__":
    GOLDEN.write_text(dump(record()))
    print(f"wrote {GOLDEN}")
