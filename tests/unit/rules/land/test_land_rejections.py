"""Generated bad commands: the engine answers InvalidArgument or RuleViolation, nothing else."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.engine.api import Command, Setup
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.engine import SCHEMAS
from services.rules.playout import play


@cache
def _midgame() -> State:
    """Return a state two thirds into a short game (a decision pending)."""
    seats = {"p1": "a", "p2": "b", "p3": "c"}
    events = play(RULES, Setup(seats, {"max_turns": 2}), "rej", "rej").events
    state = RULES.initial_state()
    for ev in events[: len(events) * 2 // 3]:
        state = RULES.evolve(state, ev)
    return state


values = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.text(max_size=12))
args = st.dictionaries(
    st.sampled_from(
        [
            "card",
            "to",
            "deed",
            "x",
            "y",
            "tech",
            "target",
            "deck",
            "crown",
            "cards",
            "resource",
            "zz",
        ]
    ),
    st.one_of(values, st.lists(st.text(max_size=6), max_size=3)),
    max_size=3,
)
kinds = st.one_of(st.sampled_from(sorted(SCHEMAS)), st.text(max_size=10))
seats = st.sampled_from(["p1", "p2", "p3", "p4", "chance", "x"])


@settings(max_examples=300, deadline=None)
@given(seats, kinds, args)
def test_generated_commands_are_refused_cleanly(seat: str, kind: str, a: dict) -> None:
    state = _midgame()
    legal = {
        (c.seat, c.kind, repr(sorted(c.args.items()))) for c in RULES.legal_commands(state, seat)
    }
    if (seat, kind, repr(sorted(a.items()))) in legal:
        return
    try:
        RULES.decide(state, Command(seat, kind, a))
    except (InvalidArgument, RuleViolation) as exc:
        assert str(exc)  # a reason the client can read
    else:
        raise AssertionError(f"accepted an illegal command {seat} {kind} {a}")
