"""Struct conversion: JSON-ready data round-trips; client input is bounded."""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.errors import InvalidArgument
from services.platform.grpcx.structs import MAX_DEPTH, client_struct, struct_to_py, to_struct

SCALARS = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=6), JSON, max_size=5))
def test_json_ready_data_round_trips_through_a_struct_with_ints_kept(data):
    # given JSON-ready data (ints, strings, lists, objects), when sent as a Struct and read back
    back = client_struct(to_struct(data), "args")
    # then it is the same data, integers still integers
    assert back == data
    assert struct_to_py(to_struct(data)) == data


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.sampled_from(["list", "dict"]))
def test_nesting_beyond_the_bound_is_invalid_argument_naming_the_field(depth, how):
    wrap = (lambda acc, _: [acc]) if how == "list" else (lambda acc, _: {"k": acc})
    data = {"x": functools.reduce(wrap, range(depth), 1)}
    if depth < MAX_DEPTH:
        assert client_struct(to_struct(data), "options") == data
    else:
        with pytest.raises(InvalidArgument, match=r"^options: nests deeper"):
            client_struct(to_struct(data), "options")


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(bad):
    with pytest.raises(InvalidArgument, match=r"^args: holds a number that is not finite"):
        client_struct(to_struct({"n": [bad]}), "args")


def test_too_many_values_or_bytes_are_refused():
    with pytest.raises(InvalidArgument, match=r"^args: has more than"):
        client_struct(to_struct({"n": list(range(5000))}), "args")
    with pytest.raises(InvalidArgument, match=r"^args: is larger than"):
        client_struct(to_struct({"s": "x" * 70_000}), "args")
