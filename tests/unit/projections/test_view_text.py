"""Views are encoded with remembered texts of unchanged parts: the text is canonical_json's,
byte for byte, whatever changed (values, types that compare equal, key order)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.canonical import canonical_json
from services.projections.viewtext import ViewText
from services.rules.engine.api import Setup
from services.rules.playout import play
from services.rules.registry import load

TEXT = st.text(max_size=8)
LEAF = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.0, 1.0, -1.5]) | TEXT
JSON = st.recursive(
    LEAF,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT, inner, max_size=5)
    ),
    max_leaves=400,
)


@settings(max_examples=80, deadline=None)
@given(views=st.lists(st.dictionaries(TEXT, JSON, max_size=4), min_size=1, max_size=6))
def test_given_any_views_when_encoded_in_turn_then_each_is_canonical_json(views):
    # given one encoder (it remembers the parts of every view it encoded)
    text = ViewText(max_entries=4)
    # when views are encoded one after another, then each text is the canonical one
    for view in views:
        assert text.encode(view) == canonical_json(view)


def test_given_equal_values_of_other_types_then_their_own_text_is_written():
    # given a large part seen once with ints, then equal (==) but with bools and floats
    big = {f"k{i}": [1, 0, 1] for i in range(200)}
    as_bools = {f"k{i}": [True, False, True] for i in range(200)}
    as_floats = {f"k{i}": [1.0, 0.0, 1.0] for i in range(200)}
    assert big == as_bools == as_floats
    text = ViewText()
    # when each is encoded, then each text is its own canonical JSON
    for value in (big, as_bools, as_floats, big):
        assert text.encode({"cards": value}) == canonical_json({"cards": value})
    assert text.hits == 1  # only the repeat of the very same ints was remembered


def test_given_a_fallen_game_then_views_encode_as_canonical_json_and_reuse_card_texts():
    # given every seat's view after each event of a Fallen playout
    rules = load("fallen")
    seats = {s: f"p-{s}" for s in rules.seats}
    game = play(rules, Setup(seats, {}), "viewtext", "gviewtext")
    text, state = ViewText(), rules.initial_state()
    for i, ev in enumerate(game.events):
        state = rules.evolve(state, ev)
        if i % 7 or rules.pending(state) is None:
            continue
        # when encoded, then the text is canonical_json's
        for seat in [*sorted(seats), None]:
            view = rules.view(state, seat)
            assert text.encode(view) == canonical_json(view)
    # and unchanged parts (the card texts) were reused
    assert text.hits > 0
