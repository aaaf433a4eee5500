"""The edge's building blocks: descriptor-driven bounds, bounded JSON, short quotes, rare logs."""

from __future__ import annotations

import pytest
from fallen.dice.v1 import dice_pb2
from fallen.projections.v1 import projections_pb2 as ppb
from fallen.rules.v1 import rules_pb2
from google.protobuf.struct_pb2 import Struct

from services.platform.boundedjson import json_depth, loads_bounded
from services.platform.errors import InvalidArgument, quote
from services.platform.grpcx.bounds import Limits, check_request
from services.platform.grpcx.guard import RateLimitedLog, client_host


def deep_struct(levels: int) -> Struct:
    """Return a Struct whose one field nests lists levels deep."""
    value: object = "x"
    for _ in range(levels):
        value = [value]
    out = Struct()
    out.update({"k": value})
    return out


def _deck(n: int) -> Struct:
    """Options whose deck for p1 lists n cards."""
    out = Struct()
    out.update({"decks": {"p1": ["uea_marine"] * n}})
    return out


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (rules_pb2.SubmitCommandRequest(game_id="g", seat="s" * 129), "seat"),
        (rules_pb2.SubmitCommandRequest(game_id="g", command_id="a\x00b"), "command_id"),
        (
            rules_pb2.SubmitCommandRequest(game_id="g", args=deep_struct(40)),
            "args.k",
        ),
        (rules_pb2.CreateGameRequest(game="toy", seats={"k" * 200: "p"}), "seats key"),
        (rules_pb2.CreateGameRequest(game="toy", client_seed="x" * 5000), "client_seed"),
        (ppb.ReadEventsRequest(game_id="g", from_version=2**63), "from_version"),
        (dice_pb2.RollRequest(game_id="g", purpose="p", visible_to=["a"] * 1001), "visible_to"),
        (rules_pb2.CreateGameRequest(game="g", options=_deck(1001)), "options.decks.p1"),
    ],
)
def test_given_an_out_of_bounds_field_then_invalid_argument_names_it(
    request_: object, field: str
) -> None:
    with pytest.raises(InvalidArgument) as info:
        check_request(request_)  # type: ignore[arg-type]
    assert info.value.field == field
    assert len(str(info.value)) < 200


def test_given_plausible_requests_then_they_pass() -> None:
    check_request(rules_pb2.SubmitCommandRequest(game_id="g1", seat="hero", args=deep_struct(5)))
    check_request(ppb.ReadEventsRequest(game_id="g1", from_version=2**62))
    check_request(dice_pb2.RollRequest(game_id="g1", purpose="challenge:dl", dice=["d6"] * 100))


def test_given_a_deep_struct_then_its_depth_is_bounded_without_recursion_errors() -> None:
    # given a Struct nested 40 levels (each level is two messages: Struct and Value)
    inner: dict[str, object] = {}
    deep = inner
    for _ in range(40):
        deep["x"] = {}
        deep = deep["x"]  # type: ignore[assignment]
    struct = Struct()
    struct.update(inner)
    # then the walk stops at the limit with the field path
    with pytest.raises(InvalidArgument, match="nests deeper"):
        check_request(struct, Limits(message_depth=20))


def test_given_json_with_brackets_in_strings_then_depth_counts_structure_only() -> None:
    assert json_depth('{"a": "[[[[[[", "b": [1, [2]]}') == 3
    assert json_depth('"\\\\"') == 0
    assert loads_bounded('{"k": "[[["}', "f") == {"k": "[[["}
    with pytest.raises(InvalidArgument, match="deeper"):
        loads_bounded("[" * 33 + "]" * 33, "f")
    with pytest.raises(InvalidArgument, match="not valid JSON"):
        loads_bounded("{", "f")


def test_given_long_input_then_quote_keeps_a_short_prefix_and_the_length() -> None:
    assert quote("short") == "'short'"
    quoted = quote("x" * 1_000_000)
    assert len(quoted) < 64 and "1000000 chars" in quoted


def test_given_many_refusals_from_one_client_then_one_log_per_interval() -> None:
    limiter = RateLimitedLog(every_s=60)
    host = client_host("ipv4:10.0.0.1:5555")
    assert host == client_host("ipv4:10.0.0.1:6666") == "ipv4:10.0.0.1"
    assert [limiter.should_log(host, now=t) for t in (0, 1, 59)] == [True, False, False]
    assert limiter.should_log(host, now=61) and limiter.should_log("ipv4:10.0.0.2", now=61)
