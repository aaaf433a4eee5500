"""Where a projection runner's lag goes: samples of each stage of an event's way to its views.

The faust runner knows three instants besides the append: when the relay produced the
record (its Kafka timestamp), when the worker received it, and when its views were
written. So an event's append-to-view lag splits into ``relay`` (append to produce),
``broker`` (produce to receipt: the broker, the fetch and the consumer's hand-off) and
``worker`` (receipt to views written: applying, the view interval, the commit). Each
stage keeps its last samples; the status record reports their p50 and p99.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

SAMPLES = 10_000


def quantiles(samples: list[float]) -> tuple[float, float]:
    """Return (p50, p99) of samples (0 when there are none)."""
    if not samples:
        return 0.0, 0.0
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


@dataclass(frozen=True)
class Received:
    """When a runner received a batch (Unix time), and each event's record timestamp
    (when the relay produced it; None where the record has none)."""

    at: float
    produced: Sequence[float | None]


class Stages:
    """The last samples of each stage's time, in seconds."""

    def __init__(self, keep: int = SAMPLES) -> None:
        self.keep = keep
        self.samples: dict[str, deque[float]] = {}

    def add(self, stage: str, seconds: float) -> None:
        """Record one event's time in a stage (a negative time, clock skew, counts as 0)."""
        kept = self.samples.get(stage)
        if kept is None:
            kept = self.samples[stage] = deque(maxlen=self.keep)
        kept.append(max(0.0, seconds))

    def record_hops(self, appended: float, produced: float | None, received: float) -> None:
        """Record an event's relay stage (append to produce) and broker stage (produce to
        receipt), when its record has a timestamp."""
        if produced:
            self.add("relay", produced - appended)
            self.add("broker", received - produced)

    def status(self) -> dict[str, dict[str, float]]:
        """Return {stage: {"p50_s": .., "p99_s": .., "n": ..}} of the stages seen."""
        out = {}
        for stage, kept in self.samples.items():
            p50, p99 = quantiles(list(kept))
            out[stage] = {"p50_s": round(p50, 6), "p99_s": round(p99, 6), "n": len(kept)}
        return out
