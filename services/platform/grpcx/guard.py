"""Server interceptor: undecodable or out-of-bounds requests never reach a handler.

Bytes that do not parse as the RPC's request type answer INVALID_ARGUMENT (or
UNAUTHENTICATED first when the call carries no valid token), without internals, and are
logged at INFO at most once per client address per minute. Every decoded request is then
checked against the descriptor-driven bounds of services.platform.grpcx.bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from services.platform.auth import principal_from_metadata
from services.platform.errors import InvalidArgument, Unauthenticated
from services.platform.grpcx.bounds import check_request
from services.platform.grpcx.rpc import RPC_TOTAL

log = logging.getLogger("fallen.rpc")

LOG_EVERY_S = 60.0
MAX_TRACKED_CLIENTS = 10_000
EXEMPT_PREFIX = "/grpc."  # health and reflection parse their own requests


class RateLimitedLog:
    """Log a refusal once per client and interval, with a bounded memory of clients."""

    def __init__(self, every_s: float = LOG_EVERY_S) -> None:
        self.every_s = every_s
        self._last: dict[str, float] = {}

    def should_log(self, client: str, now: float | None = None) -> bool:
        """Return whether this client's refusal may be logged now."""
        now = time.monotonic() if now is None else now
        last = self._last.get(client)
        if last is not None and now - last < self.every_s:
            return False
        if client not in self._last and len(self._last) >= MAX_TRACKED_CLIENTS:
            self._last.pop(next(iter(self._last)))
        self._last[client] = now
        return True


def client_host(peer: str) -> str:
    """Return the address part of a gRPC peer ('ipv4:1.2.3.4:555' -> 'ipv4:1.2.3.4')."""
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


def type_name(deserializer: Any) -> str:
    """Return the full protobuf name a deserializer parses, or 'request'."""
    owner = getattr(deserializer, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    return str(getattr(descriptor, "full_name", "request"))


class RequestGuard(grpc.aio.ServerInterceptor):
    """Decode and bound-check every request before its handler runs."""

    def __init__(self) -> None:
        self.limiter = RateLimitedLog()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        """Wrap unary-request handlers so they receive raw bytes and decode them here."""
        handler = await continuation(handler_call_details)
        method = str(handler_call_details.method)
        if handler is None or method.startswith(EXEMPT_PREFIX) or handler.request_streaming:
            return handler
        decode = self._decoder(handler.request_deserializer, method)
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
                return await inner(await decode(raw, context), context)

            return grpc.unary_unary_rpc_method_handler(
                unary, response_serializer=handler.response_serializer
            )
        if handler.unary_stream is not None:
            inner_stream = handler.unary_stream

            async def stream(raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                # aclosing: when the client goes away the handler's own generator is closed
                # at once (its finally blocks release the stream), not when collected
                request = await decode(raw, context)
                code = "OK"
                try:
                    async with contextlib.aclosing(inner_stream(request, context)) as items:
                        async for item in items:
                            yield item
                except BaseException as exc:  # streams count in the RPC metrics too
                    code = (
                        "CANCELLED"
                        if isinstance(exc, (GeneratorExit, asyncio.CancelledError))
                        else "ERROR"
                    )
                    raise
                finally:
                    RPC_TOTAL.labels(method, code).inc()

            return grpc.unary_stream_rpc_method_handler(
                stream, response_serializer=handler.response_serializer
            )
        return handler

    def _decoder(
        self, deserializer: Callable[[bytes], Any], method: str
    ) -> Callable[[bytes, grpc.aio.ServicerContext], Awaitable[Any]]:
        name = type_name(deserializer)

        async def decode(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
            try:
                request = deserializer(raw)
            except Exception:
                await self._refuse(
                    context, method, InvalidArgument("request", f"is not a valid {name} message")
                )
            try:
                check_request(request)
            except InvalidArgument as exc:
                await self._refuse(context, method, exc)
            return request

        return decode

    async def _refuse(
        self, context: grpc.aio.ServicerContext, method: str, exc: InvalidArgument
    ) -> None:
        """Abort UNAUTHENTICATED without a valid token, else INVALID_ARGUMENT; log rarely."""
        try:
            principal_from_metadata(context.invocation_metadata())
        except Unauthenticated as auth:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(auth))
        client = client_host(context.peer())
        if self.limiter.should_log(client):
            log.info(
                "request refused before its handler",
                extra={"method": method, "client": client, "reason": str(exc)[:200]},
            )
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
