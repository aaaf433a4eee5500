"""Container healthcheck: exit 0 only if a gRPC server reports SERVING (grpc.health.v1).

Usage: ``python -m services.platform.healthcheck [HOST:PORT] [SERVICE]``. The address
defaults to $FALLEN_HEALTH_ADDR or 127.0.0.1:50051; SERVICE defaults to "" (the whole
server). $FALLEN_HEALTH_TIMEOUT (seconds, default 3) bounds the whole check.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_ADDR = "127.0.0.1:50051"


def check(address: str, service: str = "", timeout: float = 3.0) -> str:
    """Return the health status name reported at address (or the gRPC error code name)."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(
                health_pb2.HealthCheckRequest(service=service),
                timeout=timeout,
                wait_for_ready=False,
            )
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            return code.name if code is not None else "UNAVAILABLE"
    return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the status and return 0 if SERVING, 1 otherwise."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 2 or any(a in ("-h", "--help") for a in args):
        print((__doc__ or "").strip(), file=sys.stderr)
        return 2
    address = args[0] if args else os.environ.get("FALLEN_HEALTH_ADDR", DEFAULT_ADDR)
    service = args[1] if len(args) > 1 else ""
    try:
        timeout = float(os.environ.get("FALLEN_HEALTH_TIMEOUT", "3"))
    except ValueError:
        timeout = 3.0
    status = check(address, service, timeout)
    print(f"{address} {service or '<server>'}: {status}")
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
