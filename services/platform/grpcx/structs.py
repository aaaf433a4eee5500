"""google.protobuf.Struct <-> JSON-ready data, with bounds on what clients may send."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf import struct_pb2

from services.platform.errors import InvalidArgument

MAX_DEPTH = 16
MAX_NODES = 2_000
MAX_BYTES = 64 * 1024
MAX_SAFE_INT = 2**53


def _plain(obj: Any) -> Any:
    """Return obj with mappings as dicts and tuples as lists (what Struct.update takes)."""
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


def to_struct(obj: Mapping[str, Any] | None) -> struct_pb2.Struct:
    """Return a Struct holding a JSON-ready mapping (None -> empty Struct)."""
    out = struct_pb2.Struct()
    if obj:
        out.update(_plain(obj))
    return out


def to_value(obj: Any) -> struct_pb2.Value:
    """Return a Value holding JSON-ready data."""
    out = struct_pb2.Value()
    holder = struct_pb2.Struct()
    holder.update({"v": _plain(obj)})
    out.CopyFrom(holder.fields["v"])
    return out


def _number(x: float) -> int | float:
    """Return integral numbers as int (engines and JSON logs use ints)."""
    return int(x) if x.is_integer() and abs(x) <= MAX_SAFE_INT else x


def value_to_py(value: struct_pb2.Value) -> Any:
    """Return the JSON-ready form of a Value (integral numbers as int)."""
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return struct_to_py(value.struct_value)
    if kind == "list_value":
        return [value_to_py(v) for v in value.list_value.values]
    if kind == "number_value":
        return _number(value.number_value)
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    return None


def struct_to_py(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Return the JSON-ready dict of a Struct (integral numbers as int)."""
    return {k: value_to_py(v) for k, v in struct.fields.items()}


def _check_value(value: struct_pb2.Value, field: str, depth: int, budget: list[int]) -> None:
    """Raise InvalidArgument when a Value nests too deep, holds too much or is not finite."""
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidArgument(field, f"has more than {MAX_NODES} values")
    if depth > MAX_DEPTH:
        raise InvalidArgument(field, f"nests deeper than {MAX_DEPTH} levels")
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        for v in value.struct_value.fields.values():
            _check_value(v, field, depth + 1, budget)
    elif kind == "list_value":
        for v in value.list_value.values:
            _check_value(v, field, depth + 1, budget)
    elif kind == "number_value" and value.number_value - value.number_value != 0:
        raise InvalidArgument(field, "holds a number that is not finite")


def client_struct(struct: struct_pb2.Struct, field: str) -> dict[str, Any]:
    """Return a client-sent Struct as a dict, or raise InvalidArgument naming the field."""
    if struct.ByteSize() > MAX_BYTES:
        raise InvalidArgument(field, f"is larger than {MAX_BYTES} bytes")
    budget = [MAX_NODES]
    for v in struct.fields.values():
        _check_value(v, field, 1, budget)
    return struct_to_py(struct)
