"""Per-player quotas: token buckets on the RPCs that write (CreateGame, Enqueue/Cancel,
SubmitCommand), answered RESOURCE_EXHAUSTED with the retry delay (google.rpc.RetryInfo).

Configured by ``FALLEN_QUOTAS``: comma-separated ``name=rate/burst`` (tokens per second
and bucket size), e.g. ``create=1/60,queue=2/60,submit=50/500`` (the defaults); a name
left out keeps its default, ``name=off`` lifts it, and ``FALLEN_QUOTAS=off`` lifts all.
Services are never limited. Buckets live in each process (a replica limits what it
serves), for at most MAX_BUCKETS players per quota: the least recently used are forgotten
first, and a forgotten bucket comes back full.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import dataclass

from services.platform.auth import Principal
from services.platform.errors import DomainError
from services.platform.gamemetrics import QUOTA_REFUSED

MAX_BUCKETS = 100_000


@dataclass(frozen=True)
class Rate:
    """A bucket's refill rate (tokens per second) and size."""

    per_s: float
    burst: float


DEFAULTS: dict[str, Rate | None] = {
    "create": Rate(1, 60),  # CreateGame: 60 at once, then one a second
    "queue": Rate(2, 60),  # Enqueue and CancelTicket: 60 at once, then two a second
    "submit": Rate(50, 500),  # SubmitCommand: 500 at once, then 50 a second
}


class QuotaExceeded(DomainError):
    """A player used up a quota; retry_after_s says when one more call is allowed."""

    def __init__(self, quota: str, retry_after_s: float) -> None:
        super().__init__(f"quota {quota!r} used up; retry in {retry_after_s:.1f} s (see RetryInfo)")
        self.quota = quota
        self.retry_after_s = retry_after_s


def parse_quotas(text: str) -> dict[str, Rate | None]:
    """Return the quotas of a FALLEN_QUOTAS value (defaults for names it leaves out)."""
    out = dict(DEFAULTS)
    text = text.strip()
    if text == "off":
        return dict.fromkeys(DEFAULTS)
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, _, spec = item.partition("=")
        if name not in DEFAULTS:
            raise RuntimeError(f"FALLEN_QUOTAS: unknown quota {name!r}; known: {list(DEFAULTS)}")
        if spec == "off":
            out[name] = None
            continue
        rate, _, burst = spec.partition("/")
        try:
            parsed = Rate(float(rate), float(burst))
        except ValueError:
            raise RuntimeError(f"FALLEN_QUOTAS: {item!r} is not name=rate/burst") from None
        if parsed.per_s <= 0 or parsed.burst < 1:
            raise RuntimeError(f"FALLEN_QUOTAS: {item!r} needs rate > 0 and burst >= 1")
        out[name] = parsed
    return out


class Buckets:
    """Token buckets of one quota, by player."""

    def __init__(self, name: str, rate: Rate) -> None:
        self.name = name
        self.rate = rate
        self._held: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, at

    def take(self, player: str, now: float | None = None) -> None:
        """Take one token for player, or raise QuotaExceeded with the wait for one."""
        now = time.monotonic() if now is None else now
        tokens, at = self._held.pop(player, (self.rate.burst, now))
        tokens = min(self.rate.burst, tokens + (now - at) * self.rate.per_s)
        if tokens < 1:
            self._held[player] = (tokens, now)
            QUOTA_REFUSED.labels(self.name).inc()
            raise QuotaExceeded(self.name, (1 - tokens) / self.rate.per_s)
        self._held[player] = (tokens - 1, now)
        if len(self._held) > MAX_BUCKETS:
            self._held.popitem(last=False)


class Quotas:
    """Every quota of a process, from FALLEN_QUOTAS."""

    def __init__(self, rates: dict[str, Rate | None] | None = None) -> None:
        rates = parse_quotas(os.environ.get("FALLEN_QUOTAS", "")) if rates is None else rates
        self.buckets = {n: Buckets(n, r) for n, r in rates.items() if r is not None}

    def charge(self, quota: str, principal: Principal) -> None:
        """Take one token of quota for a player caller (services are not limited)."""
        bucket = self.buckets.get(quota)
        if bucket is not None and not principal.is_service:
            bucket.take(principal.subject)
