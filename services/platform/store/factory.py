"""Open an event store from a URL (sqlite:///path.db, sqlite:///:memory:, redis://...)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from services.platform.errors import InvalidArgument
from services.platform.store.base import EventStore
from services.platform.store.redis import DEDUPE_TTL_S, RedisEventStore
from services.platform.store.sqlite import SqliteEventStore


def open_store(url: str) -> EventStore:
    """Return the event store a URL names.

    ``sqlite:///var/fallen.db`` is relative to the working directory,
    ``sqlite:////abs/fallen.db`` absolute, ``sqlite:///:memory:`` in memory;
    ``redis://host:port/db`` (also ``rediss://``) takes optional ``shards`` and ``prefix``
    query parameters, e.g. ``redis://localhost:6379/0?shards=8&prefix=fallen``, and
    ``dedupe_ttl_s`` (how long command ids are remembered after a game's last command).
    """
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if parts.netloc or not parts.path.startswith("/") or parts.path == "/":
            raise InvalidArgument("store", f"{url!r}: use sqlite:///<path> or sqlite:///:memory:")
        return SqliteEventStore(parts.path[1:])
    if parts.scheme in ("redis", "rediss", "unix"):
        query = parse_qs(parts.query)
        shards_text = query.pop("shards", ["1"])[0]
        if not shards_text.isdigit() or int(shards_text) < 1:
            raise InvalidArgument("store", f"{url!r}: shards must be a positive integer")
        shards = int(shards_text)
        prefix = query.pop("prefix", ["fallen"])[0]
        ttl_text = query.pop("dedupe_ttl_s", [str(DEDUPE_TTL_S)])[0]
        if not ttl_text.isdigit() or int(ttl_text) < 1:
            raise InvalidArgument("store", f"{url!r}: dedupe_ttl_s must be a positive integer")
        rest = urlunsplit(parts._replace(query=urlencode(query, doseq=True)))
        return RedisEventStore(rest, shards=shards, prefix=prefix, dedupe_ttl_s=int(ttl_text))
    raise InvalidArgument("store", f"{url!r}: unknown scheme, use sqlite:/// or redis://")
