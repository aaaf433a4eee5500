"""Light reads of a store's global feed: each event's position, stream, version and type.

Followers that act on a few event types (the chance sweeper, the matchmaking feed follower)
read these heads instead of whole envelopes, so they do not decode every payload the store
appends; they read the envelope of the rare event whose payload they need. A store may
serve heads without decoding (`read_feed_heads`: SQLite); otherwise they come from
`read_all`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.platform.envelope import Envelope
from services.platform.store.base import EventStore


@dataclass(frozen=True)
class FeedHead:
    """Where an event sits in the global feed and what it is, without its payload."""

    position: int
    stream: str
    version: int
    type: str


async def read_heads(
    store: EventStore, from_position: int, limit: int, shard: int = 0
) -> list[FeedHead]:
    """Return the heads of one shard's feed events from from_position on (at most limit)."""
    fast: Any = getattr(store, "read_feed_heads", None)
    if fast is not None and shard == 0:
        heads: list[FeedHead] = await fast(from_position, limit)
        return heads
    if shard == 0:
        envs = await store.read_all(from_position, limit)
    else:
        envs = await store.read_all(from_position, limit, shard=shard)  # type: ignore[call-arg]
    return [FeedHead(e.position, e.stream, e.version, e.type) for e in envs]


async def envelope_at(store: EventStore, head: FeedHead) -> Envelope | None:
    """Return the whole event a head names (None if the stream no longer holds it)."""
    envs = await store.read(head.stream, head.version)
    return envs[0] if envs and envs[0].version == head.version else None
