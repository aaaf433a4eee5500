"""The Subscription contract every stream implementation meets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from services.kernel.envelope import Envelope

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
