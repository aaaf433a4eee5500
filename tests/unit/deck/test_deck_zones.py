"""Given / when / then tests of the pure deck zones: deciders, fold and secrecy."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from services.deck import zones
from services.deck.zones import Shuffle, Zones
from services.dice import fair
from services.platform.canonical import GENESIS_HASH
from services.platform.envelope import NOBODY, PUBLIC, Envelope, NewEvent
from services.platform.errors import (
    AlreadyExists,
    DomainError,
    InvalidArgument,
    NotFound,
    RuleViolation,
)
from services.platform.store.base import seal

GAME = "g1"
SEED = bytes(range(32))
SEATS = ("hero", "dungeon_lord")
DECK_CARDS = [f"c{i}" for i in range(10)]


def chance(nonce: int, n: int) -> Shuffle:
    """Return the shuffle the fairness scheme derives for SEED and nonce."""
    return Shuffle(nonce, tuple(fair.shuffle(fair.Draws(SEED, GAME, "", nonce), list(range(n)))))


class Log:
    """A deck stream kept in memory: every append is sealed and folded."""

    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []
        self.state = Zones()
        self.nonce = 0

    def append(self, events: Sequence[NewEvent]) -> list[Envelope]:
        """Seal events after the log, check that folding them equals applying them."""
        prev = self.envelopes[-1].hash if self.envelopes else GENESIS_HASH
        sealed = seal(f"deck-{GAME}", self.state.version + 1, prev, events, "now")
        expected = zones.apply_new(self.state, events)
        self.envelopes.extend(sealed)
        self.state = zones.fold(self.envelopes)
        assert self.state.zones == expected.zones
        return sealed

    def shuffled(self, events: Sequence[NewEvent], zone: str) -> list[Envelope]:
        """Append events followed by the shuffle of zone with the next nonce."""
        mid = zones.apply_new(self.state, events)
        n = zones.shuffle_count(mid, zone)
        c = chance(self.nonce, n)
        self.nonce += 1
        return self.append(zones.with_shuffle(self.state, events, zone, c))


def given_table(deck: Sequence[str] = DECK_CARDS) -> Log:
    """Return a log with a deck, a discard pile and a hand for each seat."""
    log = Log()
    log.append(zones.create_zone(log.state, "deck", zones.DECK, "", deck, SEATS))
    log.append(zones.create_zone(log.state, "discard", zones.PILE, "", [], SEATS))
    for seat in SEATS:
        log.append(zones.create_zone(log.state, f"hand.{seat}", zones.HAND, seat, [], SEATS))
    return log


def cards_of(log: Log, zone: str) -> tuple[str, ...]:
    return log.state.get(zone).cards


def all_cards(state: Zones) -> Counter[str]:
    return Counter(c for z in state.zones.values() for c in z.cards)


# ------------------------------------------------------------------ create


def test_creating_zones_hides_deck_contents_and_shows_hands_to_their_owner() -> None:
    log = Log()
    deck = log.append(zones.create_zone(log.state, "deck", zones.DECK, "", ["a", "b"], SEATS))
    pile = log.append(zones.create_zone(log.state, "pile", zones.PILE, "", ["x"], SEATS))
    hand = log.append(zones.create_zone(log.state, "h", zones.HAND, "hero", ["y"], SEATS))
    assert [(e.type, e.visibility) for e in deck] == [
        ("ZoneCreated", PUBLIC),
        ("ZoneContentsSet", NOBODY),
    ]
    assert "cards" not in deck[0].data and deck[0].data["count"] == 2
    assert pile[1].visibility == PUBLIC and hand[1].visibility == ["hero"]
    assert cards_of(log, "deck") == ("a", "b") and zones.hand(log.state, "hero") == ("y",)


def test_an_empty_zone_has_no_contents_event() -> None:
    events = zones.create_zone(Zones(), "discard", zones.PILE, "", [], SEATS)
    assert [e.type for e in events] == ["ZoneCreated"]


@pytest.mark.parametrize(
    ("zone", "kind", "owner", "cards", "shuffle", "field"),
    [
        ("", zones.DECK, "", [], False, "zone"),
        ("bad name", zones.DECK, "", [], False, "zone"),
        ("d", "stack", "", [], False, "kind"),
        ("d", zones.DECK, "", ["ok", "not ok"], False, "cards[1]"),
        ("d", zones.DECK, "", [""], False, "cards[0]"),
        ("d", zones.HAND, "", [], False, "owner"),
        ("d", zones.PILE, "nobody_here", [], False, "owner"),
        ("d", zones.PILE, "", [], True, "shuffle"),
    ],
)
def test_malformed_create_names_the_field(
    zone: str, kind: str, owner: str, cards: list[str], shuffle: bool, field: str
) -> None:
    with pytest.raises(InvalidArgument) as err:
        zones.create_zone(Zones(), zone, kind, owner, cards, SEATS, shuffle)
    assert err.value.field == field


def test_a_zone_name_and_a_seats_hand_are_unique() -> None:
    log = given_table()
    with pytest.raises(AlreadyExists):
        zones.create_zone(log.state, "deck", zones.PILE, "", [], SEATS)
    with pytest.raises(AlreadyExists):
        zones.create_zone(log.state, "hand2", zones.HAND, "hero", [], SEATS)


# ------------------------------------------------------------------ shuffle


def test_shuffle_permutes_by_the_order_the_seed_rederives() -> None:
    log = given_table()
    before = cards_of(log, "deck")
    shuffled, notice = log.shuffled([], "deck")
    order = fair.shuffle(fair.Draws(SEED, GAME, "", 0), list(range(len(before))))
    assert shuffled.type == "DeckShuffled" and shuffled.visibility == NOBODY
    assert shuffled.data["before"] == list(before)
    assert shuffled.data["order"] == order
    assert shuffled.data["after"] == [before[i] for i in order]
    assert cards_of(log, "deck") == tuple(shuffled.data["after"])
    assert notice.type == "DeckShuffleNoticed" and notice.visibility == PUBLIC
    assert notice.data == {"zone": "deck", "nonce": 0, "count": 10}


def test_shuffling_an_empty_deck_or_a_pile_is_refused() -> None:
    log = given_table(deck=[])
    with pytest.raises(RuleViolation):
        zones.check_shuffle(log.state, "deck")
    with pytest.raises(RuleViolation):
        zones.check_shuffle(log.state, "discard")
    with pytest.raises(NotFound):
        zones.check_shuffle(log.state, "nope")


def test_shuffle_events_refuse_an_order_that_is_not_a_permutation() -> None:
    log = given_table(deck=["a", "b", "c"])
    with pytest.raises(ValueError):
        zones.shuffle_events(log.state, "deck", Shuffle(0, (0, 0, 1)))


# ------------------------------------------------------------------ draw


def test_draw_takes_the_top_cards_into_the_seats_hand() -> None:
    log = given_table()
    drawn, notice = log.append(zones.draw(log.state, "deck", "hero", 3, "cmd-1"))
    assert drawn.type == "CardsDrawn" and drawn.visibility == ["hero"]
    assert drawn.data["cards"] == ["c0", "c1", "c2"]
    assert notice.visibility == PUBLIC and notice.data["count"] == 3
    assert "cards" not in notice.data
    assert zones.hand(log.state, "hero") == ("c0", "c1", "c2")
    assert cards_of(log, "deck") == tuple(DECK_CARDS[3:])
    assert zones.find_draw(log.envelopes, "cmd-1") == (("c0", "c1", "c2"), notice.version)
    assert zones.find_draw(log.envelopes, "cmd-2") is None


def test_drawing_more_than_the_deck_holds_is_a_rule_violation() -> None:
    log = given_table(deck=["a", "b"])
    with pytest.raises(RuleViolation, match="holds 2"):
        zones.draw(log.state, "deck", "hero", 3)


@pytest.mark.parametrize(
    ("zone", "seat", "count", "error"),
    [
        ("deck", "hero", 0, InvalidArgument),
        ("", "hero", 1, InvalidArgument),
        ("deck", "", 1, InvalidArgument),
        ("nope", "hero", 1, NotFound),
        ("deck", "spectator", 1, NotFound),
        ("discard", "hero", 1, RuleViolation),
    ],
)
def test_bad_draws_are_refused(zone: str, seat: str, count: int, error: type) -> None:
    log = given_table()
    with pytest.raises(error):
        zones.draw(log.state, zone, seat, count)


# ------------------------------------------------------------------ put / discard


def test_put_on_top_is_drawn_next_and_on_bottom_last() -> None:
    log = given_table(deck=["a", "b", "c"])
    log.append(zones.draw(log.state, "deck", "hero", 2))
    moved, notice = log.append(zones.put_card(log.state, "b", "hand.hero", "deck", zones.TOP))
    assert moved.visibility == ["hero"] and moved.data["card"] == "b"
    assert notice.type == "CardMoveNoticed" and notice.visibility == PUBLIC
    assert "card" not in notice.data
    log.append(zones.put_card(log.state, "a", "hand.hero", "deck", zones.BOTTOM))
    assert cards_of(log, "deck") == ("b", "c", "a")
    log.append(zones.put_card(log.state, "b", "deck", "deck", zones.BOTTOM))
    assert cards_of(log, "deck") == ("c", "a", "b")


@pytest.mark.parametrize(
    ("src", "dst", "visibility", "noticed"),
    [
        ("deck", "deck", NOBODY, True),
        ("deck", "hand.hero", ["hero"], True),
        ("hand.hero", "hand.dungeon_lord", ["dungeon_lord", "hero"], True),
        ("deck", "discard", PUBLIC, False),
        ("discard", "deck", PUBLIC, False),
    ],
)
def test_a_moved_card_is_seen_by_who_may_see_either_zone(
    src: str, dst: str, visibility: Any, noticed: bool
) -> None:
    log = given_table(deck=["a", "b"])
    log.append(zones.create_zone(log.state, "x", zones.PILE, "", [], SEATS))
    log.append(zones.put_card(log.state, "a", "deck", src, zones.TOP) if src != "deck" else [])
    events = zones.put_card(log.state, "a", src, dst, zones.TOP)
    assert events[0].visibility == visibility
    assert [e.type for e in events[1:]] == (["CardMoveNoticed"] if noticed else [])
    log.append(events)
    assert cards_of(log, dst)[0] == "a"


def test_moving_a_card_that_is_not_there_is_not_found() -> None:
    log = given_table()
    with pytest.raises(NotFound):
        zones.put_card(log.state, "zz", "deck", "discard", zones.TOP)
    with pytest.raises(InvalidArgument) as err:
        zones.put_card(log.state, "c0", "deck", "discard", "middle")
    assert err.value.field == "position"


def test_discard_lands_face_up_on_top_of_the_pile() -> None:
    log = given_table()
    log.append(zones.draw(log.state, "deck", "hero", 2))
    (first,) = log.append(zones.discard(log.state, "c0", "hand.hero", "discard"))
    log.append(zones.discard(log.state, "c5", "deck", "discard"))
    assert first.type == "CardDiscarded" and first.visibility == PUBLIC
    assert cards_of(log, "discard") == ("c5", "c0")
    with pytest.raises(RuleViolation):
        zones.discard(log.state, "c1", "hand.hero", "deck")
    with pytest.raises(RuleViolation):
        zones.discard(log.state, "c5", "discard", "discard")


# ------------------------------------------------------------------ reshuffle


def test_reshuffle_moves_the_pile_under_the_deck_then_shuffles_it() -> None:
    log = given_table(deck=["a", "b", "c", "d"])
    log.append(zones.draw(log.state, "deck", "hero", 3))
    for card in ("a", "b"):
        log.append(zones.discard(log.state, card, "hand.hero", "discard"))
    moved, shuffled, _ = log.shuffled(zones.reshuffle_discard(log.state, "discard", "deck"), "deck")
    assert moved.type == "DiscardReshuffled" and moved.visibility == PUBLIC
    assert moved.data["cards"] == ["b", "a"]
    assert shuffled.data["before"] == ["d", "b", "a"]
    assert sorted(cards_of(log, "deck")) == ["a", "b", "d"]
    assert cards_of(log, "discard") == ()


def test_reshuffling_nothing_is_refused() -> None:
    log = given_table(deck=[])
    with pytest.raises(RuleViolation):
        zones.reshuffle_discard(log.state, "discard", "deck")
    with pytest.raises(RuleViolation):
        zones.reshuffle_discard(log.state, "deck", "discard")


# ------------------------------------------------------------------ search


def test_search_takes_matches_in_card_id_order_whatever_the_deck_order() -> None:
    log = given_table(deck=["m.3", "x", "m.1", "y", "m.2", "z"])
    found, notice = log.append(zones.search(log.state, "deck", "hero", "m.", ["z"], 3))
    assert found.visibility == ["hero"] and found.data["cards"] == ["m.1", "m.2", "m.3"]
    assert notice.visibility == PUBLIC and notice.data["count"] == 3
    assert cards_of(log, "deck") == ("x", "y", "z")
    found, _ = log.append(zones.search(log.state, "deck", "hero", "", ["z", "q"], 5))
    assert found.data["cards"] == ["z"]
    nothing, notice = log.append(zones.search(log.state, "deck", "hero", "nomatch", [], 1))
    assert nothing.data["cards"] == [] and notice.data["count"] == 0


def test_search_with_a_limit_takes_the_lowest_ids() -> None:
    log = given_table(deck=["m.3", "m.1", "x", "m.2"])
    found, _ = log.append(zones.search(log.state, "deck", "hero", "m.", [], 2))
    assert found.data["cards"] == ["m.1", "m.2"] and cards_of(log, "deck") == ("m.3", "x")


def test_search_then_shuffle_shuffles_what_is_left() -> None:
    log = given_table()
    events = zones.search(log.state, "deck", "hero", "", ["c3"], 1)
    _, _, shuffled, _ = log.shuffled(events, "deck")
    assert "c3" not in shuffled.data["before"] and len(shuffled.data["after"]) == 9


@pytest.mark.parametrize(
    ("prefix", "ids", "limit", "field"),
    [
        ("", [], 1, "id_prefix"),
        ("c", [], 0, "limit"),
        ("a b", [], 1, "id_prefix"),
        ("", ["", "x"], 1, "ids[0]"),
    ],
)
def test_malformed_search_names_the_field(
    prefix: str, ids: list[str], limit: int, field: str
) -> None:
    log = given_table()
    with pytest.raises(InvalidArgument) as err:
        zones.search(log.state, "deck", "hero", prefix, ids, limit)
    assert err.value.field == field


# ------------------------------------------------------------------ fold


def test_fold_refuses_a_log_that_contradicts_itself() -> None:
    log = given_table(deck=["a", "b"])
    bad = NewEvent(
        "DeckShuffled",
        {"zone": "deck", "nonce": 0, "before": ["b", "a"], "after": ["a", "b"], "order": [1, 0]},
        NOBODY,
    )
    with pytest.raises(zones.LogMismatch):
        log.append([bad])


def test_unknown_event_types_change_nothing() -> None:
    log = given_table()
    before = log.state.zones
    log.append([NewEvent("SomethingNew", {"x": 1})])
    assert log.state.zones == before


# ------------------------------------------------------------------ random playouts


PUBLIC_TYPES = {
    "ZoneCreated",
    "ZoneContentsSet",
    "DeckShuffleNoticed",
    "CardsDrawnNoticed",
    "CardMoved",
    "CardMoveNoticed",
    "CardDiscarded",
    "DiscardReshuffled",
    "CardsSearchNoticed",
}


def _lists(value: Any) -> list[list[Any]]:
    """Return every list inside a JSON value."""
    if isinstance(value, list):
        return [value, *(x for v in value for x in _lists(v))]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _lists(v)]
    return []


def test_no_event_a_seat_can_see_carries_a_shuffled_order() -> None:
    log = given_table()
    log.shuffled([], "deck")
    log.append(zones.draw(log.state, "deck", "hero", 2))
    top = zones.hand(log.state, "hero")[0]
    log.append(zones.put_card(log.state, top, "hand.hero", "deck", zones.BOTTOM))
    log.shuffled(zones.search(log.state, "deck", "dungeon_lord", "c", [], 1), "deck")
    log.shuffled([], "deck")
    orders = [e.data["after"] for e in log.envelopes if e.type == "DeckShuffled"]
    assert len(orders) == 3
    for env in log.envelopes:
        if env.visibility == NOBODY:
            continue
        for lst in _lists(env.data):
            for order in orders:
                runs = {tuple(order[i : i + 3]) for i in range(len(order) - 2)}
                assert not any(tuple(lst[i : i + 3]) in runs for i in range(len(lst) - 2)), env


def _random_step(log: Log, rng: random.Random) -> None:
    """Append one random command (refused ones append nothing)."""
    s = log.state
    names = list(s.zones)
    any_card = lambda z: rng.choice(s.zones[z].cards) if s.zones[z].cards else "none"  # noqa: E731
    op = rng.choice(["draw", "put", "discard", "reshuffle", "search", "shuffle"])
    seat = rng.choice(SEATS)
    try:
        if op == "draw":
            log.append(zones.draw(s, "deck", seat, rng.randint(1, 3)))
        elif op == "put":
            src = rng.choice(names)
            log.append(
                zones.put_card(
                    s, any_card(src), src, rng.choice(names), rng.choice(zones.POSITIONS)
                )
            )
        elif op == "discard":
            src = rng.choice(names)
            log.append(zones.discard(s, any_card(src), src, "discard"))
        elif op == "reshuffle":
            log.shuffled(zones.reshuffle_discard(s, "discard", "deck"), "deck")
        elif op == "search":
            events = zones.search(
                s, "deck", seat, rng.choice(["a", "b", "c"]), [], rng.randint(1, 2)
            )
            if rng.random() < 0.5 and zones.shuffle_count(zones.apply_new(s, events), "deck"):
                log.shuffled(events, "deck")
            else:
                log.append(events)
        else:
            zones.check_shuffle(s, "deck")
            log.shuffled([], "deck")
    except DomainError:
        assert log.state == s


@pytest.mark.parametrize("seed", range(12))
def test_random_playouts_conserve_cards_and_never_leak_the_deck_order(seed: int) -> None:
    rng = random.Random(seed)
    deck = [f"{rng.choice('abc')}.{i}" for i in range(20)] + ["a.0", "b.dup", "b.dup"]
    log = given_table(deck=deck)
    log.shuffled([], "deck")
    for _ in range(150):
        _random_step(log, rng)
        assert all_cards(log.state) == Counter(deck)
    kinds = {z.name: z.kind for z in log.state.zones.values()}
    owners = {z.name: z.owner for z in log.state.zones.values() if z.kind == zones.HAND}
    for env in log.envelopes:
        if env.visibility == NOBODY:
            continue
        assert not {"before", "after", "order"} & set(env.data), env
        if env.visibility == PUBLIC:
            assert env.type in PUBLIC_TYPES, env
            if env.type in ("ZoneContentsSet", "CardMoved"):
                touched = {env.data.get(k) for k in ("zone", "from_zone", "to_zone")}
                assert zones.PILE in {kinds.get(z) for z in touched}, env
            assert "cards" not in env.data or env.type in ("ZoneContentsSet", "DiscardReshuffled")
        else:
            touched = {env.data.get(k) for k in ("hand", "zone", "from_zone", "to_zone")}
            assert set(env.visibility) <= {owners[z] for z in touched if z in owners}, env
    assert zones.fold(log.envelopes) == log.state
    assert log.nonce > 1
