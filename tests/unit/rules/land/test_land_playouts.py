"""Random legal playouts of 2-6 players to the end, with invariants after every game.

CI budget: 200 games. Every tenth game is a full game (no limits: it ends in a victory, about
0.2-0.6 s each); the others are kept short by the engine's own limits (the short game and
`max_turns` 1, 3 for every tenth but one), see docs/games/land.md 11 (19).
"""

from __future__ import annotations

from collections import Counter

import pytest

from services.rules.engine.api import Setup
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.data import LATEST_CARD_DATA, economy, factions
from services.rules.land.solo_decks import solo_deck
from services.rules.land.state import DECK_NAMES, town
from services.rules.playout import play

GAMES = 200


def _full(i: int) -> bool:
    """Return whether game i is played in full (every tenth game)."""
    return i % 10 == 0


def _setup(i: int) -> Setup:
    n = 2 + (i // 10) % 5 if _full(i) else 2 + i % 5  # the full games: 4 each of 2-6 seats
    seats = {f"p{k}": f"u{k}" for k in range(1, n + 1)}
    if _full(i):
        return Setup(seats, {})
    turns = 3 if i % 10 == 5 else 1
    # odd games are new games (the newest card data: the special abilities act,
    # the rules of card data 3), even ones games of
    # the original card data
    data = {"card_data": LATEST_CARD_DATA} if i % 2 else {}
    return Setup(seats, {"short_game": True, "max_turns": turns, **data})


def _check_invariants(state: State) -> None:
    seats = state.var("players")
    # every card is in exactly one place: a zone or a face-down deck (counted)
    in_zones = Counter(c for cards in state.zones.values() for c in cards)
    assert all(n == 1 for n in in_zones.values()), in_zones.most_common(3)
    in_decks = sum(state.count(f"deck.{d}") for d in DECK_NAMES)
    total = sum(len(solo_deck(d, state.var("options"))) for d in DECK_NAMES)
    assert sum(in_zones.values()) + in_decks == total
    for s in seats:
        assert state.count(f"salvage.{s}") >= 0
        assert 0 <= state.count(f"prestige.{s}") <= 20
        assert 0 <= state.count(f"th.{s}") <= 80
        on_resources = sum(state.count(f"rdef.{r}") for r in town(state, s).resources)
        assert 0 <= state.count(f"defense.{s}") + on_resources <= 5
        assert state.count(f"weeks.{s}") >= 0 and state.count(f"deficit.{s}") >= 0
    if state.var("epic"):
        # chips are conserved: Bank + towns = stock + the starting chips
        for t in economy()["techs"]:
            held = sum(1 for s in seats if state.count(f"tech.{s}.{t}"))
            starting = sum(1 for s in seats if t in factions()[state.var(f"faction.{s}")]["techs"])
            assert state.count(f"bank.tech.{t}") + held == len(seats) - 1 + starting
        defense = sum(state.count(f"defense.{s}") for s in seats)
        defense += sum(v for k, v in state.counters.items() if k.startswith("rdef."))
        assert state.count("bank.defense") + defense == economy()["epic_defense_supply"]


@pytest.mark.parametrize("chunk", range(4))
def test_random_playouts_end_with_invariants_and_replay(chunk: int) -> None:
    kinds = Counter()
    for i in range(chunk * GAMES // 4, (chunk + 1) * GAMES // 4):
        p = play(RULES, _setup(i), f"land-{i}", f"land-{i}")
        out = RULES.outcome(p.state)
        assert out is not None and out["kind"] in (
            "prestige",
            "town_health",
            "tiebreak",
            "turn_limit",
        )
        if _full(i):  # a full game ends in a victory, never at a turn limit
            assert out["kind"] in ("prestige", "town_health", "tiebreak"), (i, out)
        _check_invariants(p.state)
        # replay equals live: folding the log again gives the same state
        state = RULES.initial_state()
        for ev in p.events:
            state = RULES.evolve(state, ev)
        assert RULES.state_hash(state) == RULES.state_hash(p.state)
        kinds[out["kind"]] += 1
    assert sum(kinds.values()) == GAMES // 4
