"""View store on Redis: per game a hash of views, a hash of audit records and a record.

Keys (each game's keys share the hash tag ``{g:<game id>}``, so they sit in one cluster slot):

- ``<prefix>:v:{g:<id>}:views``: seat ('' = spectator) -> ``{"version","ended","view"}`` JSON.
- ``<prefix>:v:{g:<id>}:audit``: ``"<stream> <version>"`` -> audit record JSON.
- ``<prefix>:v:{g:<id>}:game``: the projection record JSON (last applied version per stream).
- ``<prefix>:v:games``: set of game ids; ``<prefix>:v:meta``: checkpoints and runner status.

A batch is one pipeline whose commands run in order: views and audit records first, then the
game records, then the checkpoint. A view is written only if the stored one is not newer,
and a game record only if no stream's head in the stored one is further on (one Lua step
per game each), so a slow or restarted runner never rolls a view or a record back. A crash
part-way leaves older records than views, so the events are re-applied on restart and
rewrite the same views.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from services.platform.canonical import canonical_json
from services.projections.viewstore import Batch, ChangeHub, ViewRecord

# Write views unless the stored one is newer: a slow runner never rolls a view back.
WRITE_VIEWS = """
local version = tonumber(ARGV[1])
for i = 2, #ARGV, 2 do
  local cur = redis.call('HGET', KEYS[1], ARGV[i])
  if (not cur) or tonumber(cjson.decode(cur)['version']) <= version then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 1
"""


# Write a game record unless a stream's head in the stored one is further on (the same rule
# as viewstore.record_not_older): a runner that lost the game never rolls its record back.
WRITE_RECORD = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local old = cjson.decode(cur)['heads']
  local new = cjson.decode(ARGV[1])['heads']
  if type(old) == 'table' then
    for stream, head in pairs(old) do
      local mine = type(new) == 'table' and new[stream] or nil
      if type(mine) ~= 'table' or tonumber(mine[1]) < tonumber(head[1]) then
        return 0
      end
    end
  end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""


class RedisViewStore:
    """ViewStore on Redis (AOF recommended, as for the event store)."""

    def __init__(self, url: str, prefix: str = "fallen") -> None:
        self.url = url
        self.prefix = prefix
        self._redis: aioredis.Redis = aioredis.from_url(url, decode_responses=True)
        self._write_views = self._redis.register_script(WRITE_VIEWS)
        self._write_record = self._redis.register_script(WRITE_RECORD)
        self.hub = ChangeHub()

    def _key(self, game_id: str, name: str) -> str:
        return f"{self.prefix}:v:{{g:{game_id}}}:{name}"

    @property
    def _meta(self) -> str:
        return f"{self.prefix}:v:meta"

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        """Return a game's projection record, or None."""
        raw = await self._redis.get(self._key(game_id, "game"))
        return None if raw is None else dict(json.loads(raw))

    async def commit(self, batch: Batch) -> None:
        """Write a batch in one ordered pipeline and wake local watchers."""
        if batch.empty():
            return
        pipe = self._redis.pipeline(transaction=False)
        for game_id in batch.drop:
            pipe.unlink(*(self._key(game_id, name) for name in ("views", "audit", "game")))
        if batch.drop:
            pipe.srem(f"{self.prefix}:v:games", *batch.drop)
        for game_id, seats in batch.views.items():
            rec = batch.games[game_id]
            version = int(rec["heads"].get(f"game-{game_id}", [0])[0])
            ended = bool(rec.get("ended"))
            args: list[Any] = [version]
            for seat, view in seats.items():
                args += [seat, json.dumps({"version": version, "ended": ended, "view": view})]
            await self._write_views(keys=[self._key(game_id, "views")], args=args, client=pipe)
        by_game: dict[str, dict[Any, Any]] = {}
        for game_id, rec in batch.audit:
            field = f"{rec['stream']} {rec['version']}"
            by_game.setdefault(game_id, {})[field] = canonical_json(rec)
        for game_id, fields in by_game.items():
            pipe.hset(self._key(game_id, "audit"), mapping=fields)
        for game_id, rec in batch.games.items():
            key = self._key(game_id, "game")
            await self._write_record(keys=[key], args=[canonical_json(rec)], client=pipe)
        if batch.games:
            pipe.sadd(f"{self.prefix}:v:games", *batch.games)
        if batch.checkpoint is not None:
            pipe.hset(self._meta, batch.checkpoint[0], batch.checkpoint[1])
        await pipe.execute()
        self.hub.notify(set(batch.games))

    async def get_view(self, game_id: str, seat: str) -> ViewRecord | None:
        """Return a seat's view ('' = spectator), or None."""
        raw = await self._redis.hget(self._key(game_id, "views"), seat)
        if raw is None:
            return None
        d = json.loads(raw)
        return ViewRecord(game_id, seat, int(d["version"]), str(d["view"]), bool(d["ended"]))

    async def read_audit(self, game_id: str) -> list[dict[str, Any]]:
        """Return a game's audit records in global order."""
        raw = await self._redis.hvals(self._key(game_id, "audit"))
        records = [dict(json.loads(r)) for r in raw]
        records.sort(key=lambda r: (r["position"], r["stream"], r["version"]))
        return records

    async def get_meta(self, key: str) -> str | None:
        """Return a meta value, or None."""
        raw = await self._redis.hget(self._meta, key)
        return None if raw is None else str(raw)

    async def set_meta(self, key: str, value: str) -> None:
        """Set a meta value."""
        await self._redis.hset(self._meta, key, value)

    async def meta_items(self, prefix: str) -> dict[str, str]:
        """Return every meta value whose key starts with prefix."""
        items = await self._redis.hgetall(self._meta)
        return {str(k): str(v) for k, v in sorted(items.items()) if str(k).startswith(prefix)}

    async def games(self) -> list[str]:
        """Return the ids of every game with a record."""
        return sorted(str(g) for g in await self._redis.smembers(f"{self.prefix}:v:games"))

    async def clear(self) -> None:
        """Remove every key of this view store (games, views, audit records, meta)."""
        games = set(await self.games())
        async for key in self._redis.scan_iter(match=f"{self.prefix}:v:*", count=500):
            await self._redis.unlink(key)
        self.hub.notify(games)

    async def wait_change(self, game_id: str, timeout: float) -> None:
        """Return when this process commits a change to the game, or after timeout."""
        await self.hub.wait(game_id, timeout)

    async def close(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()
