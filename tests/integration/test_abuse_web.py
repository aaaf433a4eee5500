"""The web gateway under abuse: anonymous callers are spectators, odd requests answer 4xx,
and every answer carries the browser's security headers."""

from __future__ import annotations

import asyncio

import aiohttp

from services.platform.auth import issue_token
from tests.integration.test_web_gateway import (
    lobby_listing,
    web,  # noqa: F401  (the served gateway)
)


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


async def raw_request(base: str, head: bytes) -> tuple[int, bytes]:
    """Send one raw HTTP/1.1 request (bytes aiohttp's client would refuse); return status."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return int(answer.split(b" ", 2)[1]), answer


async def test_given_odd_request_shapes_when_sent_then_4xx_never_500(web):  # noqa: F811
    base, _, runner, _ = web
    await runner.create("toy", "odd1", {"a": "p-a", "b": "p-b"}, {})
    shapes = [
        b"GET /api/games?limit=4294967296 HTTP/1.1",
        b"GET /api/games?limit=99999999999 HTTP/1.1",
        b"GET /api/games/odd1/view?min_version=4294967296000 HTTP/1.1",
    ]
    bad_auth = [b"Bearer a\tb", "Bearer t\u00e9st".encode(), b"Bearer \t", b"Basic abc"]
    routes = ["/api/games", "/api/games/odd1/view", "/api/games/odd1/events"]
    statuses = [(await raw_request(base, shape))[0] for shape in shapes]
    for auth in bad_auth:
        for route in routes:
            head = f"GET {route} HTTP/1.1\r\n".encode() + b"Authorization: " + auth
            statuses.append((await raw_request(base, head))[0])
    # then each is refused as the client's error: 400 for numbers, 401 for the header
    assert statuses == [400] * len(shapes) + [401] * len(bad_auth) * len(routes)


async def test_given_any_answer_when_served_then_it_has_csp_and_nosniff(web):  # noqa: F811
    base, _, _, _ = web
    async with aiohttp.ClientSession() as http:
        answers = [
            await http.get(f"{base}{path}")
            for path in ("/", "/static/app.js", "/api/games", "/api/games/nope/view", "/x")
        ]
    for resp in answers:
        assert "default-src 'self'" in resp.headers["Content-Security-Policy"], resp.url
        assert resp.headers["X-Content-Type-Options"] == "nosniff"


async def test_given_a_live_game_when_an_outsider_lists_games_then_no_player_ids(web):  # noqa: F811
    base, _, runner, _ = web
    await runner.create("toy", "ids1", {"a": "p-a-ids", "b": "p-b-ids"}, {})
    async with aiohttp.ClientSession() as http:
        lobby = await lobby_listing(http, base, "ids1")
        token = issue_token("p-a-ids")
        mine = await (
            await http.get(f"{base}/api/games", headers={"Authorization": f"Bearer {token}"})
        ).json()
    # then the lobby shows an outsider the seats only, and the game's player its players
    seats = {g["game_id"]: g["seats"] for g in lobby["games"]}
    assert seats["ids1"] == {"a": "", "b": ""}
    assert {g["game_id"]: g["seats"] for g in mine["games"]}["ids1"] == {
        "a": "p-a-ids",
        "b": "p-b-ids",
    }
