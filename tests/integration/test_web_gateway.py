"""The web gateway in front of the read side: routes, status codes, and no hidden cards."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest
from fallen.projections.v1 import projections_pb2 as pb

from services.app import Backend, serve
from services.platform.auth import issue_token
from services.platform.localservers import free_port
from services.platform.store.sqlite import SqliteEventStore
from services.projections.replay_views import apply_patch
from services.web.gateway import start_web
from tests.integration.test_projections_grpc import md
from tests.support.projections_play import advance, engines, play, runner_for
from tests.support.web_scan import game_envelopes, scan_payloads


@pytest.fixture
async def web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    """Yield (base URL, backend, runner, db) with the gateway in front of a full backend."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    monkeypatch.delenv("FALLEN_PROJECTIONS", raising=False)
    db = tmp_path / "events.db"
    store = SqliteEventStore(db)
    backend: Backend = await serve(store, "127.0.0.1:0", extra_games=engines())
    port = free_port()
    stop = await start_web(f"127.0.0.1:{backend.port}", "127.0.0.1", port)
    yield f"http://127.0.0.1:{port}", backend, runner_for(store), db
    await stop()
    await backend.stop()


async def lobby_listing(http: aiohttp.ClientSession, base: str, game_id: str) -> dict[str, Any]:
    """Return the lobby once it lists a game (polled for at most 5 s)."""
    lobby: dict[str, Any] = {}
    for _ in range(100):
        lobby = await (await http.get(f"{base}/api/games")).json()
        if any(g["game_id"] == game_id for g in lobby["games"]):
            break
        await asyncio.sleep(0.05)
    return lobby


async def sse(http: aiohttp.ClientSession, url: str, token: str = "") -> list[dict[str, Any]]:
    """Return every view event of an SSE stream until its end event."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    views = []
    async with http.get(url, headers=headers) as resp:
        assert resp.status == 200 and resp.headers["Content-Type"] == "text/event-stream"
        kind = ""
        async for raw in resp.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "view":
                views.append(json.loads(line[6:]))
            elif line.startswith("data: ") and kind == "end":
                return views
    raise AssertionError("the stream closed without an end event")


async def test_a_game_through_the_gateway_as_spectator_and_seat_leaks_no_hidden_card(web):
    base, backend, runner, _ = web
    await play(runner, "toy", "w1", random.Random(4), steps=0)
    token_a = issue_token("p-a-w1")
    received: list[tuple[str | None, dict[str, Any]]] = []
    async with aiohttp.ClientSession() as http:
        # given watchers on the live game, as spectator and as seat a
        # (the read side is eventually consistent: the lobby lists the game once its
        # projection batch ran, within a few ms)
        lobby = await lobby_listing(http, base, "w1")
        assert [(g["game_id"], g["ended"]) for g in lobby["games"]] == [("w1", False)]
        spectator = asyncio.create_task(sse(http, f"{base}/api/games/w1/watch"))
        seat_a = asyncio.create_task(sse(http, f"{base}/api/games/w1/watch?seat=a", token_a))
        await asyncio.sleep(0.3)
        # when the game is played to its end
        assert await advance(runner, "w1", random.Random(4), 200)
        seen = {None: await spectator, "a": await seat_a}
        end = (await runner.load("w1")).version
        for reader, views in seen.items():
            assert views[-1]["ended"] and views[-1]["version"] == end
            received += [(reader, v) for v in views]
        # then the replay, feeds and audit log come through for whoever may read them
        for reader, query, headers in [
            (None, "", {}),
            ("a", "?seat=a", {"Authorization": f"Bearer {token_a}"}),
        ]:
            replay = await (
                await http.get(f"{base}/api/games/w1/replay{query}", headers=headers)
            ).json()
            assert replay["steps"][0]["view"] and all("patch" in s for s in replay["steps"][1:])
            received.append((reader, replay))
            for stream in ("game", "dice"):
                sep = "&" if query else "?"
                resp = await http.get(
                    f"{base}/api/games/w1/events{query}{sep}stream={stream}", headers=headers
                )
                received.append((reader, await resp.json()))
        audit = await http.get(
            f"{base}/api/games/w1/audit", headers={"Authorization": f"Bearer {token_a}"}
        )
        assert audit.status == 200 and (await audit.json())["server_seed"]
        kinds = await (await http.get(f"{base}/api/dice/kinds")).json()
        assert "d6" in kinds["kinds"]
        # and errors keep their meaning as HTTP statuses
        denied = await http.get(
            f"{base}/api/games/w1/view?seat=b", headers={"Authorization": f"Bearer {token_a}"}
        )
        assert denied.status == 403 and "not yours" in (await denied.json())["error"]
        assert (await http.get(f"{base}/api/games/nope/view")).status == 404
        assert (await http.get(f"{base}/api/games/w1/audit")).status == 403
        assert (await http.get(f"{base}/api/games/w1/view?min_version=x")).status == 400
        page = await http.get(f"{base}/")
        assert page.status == 200 and "Fallen" in await page.text()
    # and the hidden-information scan finds nothing the reader could not see then
    envs = await game_envelopes(backend.store, "w1")
    checks = scan_payloads(envs, "w1", received, game="toy", readers=["a", "b", None])
    assert checks > 20


async def test_replay_views_rebuild_each_seat_view_and_wait_for_the_end(web):
    _, backend, runner, _ = web
    await play(runner, "toy", "r1", random.Random(8), steps=1)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

    stub = pb_grpc.ProjectionServiceStub(channel)
    req = pb.ReplayViewsRequest(game_id="r1", seat="a")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.ReplayViews(req, metadata=md("p-a-r1"))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert await advance(runner, "r1", random.Random(8), 200)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.ReplayViews(req, metadata=md("p-b-r1"))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # when the seat pages through its replay two steps at a time
    steps, start = [], 1
    while True:
        resp = await stub.ReplayViews(
            pb.ReplayViewsRequest(game_id="r1", seat="a", from_version=start, limit=2),
            metadata=md("p-a-r1"),
        )
        steps += list(resp.steps)
        if resp.next_version > resp.head_version:
            break
        start = resp.next_version
    await channel.close()
    # then the versions increase, and the last rebuilt view is the seat's final view
    versions = [s.version for s in steps]
    assert versions == sorted(set(versions)) and versions[-1] <= resp.head_version
    from services.platform.grpcx.structs import struct_to_py

    view: dict[str, Any] = {}
    for s in steps:
        view = (
            struct_to_py(s.view)
            if s.HasField("view")
            else apply_patch(view, struct_to_py(s.view_patch))
        )
    final = await runner.load("r1")
    expected = final.rules.view(final.state, "a")
    assert view == {k: v for k, v in expected.items() if v is not None}
