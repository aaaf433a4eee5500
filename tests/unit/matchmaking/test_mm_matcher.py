"""Matching per mode: sizes, roles, parties, seat counts, rating windows, bots and expiry."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.matchmaking.matcher import BASE_WINDOW, OPEN_AFTER_S, assign_seats, find_groups
from services.matchmaking.model import Ticket
from services.matchmaking.modes import load_modes

MODES = load_modes()
NOW = 1_000.0


def ticket(n: int, mode: str, *, players: int = 1, rating: float = 25.0, age: float = 0.0,
           **kw: object) -> Ticket:  # fmt: skip
    game, name = mode.split("/")
    return Ticket(
        ticket_id=f"t{n}",
        game=game,
        mode=name,
        players=tuple(f"p{n}.{i}" for i in range(players)),
        queued_at=NOW - age,
        expires_at=NOW + 600,
        rating=rating,
        **kw,  # type: ignore[arg-type]
    )


def seats_of(mode: str, group: list[Ticket]) -> dict[str, str]:
    seats = assign_seats(MODES[mode], group)
    assert seats is not None
    return seats


def test_two_fallen_players_get_both_seats() -> None:
    # given two players queued for ranked Fallen, one wanting the hero
    a, b = ticket(1, "fallen/ranked", role="hero"), ticket(2, "fallen/ranked")
    # when the queue is matched
    groups = find_groups(MODES["fallen/ranked"], [a, b], NOW)
    # then they share one game, a as hero and b as dungeon lord
    assert [[t.ticket_id for t in g] for g in groups] == [["t1", "t2"]]
    assert seats_of("fallen/ranked", groups[0]) == {"hero": "p1.0", "dungeon_lord": "p2.0"}


def test_two_heroes_wait_for_a_dungeon_lord() -> None:
    # given two players who both insist on the hero
    a, b = ticket(1, "fallen/ranked", role="hero"), ticket(2, "fallen/ranked", role="hero")
    # then no game forms; a third who takes any role is matched with the oldest
    assert find_groups(MODES["fallen/ranked"], [a, b], NOW) == []
    c = ticket(3, "fallen/ranked", age=-1)
    groups = find_groups(MODES["fallen/ranked"], [a, b, c], NOW)
    assert [[t.ticket_id for t in g] for g in groups] == [["t1", "t3"]]


def test_far_ratings_match_only_after_waiting() -> None:
    # given two players far apart in skill
    strong = BASE_WINDOW * 4
    a, b = ticket(1, "fallen/ranked", rating=25), ticket(2, "fallen/ranked", rating=25 + strong)
    # when they just queued, no game; after the window has opened, one game
    assert find_groups(MODES["fallen/ranked"], [a, b], NOW) == []
    old = ticket(1, "fallen/ranked", rating=25, age=OPEN_AFTER_S)
    assert len(find_groups(MODES["fallen/ranked"], [old, b], NOW)) == 1


def test_closest_rating_is_preferred() -> None:
    # given an anchor and two candidates, one much closer in skill
    a = ticket(1, "worlds/pvp", rating=25, age=5)
    near, far = ticket(2, "worlds/pvp", rating=25.5), ticket(3, "worlds/pvp", rating=26.5)
    # then the anchor plays the nearer one
    groups = find_groups(MODES["worlds/pvp"], [a, far, near], NOW)
    assert [t.ticket_id for t in groups[0]] == ["t1", "t2"]


def test_epic_needs_exactly_six_and_keeps_a_party_together() -> None:
    # given a party of three and two single players: five in all
    queue = [ticket(1, "land/epic", players=3), ticket(2, "land/epic"), ticket(3, "land/epic")]
    assert find_groups(MODES["land/epic"], queue, NOW) == []
    # when a sixth arrives, all six are seated in one game, the party included
    queue.append(ticket(4, "land/epic"))
    groups = find_groups(MODES["land/epic"], queue, NOW)
    assert len(groups) == 1
    seats = seats_of("land/epic", groups[0])
    assert sorted(seats) == ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert {"p1.0", "p1.1", "p1.2"} <= set(seats.values())


def test_standard_land_respects_seat_count_preferences() -> None:
    # given three players, one of whom only plays three-seat games
    queue = [
        ticket(1, "land/standard", seat_counts=(3,)),
        ticket(2, "land/standard"),
        ticket(3, "land/standard"),
    ]
    # then the game has exactly three seats
    groups = find_groups(MODES["land/standard"], queue, NOW)
    assert [len(g) for g in groups] == [3]
    assert sorted(seats_of("land/standard", groups[0])) == ["p1", "p2", "p3"]
    # and two players who both want five seats wait
    wait = [ticket(5, "land/standard", seat_counts=(5,)), ticket(6, "land/standard")]
    assert find_groups(MODES["land/standard"], wait, NOW) == []


def test_solo_and_bot_modes_start_at_once() -> None:
    # given one player in solo I and one against the Worlds bot
    solo = find_groups(MODES["land/solo1"], [ticket(1, "land/solo1")], NOW)
    bot = find_groups(MODES["worlds/vs_bot"], [ticket(2, "worlds/vs_bot")], NOW)
    # then each is matched alone, the bot taking the other Worlds seat
    assert len(solo) == 1 and len(bot) == 1
    assert seats_of("land/solo1", solo[0]) == {"p1": "p1.0"}
    assert seats_of("worlds/vs_bot", bot[0]) == {"p1": "p2.0", "p2": "bot:worlds:0"}


def test_fallen_vs_bot_honours_the_role() -> None:
    groups = find_groups(
        MODES["fallen/vs_bot"], [ticket(1, "fallen/vs_bot", role="dungeon_lord")], NOW
    )
    assert seats_of("fallen/vs_bot", groups[0]) == {"hero": "bot:fallen:0", "dungeon_lord": "p1.0"}


def test_expired_tickets_are_not_matched() -> None:
    a = ticket(1, "fallen/ranked")
    b = Ticket(**{**ticket(2, "fallen/ranked").__dict__, "expires_at": NOW - 1})
    assert find_groups(MODES["fallen/ranked"], [a, b], NOW) == []


@settings(max_examples=60, deadline=None)
@given(
    mode=st.sampled_from(sorted(MODES)),
    specs=st.lists(st.tuples(st.integers(1, 3), st.floats(10, 40), st.floats(0, 90)), max_size=30),
)
def test_groups_are_disjoint_and_fit_the_mode(
    mode: str, specs: list[tuple[int, float, float]]
) -> None:
    # given any queue of tickets (parties no bigger than the mode allows)
    m = MODES[mode]
    queue = [
        ticket(i, mode, players=min(size, m.max_party), rating=r, age=age)
        for i, (size, r, age) in enumerate(specs)
    ]
    groups = find_groups(m, queue, NOW)
    # then no ticket is in two groups, and every group fits the mode's size and seats
    ids = [t.ticket_id for g in groups for t in g]
    assert len(ids) == len(set(ids))
    for g in groups:
        humans = sum(len(t.players) for t in g)
        assert m.min_players <= humans <= m.max_players
        seats = seats_of(mode, g)
        assert len(seats) == humans + m.bots
        assert len(set(seats.values())) == len(seats)
