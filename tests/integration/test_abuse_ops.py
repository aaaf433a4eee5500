"""The operator's probes: /healthz and /readyz on the web port, metrics only on /metrics."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import aiohttp

from services.platform.localservers import free_port
from services.platform.metrics_http import start_metrics
from tests.integration.test_web_gateway import web  # noqa: F401  (the served gateway)


async def test_given_the_web_port_when_probed_then_healthz_and_readyz_answer(web):  # noqa: F811
    base, backend, _, _ = web
    async with aiohttp.ClientSession() as http:
        alive = await http.get(f"{base}/healthz")
        ready = await http.get(f"{base}/readyz")
        assert (alive.status, ready.status) == (200, 200)
        # when the backend stops serving, then the gateway is alive but not ready
        await backend.running.health.enter_graceful_shutdown()
        assert (await http.get(f"{base}/readyz")).status == 503
        assert (await http.get(f"{base}/healthz")).status == 200


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def test_given_the_metrics_port_when_asked_then_metrics_only_on_metrics() -> None:
    port = start_metrics(free_port(), "127.0.0.1")
    base = f"http://127.0.0.1:{port}"
    assert status(f"{base}/metrics") == 200
    assert [status(f"{base}{p}") for p in ("/", "/anything", "/metrics/x")] == [404] * 3


async def test_given_games_and_streams_when_served_then_game_and_stream_metrics_count(web):  # noqa: F811
    base, backend, _, _ = web
    from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
    from prometheus_client import REGISTRY

    from services.platform.auth import issue_token

    def value(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    created = value("fallen_games_created_total", game="toy")
    watch = "/fallen.projections.v1.ProjectionService/WatchView"
    streamed = sum(value("fallen_rpc_total", method=watch, code=c) for c in ("OK", "CANCELLED"))
    import grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}") as ch:
        md = (("authorization", f"Bearer {issue_token('p-m')}"),)
        await rules_pb2_grpc.RulesServiceStub(ch).CreateGame(
            rules_pb2.CreateGameRequest(game="toy", game_id="m1", seats={"a": "p-m", "b": "q"}),
            metadata=md,
        )
    async with aiohttp.ClientSession() as http:
        resp = await http.get(f"{base}/api/games/m1/watch")
        await resp.content.readuntil(b"\n\n")
        resp.close()
    for _ in range(100):
        after = sum(value("fallen_rpc_total", method=watch, code=c) for c in ("OK", "CANCELLED"))
        if after > streamed:
            break
        await asyncio.sleep(0.05)
    # then the game is counted, and the closed stream counts in the RPC metrics
    assert value("fallen_games_created_total", game="toy") == created + 1
    assert after == streamed + 1


def test_given_the_dashboard_when_read_then_every_metric_it_uses_exists() -> None:
    import json
    import re
    from pathlib import Path

    from prometheus_client import REGISTRY

    import services.platform.gamemetrics
    import services.platform.grpcx.rpc  # noqa: F401  (registers the RPC metrics)

    dash = json.loads(Path("deploy/grafana/fallen.json").read_text())
    used = {
        m
        for p in dash["panels"]
        for t in p["targets"]
        for m in re.findall(r"\b(fallen_[a-z_]+)", t["expr"])
    }
    families = {metric.name for metric in REGISTRY.collect()}
    bare = {re.sub(r"_(total|bucket)$", "", m) for m in used}
    assert used and bare <= families, bare - families
