"""The state's zones, counters and vars are read-only dicts: reads are plain, edits raise."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from services.rules.engine.api import Event
from services.rules.engine.state import FrozenMap, State, evolve, put


def test_given_a_folded_state_when_a_rule_edits_its_maps_in_place_then_it_is_refused():
    # given a state with a zone, a counter and a var
    state = State()
    for type_, data in (
        ("zone_set", {"zone": "hand", "cards": ["c1"]}),
        ("counter_changed", {"key": "gold", "delta": 2}),
        ("var_set", {"key": "turn", "value": 1}),
    ):
        state = evolve(state, Event(type_, data))
    # when a rule tries to edit any of them in place, then each edit raises TypeError
    for mapping in (state.zones, state.counters, state.vars):
        assert isinstance(mapping, FrozenMap)
        edits = (
            lambda m: m.__setitem__("x", 1),
            lambda m: m.__delitem__(next(iter(m))),
            lambda m: m.update(x=1),
            lambda m: m.pop(next(iter(m))),
            lambda m: m.setdefault("x", 1),
            lambda m: m.popitem(),
            lambda m: m.clear(),
        )
        for edit in edits:
            with pytest.raises(TypeError):
                edit(mapping)
    # and the state is unchanged
    assert state.zone("hand") == ("c1",) and state.count("gold") == 2 and state.var("turn") == 1


def test_given_a_frozen_map_when_copied_encoded_or_changed_by_put_then_it_behaves_as_a_dict():
    # given a read-only map
    m = put(FrozenMap({"a": 1}), "b", 2)
    # when it is encoded, pickled, copied and changed through put
    later = put(m, "a", None)
    # then it reads as a dict, survives copies, and put leaves the original alone
    assert json.dumps(m, sort_keys=True) == '{"a": 1, "b": 2}'
    assert pickle.loads(pickle.dumps(m)) == m == copy.deepcopy(m) == {"a": 1, "b": 2}
    assert later == {"b": 2} and m == {"a": 1, "b": 2}
    assert isinstance(later, FrozenMap)
