"""Solo records as pure functions: which outcomes count and how a record improves."""

from __future__ import annotations

import pytest

from services.platform.errors import InvalidArgument
from services.rules.solo_records import (
    SoloRecord,
    check_request,
    decode,
    encode,
    merged,
    victory_of,
)


def test_only_prestige_or_town_health_victories_count() -> None:
    # "document whether it was a Town Health or Prestige Victory"
    assert victory_of({"winners": ["p1"], "kind": "prestige", "turns": 9}) == (9, "prestige")
    assert victory_of({"winners": ["p1"], "kind": "town_health", "turns": 7}) == (7, "town_health")
    assert victory_of({"winners": [], "kind": "turn_limit", "turns": 40}) is None
    assert victory_of({"winners": [], "kind": "forfeit"}) is None


def test_fewer_turns_surpass_the_record() -> None:
    # "attempt to surpass it in fewer Turns next game"
    r = merged(None, 12, "prestige", "g1")
    assert r == SoloRecord(12, "prestige", "g1", 1)
    assert merged(r, 12, "town_health", "g2") == SoloRecord(12, "prestige", "g1", 2)  # a tie keeps
    assert merged(r, 11, "town_health", "g3") == SoloRecord(11, "town_health", "g3", 2)
    assert merged(r, 5, "prestige", "g1") == r  # the same game told twice changes nothing
    assert decode(encode(r)) == r and decode(None) is None


def test_requests_are_validated() -> None:
    check_request("land", "ann", "solo2", 4)
    check_request("land", "ann", "solo1", 0)
    for args, field in [
        (("worlds", "ann", "solo1", 0), "game"),
        (("land", "", "solo1", 0), "player_id"),
        (("land", "ann", "solo9", 0), "variant"),
        (("land", "ann", "solo2", 5), "challenge"),
    ]:
        with pytest.raises(InvalidArgument, match=field):
            check_request(*args)
