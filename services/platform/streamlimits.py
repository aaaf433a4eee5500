"""Bounds on open streams (gRPC WatchView/WatchTicket, the gateway's SSE): per player, per
client address and in total, so no caller can hold the server's memory with idle streams.

Configured by the environment (each a count; 0 = no bound):

- ``FALLEN_STREAMS_PER_PLAYER`` (default 16): gRPC streams one player (any of their
  tokens) holds at once.
- ``FALLEN_STREAMS_PER_ADDRESS`` (default 256): gRPC streams of players from one peer
  address (a web gateway relays its players' streams from its own address).
- ``FALLEN_STREAMS_TOTAL`` (default 2000): gRPC streams one process serves at once.
- ``FALLEN_WEB_STREAMS_PER_ADDRESS`` (default 16) and ``FALLEN_WEB_STREAMS_TOTAL``
  (default 1000): the gateway's SSE streams per HTTP client address and in total.

Services and the gateway's spectator token are bound only by the total over gRPC (the
gateway bounds its anonymous callers by their own addresses).

A stream beyond a bound is refused at once: RESOURCE_EXHAUSTED with RetryInfo over gRPC,
HTTP 429 with Retry-After from the gateway.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from services.platform.auth import Principal
from services.platform.gamemetrics import STREAMS_OPEN
from services.platform.quotas import QuotaExceeded

RETRY_AFTER_S = 5.0


@dataclass(frozen=True)
class StreamBounds:
    """The most streams per player, per address and in total (0 = unbounded)."""

    per_player: int = 16
    per_address: int = 256
    total: int = 2000

    @classmethod
    def from_env(cls) -> StreamBounds:
        """Return the gRPC bounds of FALLEN_STREAMS_* (defaults for those unset)."""
        d = cls()
        return cls(
            int(os.environ.get("FALLEN_STREAMS_PER_PLAYER", d.per_player)),
            int(os.environ.get("FALLEN_STREAMS_PER_ADDRESS", d.per_address)),
            int(os.environ.get("FALLEN_STREAMS_TOTAL", d.total)),
        )

    @classmethod
    def web_from_env(cls) -> StreamBounds:
        """Return the gateway's SSE bounds of FALLEN_WEB_STREAMS_* (no per-player bound)."""
        return cls(
            0,
            int(os.environ.get("FALLEN_WEB_STREAMS_PER_ADDRESS", 16)),
            int(os.environ.get("FALLEN_WEB_STREAMS_TOTAL", 1000)),
        )


class StreamLimiter:
    """Counts open streams by player and address; refuses one beyond a bound."""

    def __init__(self, bounds: StreamBounds | None = None, kind: str = "grpc") -> None:
        self.bounds = bounds or StreamBounds.from_env()
        self.gauge = STREAMS_OPEN.labels(kind)
        self.players: Counter[str] = Counter()
        self.addresses: Counter[str] = Counter()
        self.total = 0

    def hold_for(self, principal: Principal, peer: str) -> contextlib.AbstractContextManager[None]:
        """Hold one gRPC stream of a caller: players are bound per player and per address,
        services and spectators (the gateway) by the total only."""
        if principal.is_service or principal.is_spectator:
            return self.hold("", "")
        return self.hold(principal.subject, peer)

    def _check(self, player: str, address: str) -> None:
        b = self.bounds
        if b.total and self.total >= b.total:
            raise QuotaExceeded("streams (server total)", RETRY_AFTER_S)
        if b.per_address and address and self.addresses[address] >= b.per_address:
            raise QuotaExceeded("streams per address", RETRY_AFTER_S)
        if b.per_player and player and self.players[player] >= b.per_player:
            raise QuotaExceeded("streams per player", RETRY_AFTER_S)

    @contextlib.contextmanager
    def hold(self, player: str, address: str) -> Iterator[None]:
        """Hold one stream for player ('' = not bound per player) from address while the
        block runs; raise QuotaExceeded (RESOURCE_EXHAUSTED) if a bound is reached."""
        self._check(player, address)
        keyed = [(c, k) for c, k in ((self.players, player), (self.addresses, address)) if k]
        for counter, key in keyed:
            counter[key] += 1
        self.total += 1
        self.gauge.inc()
        try:
            yield
        finally:
            self.total -= 1
            self.gauge.dec()
            for counter, key in keyed:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
