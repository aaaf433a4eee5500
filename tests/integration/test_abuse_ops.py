"""The operator's probes: /healthz and /readyz on the web port, metrics only on /metrics."""

from __future__ import annotations

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
