"""The hidden-information scanner itself catches leaks (so a passing scan means something)."""

from __future__ import annotations

import pytest

from services.platform.envelope import Envelope
from tests.support.hidden_scan import Knowledge, tokens


def env(vis, data) -> Envelope:
    return Envelope("e", "game-g", 1, 1, "T", 1, "", "", "", vis, data, "", "")


def test_a_card_only_another_seat_saw_is_caught_in_a_view():
    # given card c2 was dealt to seat b only
    k = Knowledge({"c1", "c2"}, ["a", "b", None])
    k.see(env(["a"], {"card": "c1"}))
    k.see(env(["b"], {"card": "c2"}))
    # when a's view names c2 (as a value, a key, or inside a sentence)
    for view in ({"zones": {"hand": ["c2"]}}, {"zones": {"c2": 1}}, {"prompt": "play c2 now"}):
        with pytest.raises(AssertionError, match="c2"):
            k.check_obj("a", view, "view")
    # then a's own card is fine, and the spectator may name neither
    k.check_obj("a", {"zones": {"hand": ["c1"]}}, "view")
    with pytest.raises(AssertionError):
        k.check_obj(None, {"x": "c1"}, "view")


def test_incremental_checks_still_catch_a_leak_in_a_changed_part():
    k = Knowledge({"c1", "c2"}, ["a", None])
    k.see(env(["a"], {"card": "c1"}))
    first = {"zones": {"hand": ["c1"], "deck": {"count": 5}}, "phase": "x"}
    k.check_changed("a", first, None, "v1")
    leaky = {"zones": {"hand": ["c1"], "deck": ["c2"]}, "phase": "x"}
    with pytest.raises(AssertionError, match="c2"):
        k.check_changed("a", leaky, first, "v2")


def test_an_events_names_found_once_are_checked_against_each_readers_hidden_cards():
    # given c1 public and c2 dealt to b only, and an event whose sentence names c2
    k = Knowledge({"c1", "c2"}, ["a", "b", None])
    k.see(env(["a", "b"], {"card": "c1"}))
    k.see(env(["b"], {"card": "c2"}))
    names = tokens({"note": "b keeps c2.", "cards": ["c1"], "c1": 1})
    # then the names are the whole ids and the sentence's tokens
    assert {"c1", "c2"} <= names
    # when they are checked for each reader: b may name c2, a may not
    k.check_tokens("b", names, "event")
    with pytest.raises(AssertionError, match="c2"):
        k.check_tokens("a", names, "event")
