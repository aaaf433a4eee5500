"""A fast dataclasses.replace for the engine's frozen dataclasses (the folds' hot path)."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def renew(obj: T, **changes: Any) -> T:
    """Return a copy of a frozen dataclass with some fields changed (no __init__ re-run)."""
    fields = type(obj).__dataclass_fields__  # type: ignore[attr-defined]
    unknown = changes.keys() - fields.keys()
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new
