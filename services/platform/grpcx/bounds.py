"""Request bounds checked on any message by walking its descriptor (no per-RPC code).

Every string, repeated field, map, nested message (Struct included) and integer of a
request is checked against limits the services and stores can hold, so a new field or
RPC is covered without code. Violations raise InvalidArgument naming the field path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from services.platform.boundedjson import MAX_JSON_BYTES, MAX_JSON_DEPTH, check_json_text
from services.platform.errors import InvalidArgument

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
INT_TYPES = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
}  # fmt: skip
ID_SUFFIXES = ("_id", "_ids")
# JSON trees (google.protobuf.Struct): a field path names the keys a client wrote
# (`options.decks.p1`), not the wrapper messages (`options.fields.struct_value...`).
STRUCT = "google.protobuf.Struct"
JSON_NODES = {STRUCT, "google.protobuf.Value", "google.protobuf.ListValue"}
ID_NAMES = {"seat", "kind", "game", "zone", "purpose", "deck", "pile", "subject", "visible_to"}


@dataclass(frozen=True)
class Limits:
    """The bounds every request must respect."""

    id_chars: int = 128  # ids, seats, kinds, purposes: printable, no control characters
    text_chars: int = 4096  # any other string
    json_bytes: int = MAX_JSON_BYTES  # *_json strings, and Struct trees in total
    json_depth: int = MAX_JSON_DEPTH  # nesting of *_json strings
    message_depth: int = 2 * MAX_JSON_DEPTH  # nested messages (a Struct level is two)
    repeated: int = 1000  # entries of a repeated field or map
    bytes_len: int = 64 * 1024  # bytes fields
    max_int: int = 2**62  # integers the stores hold (signed 64-bit SQLite, Lua doubles)


LIMITS = Limits()


def is_id_field(name: str) -> bool:
    """Return whether a string field holds an identifier (strict charset and length)."""
    return name in ID_NAMES or name.endswith(ID_SUFFIXES)


MAX_PATH_PARTS = 3


def check_request(message: Message, limits: Limits = LIMITS) -> None:
    """Raise InvalidArgument unless every field of message is within limits."""
    budget = [limits.json_bytes * 4]  # total characters across the whole request
    try:
        _walk(message, "", 0, limits, budget)
    except InvalidArgument as exc:
        parts = exc.field.split(".")
        if len(parts) <= MAX_PATH_PARTS:
            raise
        short = ".".join(parts[:MAX_PATH_PARTS]) + "..."
        raise InvalidArgument(short, str(exc).split(": ", 1)[-1]) from None


def _walk(message: Message, path: str, depth: int, limits: Limits, budget: list[int]) -> None:
    if depth > limits.message_depth:
        raise InvalidArgument(path or "request", f"nests deeper than {limits.json_depth} levels")
    json_node = message.DESCRIPTOR.full_name in JSON_NODES
    for field, value in message.ListFields():
        name = path if json_node else (f"{path}.{field.name}" if path else field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            keyed = message.DESCRIPTOR.full_name == STRUCT
            _check_map(field, value, name, depth, limits, budget, keyed=keyed)
        elif field.is_repeated:
            if len(value) > limits.repeated:
                raise InvalidArgument(name, f"has more than {limits.repeated} entries")
            for item in value:
                _check_value(field, field.name, item, name, depth, limits, budget)
        else:
            _check_value(field, field.name, value, name, depth, limits, budget)


def _check_map(
    field: FieldDescriptor,
    value: object,
    name: str,
    depth: int,
    limits: Limits,
    budget: list[int],
    *,
    keyed: bool = False,
) -> None:
    entries = dict(value)  # type: ignore[call-overload]
    if len(entries) > limits.repeated:
        raise InvalidArgument(name, f"has more than {limits.repeated} entries")
    entry = field.message_type
    assert entry is not None
    key_field = entry.fields_by_name["key"]
    value_field = entry.fields_by_name["value"]
    for key, item in entries.items():
        if isinstance(key, str):
            _check_string(key, f"{name} key", field.name, limits, budget, strict=True)
        _check_value(key_field, "key", key, name, depth, limits, budget)
        at = (f"{name}.{key}" if name else str(key)) if keyed else name
        _check_value(value_field, field.name, item, at, depth, limits, budget)


def _check_value(
    field: FieldDescriptor,
    short: str,
    value: object,
    name: str,
    depth: int,
    limits: Limits,
    budget: list[int],
) -> None:
    if field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP):
        assert isinstance(value, Message)
        _walk(value, name, depth + 1, limits, budget)
    elif field.type == FieldDescriptor.TYPE_STRING:
        assert isinstance(value, str)
        _check_string(value, name, short, limits, budget, strict=is_id_field(short))
    elif field.type == FieldDescriptor.TYPE_BYTES:
        assert isinstance(value, bytes)
        if len(value) > limits.bytes_len:
            raise InvalidArgument(name, f"is longer than {limits.bytes_len} bytes")
    elif field.type in INT_TYPES:
        assert isinstance(value, int)
        if not -limits.max_int <= value <= limits.max_int:
            raise InvalidArgument(name, f"must be between -2^62 and 2^62, got {value}")


def _check_string(
    value: str, name: str, short: str, limits: Limits, budget: list[int], *, strict: bool
) -> None:
    budget[0] -= len(value)
    if budget[0] < 0:
        raise InvalidArgument(name, "the request carries too much text")
    if short.endswith("_json"):
        check_json_text(value, name, limits.json_bytes, limits.json_depth)
        return
    if strict:
        if len(value) > limits.id_chars:
            raise InvalidArgument(name, f"is longer than {limits.id_chars} characters")
        if CONTROL.search(value):
            raise InvalidArgument(name, "must not contain control characters")
    elif len(value) > limits.text_chars:
        raise InvalidArgument(name, f"is longer than {limits.text_chars} characters")
    elif "\x00" in value:
        raise InvalidArgument(name, "must not contain NUL")
