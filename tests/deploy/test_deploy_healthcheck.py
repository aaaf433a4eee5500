"""The container healthcheck (services.platform.healthcheck) against a real gRPC server."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

from grpc_health.v1 import health_pb2

from services.platform import healthcheck
from services.platform.grpcx.server import start_server

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    """Return a TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_exit_code_follows_serving_status() -> None:
    running = await start_server([], "127.0.0.1:0")
    addr = f"127.0.0.1:{running.port}"
    try:
        assert await asyncio.to_thread(healthcheck.main, [addr]) == 0
        assert await asyncio.to_thread(healthcheck.check, addr, "no.such.Service") == "NOT_FOUND"
        assert await asyncio.to_thread(healthcheck.main, [addr, "no.such.Service"]) == 1
        await running.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        assert await asyncio.to_thread(healthcheck.main, [addr]) == 1
    finally:
        await running.stop(0)


def test_nothing_listening_is_unhealthy_and_fast(capsys) -> None:  # type: ignore[no-untyped-def]
    assert healthcheck.main([f"127.0.0.1:{_free_port()}"]) == 1
    assert "UNAVAILABLE" in capsys.readouterr().out


def test_usage_error_is_exit_2() -> None:
    assert healthcheck.main(["a", "b", "c"]) == 2


def test_runs_as_a_module_with_the_env_address() -> None:
    env = {
        **os.environ,
        "FALLEN_HEALTH_ADDR": f"127.0.0.1:{_free_port()}",
        "FALLEN_HEALTH_TIMEOUT": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "services.platform.healthcheck"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert env["FALLEN_HEALTH_ADDR"] in done.stdout
