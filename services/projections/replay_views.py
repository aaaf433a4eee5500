"""Replay a finished game as one seat: each visible game event and the seat's view after it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.platform.envelope import Envelope
from services.projections.core import GameProjection, RulesOf, apply
from services.projections.records import may_see


@dataclass(frozen=True)
class Step:
    """One visible event and the view after it (and after the hidden events that follow)."""

    version: int
    type: str
    data: dict[str, Any]
    view: dict[str, Any]


def replay_steps(
    game_id: str, envs: Sequence[Envelope], seat: str | None, rules_of: RulesOf
) -> list[Step]:
    """Return the replay of a game stream for a seat (None = spectator), from the start."""
    proj = GameProjection(game_id)
    steps: list[Step] = []
    pending: tuple[int, str, dict[str, Any]] | None = None
    last_view: dict[str, Any] = {}
    for env in envs:
        if may_see(env, seat):
            if pending is not None:
                steps.append(Step(*pending, last_view))
            pending = (env.version, env.type, dict(env.data))
        proj = apply(proj, env, rules_of)
        last_view = _view(proj, seat, rules_of) or last_view
    if pending is not None:
        steps.append(Step(*pending, last_view))
    return steps


def _view(proj: GameProjection, seat: str | None, rules_of: RulesOf) -> dict[str, Any] | None:
    """Return the seat's view now, or None where the engine cannot describe the state."""
    rules = rules_of(proj.game) if proj.game else None
    if rules is None or proj.error or proj.state is None:
        return None
    try:
        return rules.view(proj.state, seat)
    except Exception:  # mid-append states need not be describable (see core.views)
        return None


def merge_patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Return the RFC 7386 merge patch that turns old into new (None removes a key)."""
    patch: dict[str, Any] = {k: None for k in old if k not in new}
    for key, value in new.items():
        before = old.get(key)
        if key in old and before == value:
            continue
        if isinstance(value, dict) and isinstance(before, dict):
            patch[key] = merge_patch(before, value)
        else:
            patch[key] = value
    return patch


def apply_patch(old: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Return old with an RFC 7386 merge patch applied."""
    out = dict(old)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = apply_patch(out[key], value)
        else:
            out[key] = value
    return out
