"""The parts of a view every seat sees alike are built once per state and shared.

The projections write one view per seat and one for spectators after each batch; the
seat-independent parts (phase, counters, vars, characters, pending, exhausted, light) are
built and encoded once per state. These pin that the sharing cannot change what a view
says: the parts are read-only, equal what a fresh build gives, and never outlive their
state.
"""

from __future__ import annotations

import pytest

from services.platform.canonical import canonical_json
from services.rules.fallen import RULES
from services.rules.fallen.state import DL, HERO
from services.rules.fallen.texts import SharedPart
from services.rules.fallen.view import _LAST, build_view
from tests.unit.rules.fallen.test_fallen_served_texts import _states

SHARED = ("characters", "counters", "vars", "pending")


def test_given_one_state_when_every_seat_is_viewed_then_they_share_the_same_parts() -> None:
    state = _states("shared-1")[0]
    views = [build_view(state, seat) for seat in (HERO, DL, None)]
    for key in SHARED:
        assert views[0][key] is views[1][key] is views[2][key]
        assert isinstance(views[0][key], SharedPart)
    assert views[0]["zones"] is not views[1]["zones"]  # what differs per seat is its own


def test_given_a_shared_part_when_a_caller_changes_it_then_it_is_refused() -> None:
    view = build_view(_states("shared-2")[0], HERO)
    with pytest.raises(TypeError):
        view["counters"]["fortune.hero"] = 99
    with pytest.raises(TypeError):
        view["vars"].pop("phase", None)


def test_given_a_shared_part_then_its_text_is_canonical_json_of_its_content() -> None:
    for state in _states("shared-3", every=31):
        for key in SHARED:
            part = build_view(state, None)[key]
            if part is not None:
                assert part.canonical_text() == canonical_json(dict(part))


@pytest.mark.parametrize("seed", ["shared-4", "shared-5"])
def test_given_consecutive_states_then_each_view_is_what_a_fresh_build_gives(seed: str) -> None:
    for state in _states(seed, every=7):
        shared = build_view(state, HERO)
        _LAST[0] = (None, 0, {})  # forget the memo: a build from scratch
        fresh = build_view(state, HERO)
        assert canonical_json(shared) == canonical_json(fresh)
        assert shared["counters"] == dict(sorted(state.counters.items()))
        assert shared["phase"] == state.phase


def test_given_a_later_state_then_its_view_is_not_the_earlier_states() -> None:
    first, second = _states("shared-6", every=13)[:2]
    a, b = build_view(first, None), build_view(second, None)
    assert a["counters"] is not b["counters"]
    assert build_view(first, None)["counters"] == a["counters"]
    assert RULES.view(second, HERO)["vars"] == b["vars"]
