"""Server reflection under grpc.reflection.v1 as well as v1alpha.

grpcio-reflection only ships v1alpha. The v1 protocol has the same messages and field
numbers under another package, so the v1alpha descriptor is re-registered under the v1
names (reflection clients can then describe it too) and v1 calls are served by the
v1alpha servicer through a generic handler.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

ALPHA = "grpc.reflection.v1alpha"
V1 = "grpc.reflection.v1"
SERVICE_NAME = f"{V1}.ServerReflection"


def _register_v1() -> None:
    """Add grpc/reflection/v1/reflection.proto to the default pool (once)."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(SERVICE_NAME)
        return
    except KeyError:
        pass
    fdp = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(fdp)
    fdp.name = fdp.name.replace("v1alpha", "v1")
    fdp.package = V1
    fdp.ClearField("options")
    for msg in fdp.message_type:
        for fld in msg.field:
            if fld.HasField("type_name"):
                fld.type_name = fld.type_name.replace(ALPHA, V1)
    for svc in fdp.service:
        for method in svc.method:
            method.input_type = method.input_type.replace(ALPHA, V1)
            method.output_type = method.output_type.replace(ALPHA, V1)
    pool.Add(fdp)


def enable(names: list[str], server: grpc.aio.Server) -> None:
    """Serve reflection v1alpha and v1 for the given service names (both listed)."""
    _register_v1()
    all_names = [*names, reflection.SERVICE_NAME, SERVICE_NAME]
    servicer: Any = reflection.ReflectionServicer(all_names)
    reflection.enable_server_reflection(all_names, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE_NAME, {"ServerReflectionInfo": handler}),)
    )
