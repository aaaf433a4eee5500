"""Channels to a pool's replicas with game affinity: every call of one game goes to one replica.

A rules replica caches each game at its latest version and, for a command it did not apply
itself, reads and folds the events it missed. Calls of one game spread round robin over R
replicas make every replica fold nearly every event of every game, so the pool spends about
R times the CPU. A client that sends a game's calls to one replica (rendezvous hashing of
the game id over the replicas' addresses) keeps each game warm in one cache; a replica that
comes or goes moves only its share of the games.

The replicas are the addresses the pool's name resolves to (a headless Service: every
ready pod), resolved again every REFRESH_S; an `ipv4:` target lists them itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import socket
import time
from collections.abc import Callable
from typing import Any

import grpc

from services.platform.grpcx.client import INTERNAL_CHANNEL_OPTIONS

REFRESH_S = 10.0
PICK_FIRST = tuple(o for o in INTERNAL_CHANNEL_OPTIONS if o[0] != "grpc.lb_policy_name")


def replica_addresses(target: str) -> list[str]:
    """Return host:port of every replica a pool target names (DNS answer, or an ipv4 list)."""
    if target.startswith("ipv4:"):
        return sorted(a.strip() for a in target.removeprefix("ipv4:").split(",") if a.strip())
    address = target.removeprefix("dns:///").removeprefix("dns:")
    host, _, port = address.rpartition(":")
    infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    found = {f"[{i[4][0]}]:{port}" if ":" in str(i[4][0]) else f"{i[4][0]}:{port}" for i in infos}
    return sorted(found)


def owner(key: str, addresses: list[str]) -> str:
    """Return the replica a key belongs to (rendezvous hashing: highest hash of key|address)."""
    return max(addresses, key=lambda a: hashlib.sha256(f"{key}|{a}".encode()).digest())


class AffinityChannels:
    """One pick-first channel per replica of a pool; `stub(key)` is the key's replica's."""

    def __init__(
        self,
        target: str,
        make_stub: Callable[[grpc.aio.Channel], Any],
        resolve: Callable[[str], list[str]] = replica_addresses,
    ) -> None:
        self.target = target
        self._make_stub = make_stub
        self._resolve = resolve
        self._addresses: list[str] = []
        self._resolved_at = -REFRESH_S
        self._channels: dict[str, tuple[grpc.aio.Channel, Any]] = {}
        self._retired: list[grpc.aio.Channel] = []

    def addresses(self) -> list[str]:
        """Return the pool's replicas (resolved again every REFRESH_S; the last answer is
        kept while the name does not resolve)."""
        now = time.monotonic()
        if now - self._resolved_at >= REFRESH_S or not self._addresses:
            self._resolved_at = now
            with contextlib.suppress(OSError, ValueError):
                found = self._resolve(self.target)
                if found:
                    self._addresses = found
            for gone in set(self._channels) - set(self._addresses):
                self._retired.append(self._channels.pop(gone)[0])
        if not self._addresses:
            raise OSError(f"{self.target} resolves to no address")
        return self._addresses

    def refresh(self) -> None:
        """Resolve the name again on the next call (a replica stopped answering)."""
        self._resolved_at = -REFRESH_S

    def stub(self, key: str) -> Any:
        """Return the stub of the replica that serves key."""
        address = owner(key, self.addresses())
        if address not in self._channels:
            scheme = "ipv6" if address.startswith("[") else "ipv4"
            channel = grpc.aio.insecure_channel(f"{scheme}:{address}", options=PICK_FIRST)
            self._channels[address] = (channel, self._make_stub(channel))
        return self._channels[address][1]

    async def close(self) -> None:
        """Close every channel."""
        channels = [c for c, _ in self._channels.values()] + self._retired
        self._channels, self._retired = {}, []
        await asyncio.gather(*(c.close() for c in channels), return_exceptions=True)
