"""Streams on the served backend and gateway: bounded per player, per address and in total
(RESOURCE_EXHAUSTED with RetryInfo / HTTP 429 with Retry-After), released as soon as the
client leaves, with heartbeats while a game is quiet and an INFO line per disconnect."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import grpc
import pytest
from fallen.projections.v1 import projections_pb2 as pb
from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

from services.app import Backend, serve
from services.platform.auth import issue_token
from services.platform.localservers import free_port
from services.platform.store.sqlite import SqliteEventStore
from services.rules.runner import GameRunner
from services.web.gateway import start_web
from tests.integration.test_abuse_quotas import outcome
from tests.support.projections_play import engines, runner_for


@dataclass
class Served:
    base: str
    backend: Backend
    runner: GameRunner
    proj: pb_grpc.ProjectionServiceStub
    stop_web: object


@pytest.fixture
async def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Served]:
    """A full backend and gateway with small stream bounds and a fast heartbeat."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    monkeypatch.delenv("FALLEN_PROJECTIONS", raising=False)
    monkeypatch.setenv("FALLEN_STREAMS_PER_PLAYER", "2")
    monkeypatch.setenv("FALLEN_WEB_STREAMS_PER_ADDRESS", "2")
    monkeypatch.setenv("FALLEN_SSE_HEARTBEAT_S", "0.1")
    store = SqliteEventStore(tmp_path / "events.db")
    backend = await serve(store, "127.0.0.1:0", extra_games=engines())
    port = free_port()
    stop = await start_web(f"127.0.0.1:{backend.port}", "127.0.0.1", port)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    runner = runner_for(store)
    await runner.create("toy", "s1", {"a": "p-a", "b": "p-b"}, {})
    try:
        yield Served(
            f"http://127.0.0.1:{port}",
            backend,
            runner,
            pb_grpc.ProjectionServiceStub(channel),
            stop,
        )
    finally:
        await channel.close()
        await stop()
        await backend.stop()


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


async def test_given_a_player_bound_when_a_third_watch_opens_then_resource_exhausted(served):
    # given two open WatchView streams of player p-a (the bound is two)
    request = pb.WatchViewRequest(game_id="s1", seat="a")
    held = [served.proj.WatchView(request, metadata=md("p-a")) for _ in range(2)]
    for call in held:
        assert (await call.read()).game_id == "s1"
    # when a third opens, then it is refused with a retry delay
    third = served.proj.WatchView(request, metadata=md("p-a"))
    code, delay = await outcome(third.read())
    assert code == "RESOURCE_EXHAUSTED" and delay > 0
    # and once one of the two is closed by its client, a new one is served
    held[0].cancel()
    codes = []
    for _ in range(50):
        again = served.proj.WatchView(request, metadata=md("p-a"))
        codes.append((await outcome(again.read()))[0])
        if codes[-1] == "OK":
            break
        await asyncio.sleep(0.05)
    assert codes[-1] == "OK"
    for call in (held[1], again):
        call.cancel()


async def open_sse(http: aiohttp.ClientSession, url: str) -> aiohttp.ClientResponse:
    resp = await http.get(url)
    if resp.status == 200:
        await resp.content.readuntil(b"\n\n")  # the first view
    return resp


async def test_given_an_address_bound_when_a_third_sse_opens_then_429_with_retry_after(served):
    url = f"{served.base}/api/games/s1/watch"
    async with aiohttp.ClientSession() as http:
        # given two open streams from this address (the bound is two)
        first, second = await open_sse(http, url), await open_sse(http, url)
        # when a third opens, then it is 429 with Retry-After
        third = await http.get(url)
        assert (first.status, second.status, third.status) == (200, 200, 429)
        assert int(third.headers["Retry-After"]) >= 1
        # and closing one frees its place at once (the handler is cancelled on close)
        first.close()
        statuses = []
        for _ in range(50):
            fourth = await http.get(url)
            statuses.append(fourth.status)
            fourth.close()
            if fourth.status == 200:
                break
            await asyncio.sleep(0.05)
        assert statuses[-1] == 200
        second.close()


async def test_given_a_quiet_game_when_watched_then_heartbeats_and_an_info_line_on_leave(
    served, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.INFO)
    async with aiohttp.ClientSession() as http:
        resp = await open_sse(http, f"{served.base}/api/games/s1/watch")
        # when nothing happens in the game, then the stream still sends heartbeats
        beat = await asyncio.wait_for(resp.content.readuntil(b"\n\n"), 10)
        assert beat == b": heartbeat\n\n"
        # when the client leaves
        resp.close()
    for _ in range(100):
        if any(r.getMessage() == "event stream closed" for r in caplog.records):
            break
        await asyncio.sleep(0.05)
    # then the gateway logs it at INFO, and nothing at ERROR
    closed = [r for r in caplog.records if r.getMessage() == "event stream closed"]
    assert closed and all(r.levelno == logging.INFO for r in closed)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
