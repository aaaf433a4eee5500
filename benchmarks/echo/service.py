"""A raw grpc.aio echo with no auth, store or decorator: the benchmark baseline."""

from __future__ import annotations

import grpc
from fallen.echo.v1 import echo_pb2, echo_pb2_grpc

from services.platform.grpcx.server import Mount

SERVICE_NAME = echo_pb2.DESCRIPTOR.services_by_name["EchoService"].full_name


class EchoServicer(echo_pb2_grpc.EchoServiceServicer):
    """Answers every request with its own payload."""

    async def Echo(
        self, request: echo_pb2.EchoRequest, context: grpc.aio.ServicerContext
    ) -> echo_pb2.EchoResponse:
        """Return the payload unchanged."""
        return echo_pb2.EchoResponse(payload=request.payload)


def mount() -> Mount:
    """Return the echo service ready to add to a server."""
    return Mount(echo_pb2_grpc.add_EchoServiceServicer_to_server, EchoServicer(), SERVICE_NAME)
