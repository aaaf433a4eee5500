"""Hypothesis strategies for any protobuf request, derived from its descriptor.

Values mix plausible ones (ids of a live game, seat names, small numbers) with hostile
ones (long, control characters, deep JSON, extreme integers), so generated requests reach
the handlers' checks as well as the edge guard.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterator
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

MAX_DEPTH = 3
INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


def served_methods(
    package: str = "fallen", exclude: tuple[str, ...] = ()
) -> Iterator[MethodDescriptor]:
    """Yield every RPC method of every generated service under package (minus exclude)."""
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if not info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(info.name)
        for service in module.DESCRIPTOR.services_by_name.values():
            if service.full_name in exclude:
                continue
            yield from service.methods


def text(known: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Plausible and hostile strings."""
    return st.one_of(
        st.sampled_from(known),
        st.text(max_size=12),
        st.text(alphabet=st.characters(max_codepoint=0x1F), min_size=1, max_size=4),
        st.integers(129, 600).map(lambda n: "x" * n),
    )


JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def json_text() -> st.SearchStrategy[str]:
    """JSON argument strings: objects, other values, deep nesting and garbage."""
    return st.one_of(
        st.dictionaries(st.text(max_size=8), JSON_VALUE, max_size=3).map(json.dumps),
        JSON_VALUE.map(json.dumps),
        st.integers(30, 2000).map(lambda n: "[" * n + "]" * n),
        st.text(max_size=20),
    )


def message(desc: Descriptor, known: tuple[str, ...], depth: int = 0) -> st.SearchStrategy[Any]:
    """Return a strategy of messages of desc (a dict of fields built into the class)."""
    cls = GetMessageClass(desc)
    if desc.full_name == "google.protobuf.Struct":
        return st.dictionaries(st.text(max_size=6), JSON_VALUE, max_size=3).map(_struct(cls))
    if depth >= MAX_DEPTH:
        return st.just(cls())
    fields = {f.name: _field(f, known, depth) for f in desc.fields}
    return st.fixed_dictionaries({}, optional=fields).map(lambda kw: _build(cls, kw))


def _struct(cls: type[Message]) -> Any:
    def build(d: dict[str, Any]) -> Message:
        out = cls()
        out.update(d)  # type: ignore[attr-defined]
        return out

    return build


def _build(cls: type[Message], kw: dict[str, Any]) -> Message:
    msg = cls()
    for name, value in kw.items():
        field = msg.DESCRIPTOR.fields_by_name[name]
        target = getattr(msg, name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            for k, v in value.items():
                if isinstance(v, Message):
                    target[k].CopyFrom(v)
                else:
                    target[k] = v
        elif field.is_repeated:
            if field.message_type is not None:
                for item in value:
                    target.add().CopyFrom(item)
            else:
                target.extend(value)
        elif field.message_type is not None:
            target.CopyFrom(value)
        else:
            setattr(msg, name, value)
    return msg


def _scalar(field: FieldDescriptor, known: tuple[str, ...], depth: int) -> Any:
    t = field.type
    if t == FieldDescriptor.TYPE_STRING:
        return json_text() if field.name.endswith("_json") else text(known)
    if t == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=40)
    if t == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=False, width=32 if t == FieldDescriptor.TYPE_FLOAT else 64)
    if t == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        return st.sampled_from([v.number for v in field.enum_type.values])
    if t in INT_RANGES:
        lo, hi = INT_RANGES[t]
        return st.one_of(
            st.integers(max(lo, -2), 8), st.sampled_from([lo, hi]), st.integers(lo, hi)
        )
    assert field.message_type is not None
    return message(field.message_type, known, depth + 1)


def _field(field: FieldDescriptor, known: tuple[str, ...], depth: int) -> Any:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key = _scalar(field.message_type.fields_by_name["key"], known, depth)
        value = _scalar(field.message_type.fields_by_name["value"], known, depth)
        return st.dictionaries(key, value, max_size=3)
    if field.is_repeated:
        return st.lists(_scalar(field, known, depth), max_size=4)
    return _scalar(field, known, depth)
