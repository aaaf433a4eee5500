"""No seat (or spectator) ever sees a hidden card: hands, rosters, setup Spoils, face-down decks."""

from __future__ import annotations

from services.rules.engine.api import Setup
from services.rules.land import RULES
from services.rules.playout import play
from tests.support.hidden_scan import scan_game
from tests.support.pure_log import envelopes


def test_views_and_feeds_of_land_games_never_name_a_hidden_card() -> None:
    checks = 0
    for i, n in enumerate((2, 3, 4, 5, 6, 6)):
        seats = {f"p{k}": f"u{k}-{i}" for k in range(1, n + 1)}
        gid = f"hidden{i}"
        p = play(RULES, Setup(seats, {"short_game": True, "max_turns": 1}), f"h{i}", gid)
        log = envelopes(RULES, gid, seats, p)
        # given a finished game's log, when every reader's feed and view is rebuilt at every
        # append, then no reader sees a card id before an event visible to it names it
        checks += scan_game("land", gid, log, {"land": RULES})
    assert checks > 1000


def test_special_abilities_of_card_data_2_leak_no_hidden_card() -> None:
    # given new games (card data 2) where abilities look at hands and take roster cards
    checks, used = 0, 0
    for i, n in enumerate((3, 4, 6)):
        seats = {f"p{k}": f"a{k}-{i}" for k in range(1, n + 1)}
        gid = f"abilities{i}"
        options = {"short_game": True, "max_turns": 3, "card_data": 2}
        p = play(RULES, Setup(seats, options), f"ab{i}", gid)
        used += sum(e.type == "hands_seen" for e in p.events)
        # then no reader sees a card id before an event visible to it names it (the hands
        # shown by "look at each players' hand" reach only the seat that looked)
        checks += scan_game("land", gid, envelopes(RULES, gid, seats, p), {"land": RULES})
    assert used > 0 and checks > 1000  # the 6-seat game looks at the other hands


def test_a_seat_view_shows_its_hand_and_only_counts_of_others() -> None:
    seats = {"p1": "a", "p2": "b", "p3": "c"}
    p = play(RULES, Setup(seats, {"max_turns": 1}), "hv", "hv")
    v1, v2, spectator = (RULES.view(p.state, s) for s in ("p1", "p2", None))
    hand1 = p.state.zone("hand.p1")
    assert hand1 and v1["zones"]["hand.p1"] == list(hand1)
    assert v2["zones"]["hand.p1"] == {"count": len(hand1)}
    assert spectator["zones"]["hand.p1"] == {"count": len(hand1)}
    assert "legal" not in spectator


PRIVATE = ("hand.", "roster.", "stash.")


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def test_no_event_names_a_private_card_to_anyone_but_its_owner() -> None:
    for i, n in enumerate((2, 4, 6)):
        seats = {f"p{k}": f"u{k}" for k in range(1, n + 1)}
        p = play(RULES, Setup(seats, {"short_game": True, "max_turns": 1}), f"pv{i}", f"pv{i}")
        state = RULES.initial_state()
        for ev in p.events:
            private = {
                c: z.split(".")[1]
                for z, cards in state.zones.items()
                if z.startswith(PRIVATE)
                for c in cards
            }
            data = dict(ev.data)
            pending = data.get("pending") or {}
            if pending.get("kind") == "deck_search":
                # a search names every copy it accepts, wherever they are: it reveals nothing
                data = {k: v for k, v in data.items() if k != "pending"}
            named = _strings(data) & set(private)
            if ev.type == "card_moved":
                named -= {ev.data["card"]}  # the card leaves the private zone face up
            for c in named:
                owner = private[c]
                # then only its owner may see an event naming a card in a private zone
                assert ev.visibility not in ("public",), (ev.type, c)
                assert set(ev.visibility) <= {owner}, (ev.type, c, ev.visibility)
            state = RULES.evolve(state, ev)


def test_solo_and_harsh_games_never_name_a_hidden_card() -> None:
    # given Solo I, Solo II (Ultimate), A Harsh Reality (both modifiers) and Ronin with God's
    # Hammer, when every reader's feed and view is rebuilt at every append, then no hidden
    # card is named early
    games = (
        ({"p1": "solo"}, {"variant": "solo1", "max_turns": 1}),
        (
            {"p1": "a", "p2": "b", "p3": "c"},
            {"harsh_reality": True, "harsh_modifier_1": True, "harsh_modifier_2": True},
        ),
        ({"p1": "solo"}, {"variant": "solo2", "challenge": 4, "max_turns": 3}),
        ({"p1": "a", "p2": "b"}, {"ronin": True, "gods_hammer": True}),
    )
    checks = 0
    for i, (seats, opts) in enumerate(games):
        gid = f"hidden-opt{i}"
        p = play(RULES, Setup(seats, {"max_turns": 1, **opts}), f"ho{i}", gid)
        checks += scan_game("land", gid, envelopes(RULES, gid, seats, p), {"land": RULES})
    assert checks > 100
