"""A finished game's replay through the gateway is built once, served gzipped with an
ETag (304 when unchanged), a seat's only to its player, and anonymous builds are rate
limited per address (429 with Retry-After)."""

from __future__ import annotations

import random

import aiohttp

from services.platform.auth import issue_token
from tests.integration.test_web_gateway import web  # noqa: F401  (the served gateway)
from tests.support.projections_play import play


async def test_given_a_finished_game_when_replayed_then_cached_gzipped_with_etag(web):  # noqa: F811
    base, _, runner, _ = web
    assert await play(runner, "toy", "rp1", random.Random(3))
    async with aiohttp.ClientSession(auto_decompress=False) as http:
        # when the spectator's replay is fetched twice, the second time with its ETag
        first = await http.get(f"{base}/api/games/rp1/replay", headers={"Accept-Encoding": "gzip"})
        body = await first.read()
        etag = first.headers["ETag"]
        again = await http.get(f"{base}/api/games/rp1/replay", headers={"If-None-Match": etag})
        # then it is gzipped with an ETag, and unchanged the second time (304)
        assert first.status == 200 and first.headers["Content-Encoding"] == "gzip"
        assert body[:2] == b"\x1f\x8b" and again.status == 304
        # and a seat's cached replay is never served to someone who is not that seat
        token = issue_token("p-a-rp1")
        mine = await http.get(
            f"{base}/api/games/rp1/replay?seat=a", headers={"Authorization": f"Bearer {token}"}
        )
        anon = await http.get(f"{base}/api/games/rp1/replay?seat=a")
        assert (mine.status, anon.status) == (200, 403)


async def test_given_anonymous_builds_when_over_the_rate_then_429(web):  # noqa: F811
    base, _, runner, _ = web
    for i in range(7):
        assert await play(runner, "toy", f"rq{i}", random.Random(i))
    async with aiohttp.ClientSession() as http:
        # when one address asks for seven different replays at once (burst five)
        statuses = [(await http.get(f"{base}/api/games/rq{i}/replay")).status for i in range(7)]
        again = await http.get(f"{base}/api/games/rq0/replay")  # cached: free
    # then the builds beyond the burst are 429, and a cached replay is still served
    assert statuses[:5] == [200] * 5 and statuses[5:] == [429, 429]
    assert again.status == 200
