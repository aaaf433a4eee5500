"""JSON parsing with bounded size and nesting depth, for any JSON a client sends."""

from __future__ import annotations

import json
from typing import Any

from services.platform.errors import InvalidArgument

MAX_JSON_BYTES = 64 * 1024
MAX_JSON_DEPTH = 32


def json_depth(text: str) -> int:
    """Return the deepest nesting of [ and { outside strings (no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def check_json_text(
    text: str, field: str, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH
) -> None:
    """Raise InvalidArgument naming field if text is too large or too deeply nested."""
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise InvalidArgument(field, f"is larger than {max_bytes} bytes")
    if json_depth(text) > max_depth:
        raise InvalidArgument(field, f"nests deeper than {max_depth} levels")


def loads_bounded(
    text: str, field: str, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH
) -> Any:
    """Parse client JSON, or raise InvalidArgument naming field (never RecursionError)."""
    check_json_text(text, field, max_bytes, max_depth)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(field, f"is not valid JSON: {exc.msg} at {exc.pos}") from exc
    except (RecursionError, ValueError) as exc:
        raise InvalidArgument(field, "is not valid JSON") from exc
