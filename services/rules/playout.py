"""Whole games in-process with no services: bots pick legal commands, chance uses the fair scheme.

Used by benchmarks and property tests. Chance answers (dice and decks) come from the
kernel's Dealer over services/dice/fair.py with a fixed seed, so a playout is
reproducible and uses the same draws the dice and deck services would make.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from services.bots.policies import Choice, Policy, Turn
from services.rules.engine.api import (
    CHANCE,
    ChanceRequest,
    Command,
    Event,
    GameRules,
    Setup,
    seal_options,
)
from services.rules.engine.dealer import Dealer

MAX_STEPS: Final = 50_000


@dataclass(frozen=True)
class Playout:
    """A finished playout: every event, the final state and how many commands it took."""

    events: tuple[Event, ...]
    state: Any
    commands: int
    chance_answers: int
    batches: tuple[int, ...] = ()  # events per append: the creation, then one per command


def chance_answer(seed: bytes, game_id: str, nonce: int, req: ChanceRequest) -> Command:
    """Return chance's command for a dice request, drawn with the fair scheme (pure)."""
    dealer = Dealer(seed, game_id)
    dealer.nonce = nonce
    return dealer.answer(req)


def pick(legal: list[Command], seed: str, step: int) -> Command:
    """Return one legal command chosen by hashing the seed and step."""
    digest = hashlib.sha256(f"{seed}:{step}".encode()).digest()
    return legal[int.from_bytes(digest[:8], "big") % len(legal)]


def play(
    rules: GameRules,
    setup: Setup,
    seed: str,
    game_id: str = "playout",
    policies: Mapping[str, Policy] | None = None,
) -> Playout:
    """Play one game to the end (random legal commands unless a seat has a policy)."""
    dice_seed = hashlib.sha256(f"dice:{seed}".encode()).digest()
    public, sealed = seal_options(rules, setup.options)
    events: list[Event] = list(rules.initial_events(game_id, Setup(setup.seats, public)))
    batches = [len(events)]
    state = rules.initial_state()
    for ev in events:
        state = rules.evolve(state, ev)
    dealer = Dealer(dice_seed, game_id)
    dealer.place(sealed)
    commands = answers = 0
    chosen_by = policies or {}
    fast = getattr(rules, "step", None)  # a kernel engine folds while it decides
    for step in range(MAX_STEPS):
        pending = rules.pending(state)
        if pending is None:
            return Playout(tuple(events), state, commands, answers, tuple(batches))
        if pending.seat == CHANCE:
            assert pending.chance is not None
            command = dealer.answer(pending.chance)
            answers += 1
        else:
            legal = rules.legal_commands(state, pending.seat)
            if not legal:
                raise AssertionError(
                    f"seat {pending.seat} must act ({pending.kind}) but has no legal command"
                )
            policy = chosen_by.get(pending.seat)
            if policy is None:
                command = pick(legal, seed, step)
            else:
                choices = [Choice(c.kind, dict(c.args)) for c in legal]
                view = rules.view(state, pending.seat)
                turn = Turn(rules.game, game_id, pending.seat, step, view, choices, seed)
                command = legal[policy(turn)]
            commands += 1
        if fast is not None:
            new, state = fast(state, command)
        else:
            new = rules.decide(state, command)
            for ev in new:
                state = rules.evolve(state, ev)
        events.extend(new)
        batches.append(len(new))
    raise AssertionError(f"game did not end within {MAX_STEPS} steps")
