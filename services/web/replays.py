"""A finished game's replay, built once: the gateway keeps each (game, seat) replay's JSON
gzipped with its ETag, so repeated GETs cost no server CPU; building one for an anonymous
caller draws on a per-address token bucket (``FALLEN_WEB_REPLAY_RATE``, ``rate/burst``,
default ``0.5/5``), HTTP 429 with Retry-After beyond it.

A finished game never changes, so a cached replay is never stale. A seat's replay is
cached too, but its RPC still runs first for every caller with a token (the read side
decides who may read a seat; a cached body is only served after it said yes)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections import OrderedDict
from dataclasses import dataclass

from aiohttp import web

from services.platform.quotas import Buckets, QuotaExceeded, Rate
from services.web.sse import too_many

CACHED = 64  # replays kept (a long Fallen game's is ~100 KiB gzipped)


@dataclass(frozen=True)
class Built:
    """One replay: its gzipped JSON and ETag."""

    gz: bytes
    etag: str


def anonymous_rate() -> Rate:
    """Return FALLEN_WEB_REPLAY_RATE as a Rate (builds per second per address, burst)."""
    rate, _, burst = os.environ.get("FALLEN_WEB_REPLAY_RATE", "0.5/5").partition("/")
    return Rate(float(rate), float(burst or 1))


class ReplayCache:
    """Built replays by (game, seat), least recently used forgotten first."""

    def __init__(self) -> None:
        self._built: OrderedDict[tuple[str, str], Built] = OrderedDict()
        self.builds = Buckets("replays per address", anonymous_rate())

    def get(self, key: tuple[str, str]) -> Built | None:
        """Return a cached replay (and mark it used)."""
        built = self._built.get(key)
        if built is not None:
            self._built.move_to_end(key)
        return built

    def put(self, key: tuple[str, str], body: dict[str, object]) -> Built:
        """Keep a replay's JSON gzipped with its ETag; return it."""
        raw = json.dumps(body, separators=(",", ":")).encode()
        built = Built(gzip.compress(raw, 6), f'"{hashlib.sha256(raw).hexdigest()[:32]}"')
        self._built[key] = built
        while len(self._built) > CACHED:
            self._built.popitem(last=False)
        return built

    def charge(self, address: str) -> None:
        """Take one anonymous build for address, or raise HTTP 429."""
        try:
            self.builds.take(address)
        except QuotaExceeded as exc:
            raise too_many(exc) from None


REPLAYS: web.AppKey[ReplayCache] = web.AppKey("replays", ReplayCache)


def answer(request: web.Request, built: Built) -> web.Response:
    """Answer a replay: 304 when the client has it, gzip when it accepts it."""
    headers = {"ETag": built.etag, "Cache-Control": "public, max-age=3600"}
    if built.etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        headers["Content-Encoding"] = "gzip"
        return web.Response(body=built.gz, content_type="application/json", headers=headers)
    return web.Response(
        body=gzip.decompress(built.gz), content_type="application/json", headers=headers
    )
