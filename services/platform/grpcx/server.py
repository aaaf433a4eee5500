"""Assemble a grpc.aio server with health, reflection and the given services."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from services.platform.grpcx import reflection_v1
from services.platform.grpcx.guard import RequestGuard

MAX_REQUEST_BYTES = 1024 * 1024  # a request larger than this answers RESOURCE_EXHAUSTED
MAX_METADATA_BYTES = 16 * 1024  # headers (the bearer token) larger than this are refused


@dataclass(frozen=True)
class Mount:
    """One servicer to add: its add_*_to_server function and full service name."""

    add: Callable[[Any, grpc.aio.Server], None]
    servicer: Any
    service_name: str


@dataclass
class Running:
    """A started server, its bound port and health servicer."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer

    async def stop(self, grace: float = 1.0) -> None:
        """Mark NOT_SERVING and stop."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


MAX_CONNECTION_AGE_S = 300


async def start_server(mounts: Sequence[Mount], address: str) -> Running:
    """Start a server on address ("host:port", port 0 = any) with health and reflection."""
    server = grpc.aio.server(
        interceptors=[RequestGuard()],
        options=[
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.max_metadata_size", MAX_METADATA_BYTES),
            ("grpc.so_reuseport", 0),
            # a client's connection ends after this long (calls in flight finish), so
            # round-robin clients resolve the pool's name again and reach new replicas
            ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_S * 1000),
        ],
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
    for m in mounts:
        m.add(m.servicer, server)
        names.append(m.service_name)
    reflection_v1.enable(names, server)
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"could not bind {address}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    for m in mounts:
        await health_servicer.set(m.service_name, health_pb2.HealthCheckResponse.SERVING)
    return Running(server=server, port=port, health=health_servicer)
