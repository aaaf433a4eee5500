"""A benchmark figure beside its same-run baseline."""

from __future__ import annotations

from typing import Any


def figure(
    name: str,
    value: float,
    unit: str,
    baseline_name: str,
    baseline: float,
    goal: str,
    goal_ratio: float | None,
    lower_is_better: bool = False,
) -> dict[str, Any]:
    """Return a figure with its baseline, their ratio and whether the goal holds (None: none)."""
    ratio = value / baseline if baseline else 0.0
    met = None
    if goal_ratio is not None:
        met = ratio <= goal_ratio if lower_is_better else ratio >= goal_ratio
    return {
        "name": name,
        "value": round(value, 3),
        "unit": unit,
        "baseline_name": baseline_name,
        "baseline": round(baseline, 3),
        "ratio": round(ratio, 3),
        "goal": goal,
        "goal_met": met,
    }
