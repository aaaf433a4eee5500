"""How much of the last second a runner spent applying events and writing views."""

from __future__ import annotations

from collections import deque

WINDOW_S = 1.0


class BusyShare:
    """The share of the last WINDOW_S (monotonic seconds) covered by noted busy spans."""

    def __init__(self, window_s: float = WINDOW_S) -> None:
        self.window = window_s
        self._spans: deque[tuple[float, float]] = deque()

    def add(self, start: float, end: float) -> None:
        """Note that the runner was busy from start to end."""
        if end > start:
            self._spans.append((start, end))

    def share(self, now: float) -> float:
        """Return the busy share of the window ending at now (0 to 1)."""
        since = now - self.window
        while self._spans and self._spans[0][1] <= since:
            self._spans.popleft()
        busy = sum(min(end, now) - max(start, since) for start, end in self._spans)
        return min(1.0, max(0.0, busy / self.window))
