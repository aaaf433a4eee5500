"""The to-hit table, checked cell by cell against the rulebook's chart."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules.worlds.combat import is_hit, to_hit

# Transcribed from the rulebook ("An example chart showing the minimum required to hit"):
# one row per Defender rating 1..10, one column per Attacker rating 1..10.
RULEBOOK_TABLE = """
1	4	3	2	2	2	2	2	2	2	2
2	5	4	3	2	2	2	2	2	2	2
3	6	5	4	3	2	2	2	2	2	2
4	6	6	5	4	3	2	2	2	2	2
5	6	6	6	5	4	3	2	2	2	2
6	6	6	6	6	5	4	3	2	2	2
7	6	6	6	6	6	5	4	3	2	2
8	6	6	6	6	6	6	5	4	3	2
9	6	6	6	6	6	6	6	5	4	3
10	6	6	6	6	6	6	6	6	5	4
"""

CELLS = [
    (attack, int(row.split()[0]), int(needed))
    for row in RULEBOOK_TABLE.strip().splitlines()
    for attack, needed in enumerate(row.split()[1:], start=1)
]


def test_the_table_has_all_hundred_cells() -> None:
    assert len(CELLS) == 100


@pytest.mark.parametrize(("attack", "defence", "needed"), CELLS)
def test_to_hit_matches_the_rulebook_cell(attack: int, defence: int, needed: int) -> None:
    # given an attacker's Attack and a defender's Defence from the chart
    # when the minimum roll is computed
    # then it is the chart's number
    assert to_hit(attack, defence) == needed


def test_the_rulebook_worked_example() -> None:
    # given Attack 3 against Defence 4, then 5+ is needed; with Attack 6, 2+
    assert to_hit(3, 4) == 5
    assert to_hit(6, 4) == 2


@settings(deadline=None)
@given(st.integers(0, 20), st.integers(0, 20))
def test_a_six_always_hits_and_a_one_always_misses(attack: int, defence: int) -> None:
    # given any ratings where the card can attack at all
    # when it rolls a 6 it hits, and a 1 misses
    if attack > 0:
        assert is_hit(6, attack, defence)
    assert not is_hit(1, attack, defence)


@pytest.mark.parametrize("roll", range(1, 7))
def test_attack_zero_never_hits(roll: int) -> None:
    assert not is_hit(roll, 0, 1)


@pytest.mark.parametrize(("attack", "defence", "needed"), CELLS)
def test_hits_are_exactly_the_rolls_at_or_above_the_cell(
    attack: int, defence: int, needed: int
) -> None:
    hits = [roll for roll in range(1, 7) if is_hit(roll, attack, defence)]
    assert hits == list(range(needed, 7))


def test_a_roll_off_the_die_is_refused() -> None:
    with pytest.raises(ValueError, match=r"1\.\.6"):
        is_hit(7, 3, 3)
