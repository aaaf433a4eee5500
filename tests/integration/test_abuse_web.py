"""The web gateway under abuse: anonymous callers are spectators, odd requests answer 4xx,
and every answer carries the browser's security headers."""

from __future__ import annotations

import asyncio

import aiohttp

from tests.integration.test_web_gateway import web  # noqa: F401  (the served gateway)


async def test_given_a_game_seating_web_spectator_when_anonymous_reads_its_hand_then_403(web):  # noqa: F811
    base, _, runner, _ = web
    # given a game that seats a player named "web-spectator" (the id the gateway once used
    # for anonymous callers), created by a service
    await runner.create("toy", "ws1", {"a": "web-spectator", "b": "p-b"}, {})
    async with aiohttp.ClientSession() as http:
        # when an anonymous caller asks for seat a's view, and for the spectator view
        seat = await http.get(f"{base}/api/games/ws1/view?seat=a")
        body = await seat.json()
        spectator = None
        for _ in range(50):  # the read side is eventually consistent (a few ms)
            spectator = await http.get(f"{base}/api/games/ws1/view")
            if spectator.status == 200:
                break
            await asyncio.sleep(0.05)
    # then the seat is refused (a spectator is not a player) and the spectator view is served
    assert seat.status == 403 and "not yours" in body["error"]
    assert spectator is not None and spectator.status == 200
