"""Upcasters: read old event payload versions as the current one (old logs must replay).

A stored event keeps the payload and schema version it was written with forever (its hash
covers the payload). Readers that fold events (projections, replay) pass each event
through ``upcast`` first: an upcaster registered for ``(type, version)`` turns a payload of
that version into the next version, and they chain until no upcaster applies. Hash checks
always use the stored event, never the upcast one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from services.platform.envelope import Envelope

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
MAX_STEPS = 64


@dataclass
class Upcasters:
    """A registry of (event type, schema version) -> payload of version + 1."""

    steps: dict[tuple[str, int], Upcaster] = field(default_factory=dict)

    def register(self, type_: str, from_version: int, fn: Upcaster) -> None:
        """Register fn to turn a from_version payload of type_ into from_version + 1."""
        key = (type_, from_version)
        if key in self.steps:
            raise ValueError(f"an upcaster for {type_} v{from_version} exists already")
        self.steps[key] = fn

    def merged(self, extra: Mapping[tuple[str, int], Upcaster] | None) -> Upcasters:
        """Return a registry holding these upcasters and extra ones (extra wins)."""
        return Upcasters({**self.steps, **(extra or {})})

    def upcast(self, env: Envelope) -> Envelope:
        """Return env with its payload raised to the newest version known (env if none)."""
        data, version = env.data, env.schema_version
        for _ in range(MAX_STEPS):
            step = self.steps.get((env.type, version))
            if step is None:
                break
            data = step(dict(data))
            version += 1
        else:
            raise ValueError(f"upcasting {env.type} v{env.schema_version} does not terminate")
        if version == env.schema_version:
            return env
        return replace(env, data=data, schema_version=version)


# The registry every reader uses; engines may add their own through ``rules.upcasters``.
REGISTRY = Upcasters()


def for_rules(rules: Any, base: Upcasters | None = None) -> Upcasters:
    """Return the registry for a game: the kernel's plus the engine's ``upcasters`` (if any)."""
    extra = getattr(rules, "upcasters", None)
    return (base or REGISTRY).merged(extra if isinstance(extra, Mapping) else None)
