"""2d10 read as 1-100: the rulebook's "Roll 2d10 (1-100)", as Land rolls it.

Land asks chance for the two parts of the dice service's composite kind 2d10 (d10_tens and
d10_units) in one request and reads them as the composite does (docs/games/land.md,
register 22), so every number 1-100 comes up with probability exactly 1/100.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

from services.dice.kinds import catalog, read_composite
from services.rules.engine.api import CHANCE, Command
from services.rules.engine.chance import faces_of
from services.rules.land import RULES
from services.rules.land.setup_flow import D100, percentile
from tests.unit.rules.land.support import drive, setup


def test_the_two_parts_are_the_composite_kinds_parts() -> None:
    # given the dice service's catalog, then Land rolls exactly the parts of 2d10
    assert D100 == catalog().expand("2d10") == ("d10_tens", "d10_units")


def test_every_face_pair_reads_one_number_1_to_100_once() -> None:
    # "Roll 2d10 (1-100)": given every pair of a tens die and a units die
    pairs = list(product(*(catalog().faces[p] for p in D100)))
    readings = Counter(percentile(list(pair)) for pair in pairs)
    # then the 100 equally likely pairs give each number 1-100 exactly once
    assert sorted(readings) == list(range(1, 101)) and set(readings.values()) == {1}
    # and the reading is the composite's ("00" + "0" is 100), whose faces are "1" to "100"
    assert percentile(["00", "0"]) == 100 and percentile(["90", "9"]) == 99
    assert all(str(percentile(list(p))) == read_composite("2d10", list(p)) for p in pairs)
    assert sorted(int(f) for f in faces_of("2d10")) == list(range(1, 101))


def test_a_mission_roll_asks_for_both_parts_at_once_and_places_the_reading() -> None:
    # given a new game, when setup rolls for the first Mission Location
    state = drive(setup(2), lambda s: bool(s.pending and s.pending["kind"] == "roll"))
    # then chance is asked for one tens die and one units die in one request
    assert state.pending is not None
    assert tuple(state.pending["data"]["dice"]) == D100
    assert "mission" in state.pending["data"]["purpose"]
    # when chance answers a 30 and a 7, then the Mission chip goes on numbered hex 37
    _, after = RULES.step(state, Command(CHANCE, "roll", {"faces": ["30", "7"], "nonce": 0}))
    assert after.var("missions") == [37]
    # and a 00 and a 0 is hex 100
    _, after = RULES.step(state, Command(CHANCE, "roll", {"faces": ["00", "0"], "nonce": 0}))
    assert after.var("missions") == [100]
