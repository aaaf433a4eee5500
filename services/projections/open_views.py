"""Open the view store a URL names (the factory over viewstore's implementations)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from services.platform.errors import InvalidArgument
from services.projections.redis_views import RedisViewStore
from services.projections.sqlite_views import SqliteViewStore
from services.projections.viewstore import ViewStore


def open_view_store(url: str) -> ViewStore:
    """Return the view store a URL names (sqlite:///PATH, sqlite:///:memory:, redis://...).

    Redis URLs take an optional ``prefix`` query parameter (default ``fallen``).
    """
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if parts.netloc or not parts.path.startswith("/") or parts.path == "/":
            raise InvalidArgument("views", f"{url!r}: use sqlite:///<path> or sqlite:///:memory:")
        return SqliteViewStore(parts.path[1:])
    if parts.scheme in ("redis", "rediss", "unix"):
        query = parse_qs(parts.query)
        prefix = query.pop("prefix", ["fallen"])[0]
        base = url.split("?", 1)[0]
        return RedisViewStore(base, prefix=prefix)
    raise InvalidArgument("views", f"{url!r}: unknown scheme, use sqlite:/// or redis://")
