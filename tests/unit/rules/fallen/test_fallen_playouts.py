"""Property test: random legal playouts end with a winner and keep every invariant.

FALLEN_PLAYOUTS sets the number of games (default 40). The test's PRNG is seeded per
game; it plays both seats and chance (random faces and permutations); the face-down decks
are dealt by the kernel's Dealer, as the deck service would, and every card is either in an
engine zone or in a dealer's deck, exactly once.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from typing import Any

import pytest

from services.platform.errors import RuleViolation
from services.rules.engine.api import CHANCE, DECK_KINDS, NOBODY, PUBLIC, Command, Event, Setup
from services.rules.engine.dealer import Dealer
from services.rules.engine.state import deck_key
from services.rules.fallen import RULES
from services.rules.fallen.cards import catalog
from services.rules.fallen.dice_faces import faces_of
from services.rules.fallen.setup import initial_zones
from services.rules.fallen.state import DL, HERO, SEATS, State, zone_seen_by

PLAYOUTS = int(os.environ.get("FALLEN_PLAYOUTS", "40"))
MAX_STEPS = 5000
CARD_IDS = {cid for cid, c in catalog().cards.items() if c["type"] not in ("hero", "dungeon_lord")}


def _strings(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(_strings(v) for v in obj)) if obj else set()
    return set()


def _cards_in(obj: Any) -> set[str]:
    return _strings(obj) & CARD_IDS


def _seen_by(state: State, cid: str) -> tuple[str, ...]:
    zone = state.where(cid)
    return zone_seen_by(zone) if zone else ()


def _check_event_visibility(before: State, after: State, event: Event) -> None:
    """A card id in an event must be visible to its audience before or after the event."""
    if event.visibility == NOBODY:
        return
    audience = SEATS if event.visibility == PUBLIC else tuple(event.visibility)
    for cid in _cards_in(dict(event.data)):
        seen = set(_seen_by(before, cid)) | set(_seen_by(after, cid))
        assert set(audience) <= seen, f"{event.type} shows {cid} to {audience}"


def _check_view(state: State, seat: str | None) -> None:
    view = RULES.view(state, seat)
    for cid in _cards_in(view):
        seen = _seen_by(state, cid)
        ok = seen == SEATS if seat is None else seat in seen
        assert ok, f"view for {seat} leaks {cid} (in {state.where(cid)})"


def _check_invariants(state: State, initial_cards: Counter[str], dealer: Dealer) -> None:
    cards = Counter(c for zone in state.zones.values() for c in zone)
    cards += Counter(c for deck in dealer.decks.values() for c in deck)
    assert cards == initial_cards, "cards not conserved across zones and dealt decks"
    for deck, held in dealer.decks.items():
        assert state.count(deck_key(deck)) == len(held), f"count of {deck} is not its size"
    for key, value in state.counters.items():
        assert value >= 0, f"counter {key} went negative: {value}"
    assert 0 <= state.count("shadow") <= 5


def _chance(rng: random.Random, state: State, n: int, dealer: Dealer) -> Command:
    p = RULES.pending(state)
    assert p is not None and p.chance is not None
    if p.kind in DECK_KINDS:
        return dealer.answer(p.chance)
    if p.kind == "roll":
        faces = [rng.choice(faces_of(k)) for k in p.chance.dice]
        return Command(CHANCE, "roll", {"faces": faces, "nonce": n})
    order = list(range(p.chance.count))
    rng.shuffle(order)
    return Command(CHANCE, "shuffle", {"order": order, "nonce": n})


def play(seed: int) -> tuple[State, list[Event], int]:
    """Play one random game with all checks; return the final state, events and steps."""
    rng = random.Random(seed)
    setup = Setup({HERO: "h", DL: "d"}, RULES.new_game_options({}))  # the newest card data
    events = RULES.initial_events(f"game-{seed}", setup)
    state = RULES.initial_state()
    for e in events:
        state = RULES.evolve(state, e)
    initial_cards = Counter(c for cards in initial_zones().values() for c in cards)
    dealer = Dealer(seed.to_bytes(32, "big"), f"game-{seed}")
    steps, formed = 0, False
    while RULES.outcome(state) is None:
        assert steps < MAX_STEPS, "game did not end"
        p = RULES.pending(state)
        assert p is not None
        if p.seat == CHANCE:
            cmd = _chance(rng, state, steps, dealer)
        else:
            legal = RULES.legal_commands(state, p.seat)
            assert legal, f"no legal command for {p.seat} at {p.kind}"
            assert RULES.legal_commands(state, DL if p.seat == HERO else HERO) == []
            cmd = rng.choice(legal)
            if steps % 97 == 0:
                with pytest.raises(RuleViolation):
                    RULES.decide(state, Command(DL if p.seat == HERO else HERO, cmd.kind, cmd.args))
        new = RULES.decide(state, cmd)
        for e in new:
            state = RULES.evolve(state, e)
        events += new
        steps += 1
        formed = formed or p.seat != CHANCE  # the box's decks are formed before any seat acts
        if formed:
            _check_invariants(state, initial_cards, dealer)
        if steps % 15 == 0:
            for seat in (None, HERO, DL):
                _check_view(state, seat)
    return state, events, steps


@pytest.mark.parametrize("seed", range(PLAYOUTS))
def test_random_playout_reaches_a_winner_with_invariants(seed: int) -> None:
    state, events, _ = play(seed)
    out = RULES.outcome(state)
    assert out is not None and out["winner"] in SEATS
    assert max(out["final_battle"].values()) >= 3 or RULES.pending(state) is None
    # replay: folding the recorded events from scratch gives the live state
    replay = RULES.initial_state()
    for e in events:
        before = replay
        replay = RULES.evolve(replay, e)
        _check_event_visibility(before, replay, e)
    assert RULES.state_hash(replay) == RULES.state_hash(state)
    assert replay == state
    for seat in (None, HERO, DL):
        _check_view(state, seat)


def test_playout_speed_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    n = 3
    steps = sum(play(1000 + i)[2] for i in range(n))
    elapsed = time.perf_counter() - start
    with capsys.disabled():
        print(f"\nfallen playouts: {n / elapsed:.1f} games/s, {steps / n:.0f} commands/game")
