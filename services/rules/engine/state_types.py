"""The state's classes: the immutable State and its read-only maps (FrozenMap).

They live apart from state.py, which is compiled with mypyc (docs/native.md), so that they
stay plain Python classes: a State is copied and changed through its `__dict__`
(state.copy_with), a game extends it (Worlds' WorldsState), and compiled code checks a plain
class with isinstance. Import them from state.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

Args = dict[str, Any]
# a queued task, (name, args): a tuple when queued live, a list when read back from a log
Task = Sequence[Any]


def _refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
    """Every mutator of a FrozenMap."""
    raise TypeError("the game state is immutable: build a changed copy (put, with_)")


class FrozenMap(dict[str, Any]):
    """A read-only dict: the state's zones, counters and vars.

    Reads are plain dict reads (a mappingproxy's `get` costs a method call per read, and
    the rules read the state hundreds of times per decision); every mutator raises
    TypeError, so a rule cannot edit a state in place. Build a changed copy with `put`.
    """

    __slots__ = ()

    __setitem__ = _refuse
    __delitem__ = _refuse
    clear = _refuse  # type: ignore[assignment]
    pop = _refuse  # type: ignore[assignment]
    popitem = _refuse  # type: ignore[assignment]
    setdefault = _refuse  # type: ignore[assignment]
    update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        return (FrozenMap, (dict(self),))


def frozen(items: dict[str, Any]) -> FrozenMap:
    """Return a read-only copy of a dict."""
    return FrozenMap(items)


_EMPTY: Final[Mapping[str, Any]] = FrozenMap()


def thaw(value: Any) -> Any:
    """Return a private copy of a JSON value (containers copied as lists/dicts)."""
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    if isinstance(value, (dict, MappingProxyType)):  # FrozenMap is a dict
        return {k: thaw(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class State:
    """The whole game state; fold events into it with evolve."""

    game_id: str = ""
    phase: str = "new"
    zones: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _EMPTY)
    counters: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    vars: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    exhausted: frozenset[str] = frozenset()
    tasks: tuple[Task, ...] = ()
    pending: Mapping[str, Any] | None = None
    winner: str = ""
    events: int = 0

    # --- readers -------------------------------------------------------
    def zone(self, name: str) -> tuple[str, ...]:
        """Return the cards of a zone (top first)."""
        return self.zones.get(name, ())

    def count(self, key: str) -> int:
        """Return a counter's value (0 when unset)."""
        return self.counters.get(key, 0)

    def var(self, key: str, default: Any = None) -> Any:
        """Return a private copy of a var's JSON value, or default."""
        raw = self.vars.get(key)
        return default if raw is None else thaw(raw)

    def peek(self, key: str, default: Any = None) -> Any:
        """Return a var's JSON value itself, shared with the state: read it, never edit it."""
        raw = self.vars.get(key)
        return default if raw is None else raw

    def where(self, card: str) -> str | None:
        """Return the zone holding a card, or None."""
        for name, cards in self.zones.items():
            if card in cards:
                return name
        return None

    def pending_dict(self) -> dict[str, Any] | None:
        """Return a private copy of the pending decision as a dict, or None."""
        return thaw(self.pending) if self.pending else None
