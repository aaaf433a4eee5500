"""Chance's values built without dataclass __init__ equal the ones built with it."""

from __future__ import annotations

from itertools import islice

from services.dice import fair
from services.rules.engine.api import CHANCE, ChanceRequest, Command, Pending, command
from services.rules.engine.chance import request_of

SEATS = ("a", "b")


def test_given_a_keyed_seed_when_drawing_then_the_bytes_are_the_published_stream() -> None:
    # given one keyed HMAC shared by the draws of two nonces
    seed = b"s" * 32
    keyed = fair.keyed(seed)
    for nonce in (0, 7):
        # when 50 words of 4 bytes are drawn (7 blocks) with and without it
        fast = fair.Draws(seed, "g", "c", nonce, keyed)
        plain = fair.Draws(seed, "g", "c", nonce)
        # then both are the scheme's byte stream read 4 bytes at a time, big-endian
        stream = bytes(islice(fair.byte_stream(seed, "g", "c", nonce), 200))
        expected = [int.from_bytes(stream[i : i + 4], "big") for i in range(0, 200, 4)]
        assert [fast._word() for _ in range(50)] == expected
        assert [plain._word() for _ in range(50)] == expected
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


def test_given_pending_decisions_when_read_then_each_is_its_own_and_equal_ones_are_shared() -> None:
    # given engines of different seats and states pending seat decisions and dice requests
    from services.rules.engine.engine import KernelRules
    from services.rules.engine.state import State

    def rules_of(seats: tuple[str, ...]) -> KernelRules:
        engine: type[KernelRules] = type("Engine", (KernelRules,), {"seats": seats})
        return engine()

    def pending(seat: str, kind: str, prompt: str, **data: object) -> State:
        return State(pending={"seat": seat, "kind": kind, "prompt": prompt, "data": data})

    two, three = rules_of(SEATS), rules_of(("a", "b", "c"))
    roll = {"purpose": "p", "dice": ["d6"], "resume": "r"}
    # when the same decisions are read from different states and engines
    window = two.pending(pending("a", "window", "w"))
    again = two.pending(pending("a", "window", "w"))
    dice = two.pending(pending(CHANCE, "roll", "roll d6", **roll))
    dice_again = two.pending(pending(CHANCE, "roll", "roll d6", **roll))
    other_seats = three.pending(pending(CHANCE, "roll", "roll d6", **roll))
    other_dice = two.pending(pending(CHANCE, "roll", "roll d6, d6", **{**roll, "dice": ["d6"] * 2}))
    hidden = two.pending(pending(CHANCE, "shuffle", "shuffle 3", purpose="shuffle x", count=3))
    # then each equals the decision built by __init__ (the same object when equal)
    assert window is again and window == Pending("a", "window", "w")
    assert dice is dice_again and dice is not None and dice.chance is not None
    assert dice.chance == ChanceRequest("roll", "p", dice=("d6",), visible_to=SEATS)
    assert other_seats is not None and other_seats.chance is not None
    assert other_seats.chance.visible_to == ("a", "b", "c")
    assert other_dice is not None and other_dice.chance is not None
    assert other_dice.chance.dice == ("d6", "d6")
    assert hidden is not None and hidden.chance == ChanceRequest("shuffle", "shuffle x", count=3)
    assert two.pending(pending("b", "window", "w")) == Pending("b", "window", "w")
