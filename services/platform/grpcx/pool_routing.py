"""Client side of the stack's one address: send each game's rules pool as x-fallen-pool.

The deployed stack has one public address (deploy/door, deploy/gateway); it routes every
RulesService call to the pool the call's `x-fallen-pool` metadata names. A client learns a
game's pool from CreateGame / GetGame (the `pool` field and the `x-fallen-pool` response
header) or MatchFound (`pool`), and echoes it (docs/clients.md, "One address"). This
interceptor does that for a channel: it remembers the pool each answer names for its
game id and sends it on every later RulesService call about that game; before a game has
a pool (CreateGame, ListGames) it sends `default`, the pool `pool_for` names for the game
kind and seat count. Against `make run` (one server) the metadata is ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

from services.rules.pools import POOL_HEADER

RULES_PREFIX = "/fallen.rules.v1.RulesService/"


def _method(details: grpc.aio.ClientCallDetails) -> str:
    method = details.method
    return method.decode() if isinstance(method, bytes) else str(method)


class PoolRouting(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Add x-fallen-pool to RulesService calls: the game's pool once an answer named it."""

    def __init__(self, default: str = "") -> None:
        self.default = default
        self.pools: dict[str, str] = {}

    def pool_of(self, game_id: str) -> str:
        """Return the pool to send for a game id ("" = none known and no default)."""
        return self.pools.get(game_id) or self.default

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Any],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        """Send the pool with a RulesService call and learn the pool its answer names."""
        if not _method(client_call_details).startswith(RULES_PREFIX):
            return await continuation(client_call_details, request)
        game_id = str(getattr(request, "game_id", ""))
        sent = list(client_call_details.metadata or ())
        pool = self.pool_of(game_id)
        if pool and all(key != POOL_HEADER for key, _ in sent):
            sent.append((POOL_HEADER, pool))
        details = grpc.aio.ClientCallDetails(
            client_call_details.method,
            client_call_details.timeout,
            grpc.aio.Metadata(*sent),
            client_call_details.credentials,
            client_call_details.wait_for_ready,
        )
        call = await continuation(details, request)
        named = dict(await call.initial_metadata() or ()).get(POOL_HEADER)
        if named:
            reply = await call
            self.pools[str(getattr(reply, "game_id", "") or game_id)] = str(named)
        return call
