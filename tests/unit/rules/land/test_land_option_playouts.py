"""Random legal playouts of every solo variant, challenge level and optional-rule toggle.

CI budget: 200 games in all, each kept cheap by `max_turns` (1-3 turns), with the same
invariants as the core playouts (tests/unit/rules/land/test_land_playouts.py) plus the
Solo II and Ronin ones, and replay equal to live.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Any

import pytest

from services.rules.engine.api import Setup
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.damage import can_carry
from services.rules.land.data import LATEST_CARD_DATA
from services.rules.land.solo_decks import RED_DOT_DECK, solo_deck
from services.rules.land.state import DECK_NAMES
from services.rules.playout import play

GAMES = 200
SOLO = [{"variant": "solo1"}] + [{"variant": "solo2", "challenge": c} for c in (1, 2, 3, 4)]
SOLO += [{"variant": "solo2", "challenge": c, "pvp_option": 2} for c in (2, 4)]  # a PVP Party
HARSH = [
    {},
    {"harsh_reality": True},
    {"harsh_reality": True, "harsh_modifier_1": True},
    {"harsh_reality": True, "harsh_modifier_2": True},
    {"harsh_reality": True, "harsh_modifier_1": True, "harsh_modifier_2": True},
]
TOGGLES = [
    {**h, **({"gods_hammer": True} if g else {}), **({"ronin": True} if r else {})}
    for h, g, r in product(HARSH, (False, True), (False, True))
]
COMBOS: list[tuple[int, dict[str, Any]]] = [(1, o) for o in SOLO] + [
    (2 + i % 5, o) for i, o in enumerate(TOGGLES)
]


def _setup(i: int) -> Setup:
    seats, opts = COMBOS[i % len(COMBOS)]
    turns = 3 if i % 10 == 0 else 1 + i % 2
    # every other round of the combinations is of new games (the newest card data: Solo I's
    # NPCMs, the solo Allies, the special abilities, the rules of card data 3), the others
    # of the original card data
    data = {"card_data": LATEST_CARD_DATA} if (i // len(COMBOS)) % 2 else {}
    seats_ = {f"p{k}": f"u{k}" for k in range(1, seats + 1)}
    return Setup(seats_, {**opts, **data, "max_turns": turns})


def _check(state: State) -> None:
    opts = state.var("options")
    in_zones = Counter(c for cards in state.zones.values() for c in cards)
    assert all(n == 1 for n in in_zones.values()), in_zones.most_common(3)
    decks = [*DECK_NAMES, RED_DOT_DECK] if opts.get("variant") == "solo2" else list(DECK_NAMES)
    # every card of the game's decks (solo: without the Red Dot cards put in the box)
    total = sum(len(solo_deck(d, opts)) for d in decks)
    assert sum(in_zones.values()) + sum(state.count(f"deck.{d}") for d in decks) == total
    for s in state.var("players"):
        assert state.count(f"salvage.{s}") >= 0
        assert 0 <= state.count(f"prestige.{s}") <= 20
        assert 0 <= state.count(f"th.{s}") <= 80
        assert state.count(f"weeks.{s}") >= 0
        if state.var(f"ronin.{s}") == "wandering":
            # "They cannot gain and lose Town Health or Prestige until ..."
            assert (state.count(f"th.{s}"), state.count(f"prestige.{s}")) == (30, 1)
    if opts.get("variant") == "solo2":
        opp = state.var("opposing")
        assert len(opp) == len(set(opp)) == opts["challenge"]
        for f in opp:
            assert 0 <= state.count(f"th.of{f}") <= 80 and 0 <= state.count(f"prestige.of{f}") <= 20
        assert 0 <= state.count("se_left") <= 3
        for f in state.var("pvp_parties", []):  # option 2: a party in play within capacity
            for k in range(1, 6):
                for ch in state.zone(f"crown.of{f}.{k}"):
                    assert can_carry(ch, list(state.zone(f"gear.of{f}.{k}")))


@pytest.mark.parametrize("chunk", range(4))
def test_option_playouts_end_with_invariants_and_replay(chunk: int) -> None:
    kinds: Counter[str] = Counter()
    for i in range(chunk * GAMES // 4, (chunk + 1) * GAMES // 4):
        p = play(RULES, _setup(i), f"opt-{i}", f"opt-{i}")
        out = RULES.outcome(p.state)
        assert out is not None and out["kind"] in (
            "prestige",
            "town_health",
            "tiebreak",
            "turn_limit",
        )
        _check(p.state)
        state = RULES.initial_state()
        for ev in p.events:
            state = RULES.evolve(state, ev)
        assert RULES.state_hash(state) == RULES.state_hash(p.state)
        kinds[out["kind"]] += 1
    assert sum(kinds.values()) == GAMES // 4


def test_every_variant_and_toggle_is_played() -> None:
    seen = {
        repr(sorted((k, v) for k, v in _setup(i).options.items() if k != "max_turns"))
        for i in range(GAMES)
    }
    assert len(COMBOS) == 27 and len({repr(sorted(o.items())) for _, o in COMBOS}) == 27
    assert len(seen) == 2 * len(COMBOS)  # each of the original card data and of data 2
