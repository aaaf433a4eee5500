"""Chance's values built without dataclass __init__ equal the ones built with it."""

from __future__ import annotations

from itertools import islice

from services.dice import fair
from services.rules.kernel.api import CHANCE, ChanceRequest, Command, command
from services.rules.kernel.chance import request_of

SEATS = ("a", "b")


def test_given_a_keyed_seed_when_drawing_then_the_bytes_are_the_published_stream() -> None:
    # given one keyed HMAC shared by the draws of two nonces
    seed = b"s" * 32
    keyed = fair.keyed(seed)
    for nonce in (0, 7):
        # when 200 bytes are drawn (7 blocks) with and without it
        fast = fair.Draws(seed, "g", "c", nonce, keyed)
        plain = fair.Draws(seed, "g", "c", nonce)
        # then both are the scheme's byte stream, and so are their integers
        expected = bytes(islice(fair.byte_stream(seed, "g", "c", nonce), 200))
        assert fast._take(200) == plain._take(200) == expected
        assert [fair.Draws(seed, "g", "", nonce, keyed).uniform(6) for _ in range(3)] == [
            fair.Draws(seed, "g", "", nonce).uniform(6) for _ in range(3)
        ]


def test_given_pending_chance_decisions_when_read_then_requests_equal_the_dataclass_ones() -> None:
    # given a pending roll and a pending deck draw
    roll = {"kind": "roll", "data": {"purpose": "p", "dice": ["d6"], "resume": "r"}}
    draw = {"kind": "deck_draw", "data": {"purpose": "q", "deck": "d", "count": 2}}
    # when their requests are read, then they equal requests built by __init__
    assert request_of(roll, SEATS) == ChanceRequest("roll", "p", dice=("d6",), visible_to=SEATS)
    assert request_of(draw, SEATS) == ChanceRequest("deck_draw", "q", count=2, deck="d")
    assert command(CHANCE, "k", {"x": 1}) == Command(CHANCE, "k", {"x": 1})
    assert repr(command("a", "pass", {})) == repr(Command("a", "pass", {}))
