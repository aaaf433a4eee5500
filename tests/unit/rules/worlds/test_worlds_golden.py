"""The Worlds golden playthrough replays exactly through decide and evolve."""

from __future__ import annotations

import json

from services.rules.engine.api import Command, Event, Setup
from tests.unit.rules.worlds.golden import GOLDEN, RULES, events_digest


def test_given_the_golden_commands_when_replayed_then_events_and_final_state_match() -> None:
    # given the recorded playthrough (every seat's command and every chance answer)
    golden = json.loads(GOLDEN.read_text())
    assert golden["commands"], "the golden game records its commands"
    # when its commands are decided and folded from a fresh game (not the engine's step)
    setup = Setup(golden["seats"], golden["options"])
    events: list[Event] = list(RULES.initial_events("golden", setup))
    state = RULES.initial_state()
    for ev in events:
        state = RULES.evolve(state, ev)
    for seat, kind, args in golden["commands"]:
        new = RULES.decide(state, Command(seat, kind, args))
        for ev in new:
            state = RULES.evolve(state, ev)
        events.extend(new)
    # then the game ends as recorded, event for event, with the same final state
    assert RULES.pending(state) is None
    assert RULES.outcome(state) == golden["outcome"]
    assert len(events) == golden["events"]
    assert events_digest(events) == golden["events_digest"]
    assert RULES.state_hash(state) == golden["final_state_hash"]
