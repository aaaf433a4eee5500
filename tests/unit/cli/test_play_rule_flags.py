"""fallenctl play: the land rule flags become game options (the server validates them)."""

from __future__ import annotations

import pytest
import typer

from services.cli.play import rule_options


def test_rule_flags_become_options() -> None:
    assert rule_options(None, False, [], False, False, None) == {}
    assert rule_options(1, False, [], True, True, 30) == {
        "pvp_option": 1,
        "gods_hammer": True,
        "ronin": True,
        "max_turns": 30,
    }
    # a modifier implies A Harsh Reality
    assert rule_options(None, False, [1, 2], False, False, None) == {
        "harsh_modifier_1": True,
        "harsh_modifier_2": True,
        "harsh_reality": True,
    }
    with pytest.raises(typer.BadParameter, match="harsh-modifier"):
        rule_options(None, True, [3], False, False, None)


def test_solo_variants_and_ronin_default_to_the_heuristic_bot() -> None:
    from services.cli.play import default_policy

    # given no --policy: random play may never win a solo game or leave Ronin's wandering
    assert default_policy({"variant": "solo1"}) == "heuristic"
    assert default_policy({"variant": "solo2", "challenge": 4}) == "heuristic"
    assert default_policy({"ronin": True}) == "heuristic"
    # and every other game keeps random bots
    assert default_policy({}) == "random"
    assert default_policy({"variant": "standard", "gods_hammer": True}) == "random"
