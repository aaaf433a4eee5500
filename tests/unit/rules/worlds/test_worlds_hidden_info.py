"""No seat (or spectator) sees the opponent's hand or a library's order in a Worlds game."""

from __future__ import annotations

from collections import Counter
from typing import Any

from services.rules.engine.api import Setup
from services.rules.playout import play
from services.rules.registry import load
from services.rules.worlds import vocab
from services.rules.worlds.state import WorldsState
from tests.support.hidden_scan import all_strings, scan_game
from tests.support.pure_log import envelopes

RULES = load("worlds")
SEATS = {"p1": "alice", "p2": "bob"}


def _decks(n: int) -> dict[str, str]:
    return {"p1": vocab.FACTIONS[n % 7], "p2": vocab.FACTIONS[(n + 3) % 7]}


def test_views_and_feeds_of_worlds_games_never_name_a_hidden_card() -> None:
    checks = 0
    for n in range(4):
        gid = f"whidden{n}"
        p = play(RULES, Setup(SEATS, {"decks": _decks(n)}), f"wh{n}", gid)
        log = envelopes(RULES, gid, SEATS, p)
        # given a finished game's log, when every reader's feed and view is rebuilt at every
        # append, then no reader sees a card id before an event visible to it names it
        checks += scan_game("worlds", gid, log, {"worlds": RULES})
    assert checks > 500


def _copies(view: Any, ids: set[str]) -> Counter[str]:
    """Count how often each card id appears anywhere in a view (keys and values)."""
    return Counter(s for s in all_strings(view) if s in ids)


def test_no_view_shows_a_copy_of_an_opponents_hand_card_beyond_the_public_ones() -> None:
    # The shared scanner treats an id as known once any copy is public; Worlds decks hold up
    # to five copies, so count copies: a reader never sees more copies of an id than are
    # in its own hand plus in play and graveyards (public), at every state of the game.
    for n in range(4):
        p = play(RULES, Setup(SEATS, {"decks": _decks(n)}), f"wc{n}", f"wc{n}")
        state = RULES.initial_state()
        for i, ev in enumerate(p.events):
            state = RULES.evolve(state, ev)
            if i % 5 and i + 1 != len(p.events):
                continue
            assert isinstance(state, WorldsState)
            board = state.table.board
            public: Counter[str] = Counter()
            for card in board.play:
                public += Counter([card.card, *card.attached])
            for seat in SEATS:
                public += Counter(board.side(seat).graveyard)
            for reader in (*SEATS, None):
                own = Counter(board.side(reader).hand) if reader else Counter()
                view = RULES.view(state, reader)
                # then the view names no id more often than public cards and the own hand
                allowed = public + own
                # (the seat's legal commands repeat its own cards: count them apart, and
                # they may name only cards the reader holds or sees)
                commands = view.pop("commands", [])
                named = _copies(commands, _ids(board))
                assert not [c for c in named if not allowed[c]], (ev.type, reader, named)
                shown = _copies(view, _ids(board))
                extra = sorted(c for c, k in shown.items() if k > allowed[c])
                assert not extra, (ev.type, reader, extra)
                for seat in SEATS:
                    if seat != reader:
                        # and another seat's hand and every library are counts only
                        assert view["sides"][seat]["hand"] == len(board.side(seat).hand)
                        assert isinstance(view["sides"][seat]["library"], int)


def _ids(board: Any) -> set[str]:
    """Every card id in a hand, in play or in a graveyard."""
    ids = {c for seat in SEATS for c in (*board.side(seat).hand, *board.side(seat).graveyard)}
    return ids | {c for p in board.play for c in (p.card, *p.attached)}
