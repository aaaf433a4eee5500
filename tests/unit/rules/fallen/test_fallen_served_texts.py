"""Card texts are built once per card and shared by every view (docs/performance.md, pass 4).

What a seat reads is unchanged (test_fallen_hidden_texts.py); these pin the sharing: the
texts are read-only, copies are plain dicts, and the map's own JSON is canonical_json's.
"""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from services.platform.canonical import canonical_json
from services.rules.engine.api import Setup
from services.rules.fallen import RULES
from services.rules.fallen.cards import catalog, using
from services.rules.fallen.engine import version_of
from services.rules.fallen.state import DL, HERO
from services.rules.playout import play


def _states(seed: str, every: int = 9, options: dict | None = None) -> list:  # type: ignore[type-arg]
    """Return states at append boundaries of a Fallen playout (every n-th one)."""
    seats = {s: f"p-{s}" for s in RULES.seats}
    game = play(RULES, Setup(seats, dict(options or {})), seed, f"g{seed}")
    ends, at = set(), 0
    for n in game.batches:
        at += n
        ends.add(at)
    out, state = [], RULES.initial_state()
    for i, ev in enumerate(game.events, 1):
        state = RULES.evolve(state, ev)
        if i in ends and i % every == 0 and RULES.pending(state) is not None:
            out.append(state)
    return out


def _old_text(cid: str, seat: str | None) -> dict:  # type: ignore[type-arg]
    """Return a card's text the way views built it before the texts were shared."""
    data = dict(catalog()[cid])
    if data["type"] == "dungeon_lord" and seat != DL and "quest" in data:
        q = data["quest"]
        data["quest"] = {
            "title": q["title"],
            "intro": q["intro"],
            "choices": [{"name": c["name"]} for c in q["choices"]],
        }
    return data


@pytest.mark.parametrize("options", [{}, RULES.new_game_options({})], ids=["v1", "newest"])
def test_given_a_whole_game_then_every_view_serves_the_same_texts_as_before_as_canonical_json(
    options: dict,  # type: ignore[type-arg]
) -> None:
    # given views of every seat along a Fallen playout (original and newest card data)
    for state in _states("served", options=options):
        for seat in [HERO, DL, None]:
            # when a view's card texts are read
            cards = RULES.view(state, seat)["cards"]
            # then they are the texts views served before, card for card
            with using(version_of(state)):
                assert cards == {cid: _old_text(cid, seat) for cid in cards}
            assert list(cards) == sorted(cards)
            # and the map's own JSON is exactly canonical_json of it
            assert cards.canonical_text() == canonical_json(dict(cards))
            assert json.loads(cards.canonical_text()) == cards


def test_given_a_served_view_when_a_caller_changes_a_card_text_then_it_is_refused() -> None:
    # given a view of the Hero
    state = _states("readonly", every=1)[0]
    view = RULES.view(state, HERO)
    cid = next(iter(view["cards"]))
    name = view["cards"][cid]["name"]
    # when a caller changes a text or the map in place, then it is refused
    with pytest.raises(TypeError):
        view["cards"][cid]["name"] = "changed"
    with pytest.raises(TypeError):
        view["cards"].pop(cid)
    with pytest.raises(TypeError):
        view["cards"][cid].update(name="changed")
    # and the next view still serves the card's own text (the very same shared map)
    assert RULES.view(state, HERO)["cards"][cid]["name"] == name
    assert RULES.view(state, HERO)["cards"] is view["cards"]
    # and copies (copy, deepcopy, pickle) are plain dicts a caller may change
    for clone in (
        copy.copy(view["cards"]),
        copy.deepcopy(view)["cards"],
        pickle.loads(pickle.dumps(view))["cards"],
    ):
        assert type(clone) is dict and clone == view["cards"]
        clone[cid] = dict(clone[cid], name="changed")
    assert RULES.view(state, HERO)["cards"][cid]["name"] == name
