"""Record format 2: new Land games record only facts; games without it keep their log."""

from __future__ import annotations

from collections import Counter

import pytest

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Setup
from services.rules.land import RULES
from services.rules.playout import play


def _seats(n: int) -> dict[str, str]:
    return {f"p{i}": f"x{i}" for i in range(1, n + 1)}


@pytest.mark.parametrize("n", [2, 6])
def test_given_a_new_game_then_after_creation_no_event_is_engine_bookkeeping(n: int) -> None:
    # given a new game's options (pinned as the runner pins them: record format 2)
    options = RULES.new_game_options({"short_game": True, "max_turns": 2})
    assert options["record_format"] == 2
    # when it is played out
    p = play(RULES, Setup(_seats(n), options), f"facts-{n}", f"lf{n}")
    played = Counter(e.type for e in p.events[p.batches[0] :])
    # then no task queue, continuation or var is an event of its own, a counter change rides
    # on its fact unless it is a deck count or the command's only fact, and replay is exact
    assert not {"flow", "var_set", "vars_set"} & set(played)
    assert sum("_counters" in e.data for e in p.events) > 0
    start = p.batches[0]
    for size in p.batches[1:]:
        batch = p.events[start : start + size]
        public = {e.type for e in batch if e.visibility == "public"}
        for e in batch:
            if e.type == "counter_changed" and not e.data["key"].startswith("deck."):
                assert public == {"counter_changed"}, [x.type for x in batch]
        start += size
    state = RULES.initial_state()
    for e in p.events:
        state = RULES.evolve(state, e)
    assert RULES.state_hash(state) == RULES.state_hash(p.state)


def test_given_options_without_a_record_format_then_the_log_keeps_its_bookkeeping() -> None:
    # given a game created before record format 2 (its options do not name one)
    p = play(RULES, Setup(_seats(2), {"short_game": True, "max_turns": 1}), "old", "lo")
    # then its log is recorded as it always was
    assert {"flow", "var_set"} <= {e.type for e in p.events}


def test_an_unknown_record_format_is_refused_naming_the_field() -> None:
    with pytest.raises(InvalidArgument) as err:
        RULES.initial_events("g", Setup(_seats(2), {"record_format": 9}))
    assert "record_format" in str(err.value)
