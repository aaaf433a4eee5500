"""The web port's probes: /healthz (the gateway answers) and /readyz (the read side it
fronts answers its gRPC health check SERVING; 503 otherwise)."""

from __future__ import annotations

import grpc
from aiohttp import web
from grpc_health.v1 import health_pb2, health_pb2_grpc

HEALTH: web.AppKey[health_pb2_grpc.HealthStub] = web.AppKey("health", health_pb2_grpc.HealthStub)
READY_TIMEOUT_S = 2.0


async def healthz(request: web.Request) -> web.Response:
    """GET /healthz: 200 while the gateway runs."""
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """GET /readyz: 200 when the backend's health check says SERVING, else 503."""
    try:
        resp = await request.app[HEALTH].Check(
            health_pb2.HealthCheckRequest(service=""), timeout=READY_TIMEOUT_S
        )
    except grpc.aio.AioRpcError as err:
        return web.json_response({"status": "unavailable", "why": err.code().name}, status=503)
    if resp.status != health_pb2.HealthCheckResponse.SERVING:
        return web.json_response({"status": "not serving"}, status=503)
    return web.json_response({"status": "ready"})


def add_routes(app: web.Application, channel: grpc.aio.Channel) -> None:
    """Add /healthz and /readyz, checking the backend over channel."""
    app[HEALTH] = health_pb2_grpc.HealthStub(channel)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
