"""The Subscription contract every stream implementation meets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from services.platform.envelope import Envelope, stream_game

TOPIC_PREFIX = "fallen.events."


class Subscription(Protocol):
    """An endless, resumable feed of stored events."""

    def events(self, from_position: int = 1) -> AsyncIterator[Envelope]:
        """Yield events with position >= from_position, forever, in global-position order."""
        ...

    async def close(self) -> None:
        """Stop delivering and release connections."""
        ...


def topic_for(family: str, prefix: str = TOPIC_PREFIX) -> str:
    """Return the Kafka topic of a stream family ('game' -> 'fallen.events.game')."""
    return f"{prefix}{family}"


def record_key(stream: str) -> bytes:
    """Return the Kafka key of a relayed event: its game id ('dice-abc' -> b'abc').

    Every stream of one game (game, dice, deck, dispute) has the same key, so with the
    default partitioner and equal partition counts a game's events sit in the same
    partition number of every topic, in order per stream (docs/projections.md)."""
    return stream_game(stream).encode("utf-8")
