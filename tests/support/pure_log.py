"""A game's stored log built from a pure playout, without a store or services."""

from __future__ import annotations

from dataclasses import replace

from services.platform.canonical import GENESIS_HASH
from services.platform.envelope import Envelope, NewEvent
from services.platform.games import GAME_CREATED, GAME_ENDED
from services.platform.store.base import seal
from services.rules.engine.api import GameRules, Setup
from services.rules.playout import Playout, play
from services.rules.runner import to_new_event


def envelopes(rules: GameRules, game_id: str, seats: dict[str, str], p: Playout) -> list[Envelope]:
    """Return the game stream the runner would have stored for a playout, one append per batch."""
    stream = f"game-{game_id}"
    created = NewEvent(GAME_CREATED, {"game": rules.game, "seats": seats, "options": {}})
    batches: list[list[NewEvent]] = []
    i = 0
    for n, size in enumerate(p.batches):
        batch = [to_new_event(e) for e in p.events[i : i + size]]
        batches.append([created, *batch] if n == 0 else batch)
        i += size
    outcome = rules.outcome(p.state) or {}
    batches.append(
        [NewEvent(GAME_ENDED, {"outcome": outcome, "state_hash": rules.state_hash(p.state)})]
    )
    out: list[Envelope] = []
    prev = GENESIS_HASH
    for n, batch in enumerate(b for b in batches if b):
        sealed = seal(stream, len(out) + 1, prev, batch, f"t{n:06d}")
        out += [replace(e, position=len(out) + k + 1) for k, e in enumerate(sealed)]
        prev = out[-1].hash
    return out


def played_log(rules: GameRules, game_id: str, seed: str) -> list[Envelope]:
    """Play a seeded random game purely and return its stored game stream."""
    seats = {seat: f"p-{seat}-{game_id}" for seat in rules.seats}
    return envelopes(rules, game_id, seats, play(rules, Setup(seats), seed, game_id))
