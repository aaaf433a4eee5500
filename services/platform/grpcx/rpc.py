"""The decorator every RPC handler uses: auth, error mapping, logs and metrics."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from prometheus_client import Counter, Histogram

from services.platform.auth import Principal, principal_from_metadata
from services.platform.errors import (
    AlreadyExists,
    DomainError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RuleViolation,
    Unauthenticated,
    Unavailable,
    VersionConflict,
)
from services.platform.quotas import QuotaExceeded
from services.platform.store.base import one_fsync

log = logging.getLogger("fallen.rpc")

RPC_TOTAL = Counter("fallen_rpc_total", "RPCs handled", ["method", "code"])
RPC_SECONDS = Histogram("fallen_rpc_seconds", "RPC handling time", ["method"])

STATUS_OF: list[tuple[type[DomainError], grpc.StatusCode]] = [
    (InvalidArgument, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (AlreadyExists, grpc.StatusCode.ALREADY_EXISTS),
    (RuleViolation, grpc.StatusCode.FAILED_PRECONDITION),
    (VersionConflict, grpc.StatusCode.ABORTED),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (QuotaExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED),
]

MAX_REASON = 500  # characters of an error sent to a client or logged (a backstop: errors
# quote client input with errors.quote already)

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Handler = Callable[[Any, Any, grpc.aio.ServicerContext, Principal], Awaitable[Any]]


def bounded_reason(text: str, limit: int = MAX_REASON) -> str:
    """Return an error text cut to limit characters, saying so when cut."""
    return text if len(text) <= limit else f"{text[:limit]}... (error text cut)"


def status_for(exc: DomainError) -> grpc.StatusCode:
    """Return the gRPC status a domain error maps to."""
    for cls, code in STATUS_OF:
        if isinstance(exc, cls):
            return code
    return grpc.StatusCode.FAILED_PRECONDITION


ANONYMOUS = Principal(subject="spectator:anonymous", is_service=False, is_spectator=True)


def caller(metadata: tuple[tuple[str, str | bytes], ...] | None, public: bool = False) -> Principal:
    """Return the caller of an RPC; a public RPC called without a token is ANONYMOUS (a
    token that is sent must still be valid)."""
    if public and not any(k.lower() == "authorization" for k, _ in metadata or ()):
        return ANONYMOUS
    return principal_from_metadata(metadata)


def public_rpc(
    fn: Handler,
) -> Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[Any]]:
    """Like rpc, for RPCs anyone may call without a token (as an anonymous spectator)."""
    return rpc(fn, public=True)


def error_details(
    exc: DomainError, code: grpc.StatusCode, reason: str
) -> tuple[tuple[str, bytes], ...]:
    """Return the trailing metadata of a refusal: a google.rpc.Status with RetryInfo for a
    used-up quota (what grpc_status.rpc_status.from_call reads), else nothing."""
    if not isinstance(exc, QuotaExceeded):
        return ()
    from google.protobuf import any_pb2, duration_pb2
    from google.rpc import error_details_pb2, status_pb2

    delay = duration_pb2.Duration()
    delay.FromNanoseconds(max(1, int(exc.retry_after_s * 1e9)))
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    status = status_pb2.Status(code=code.value[0], message=reason, details=[detail])
    return (("grpc-status-details-bin", status.SerializeToString()),)


def rpc(
    fn: Handler, *, public: bool = False
) -> Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[Any]]:
    """Wrap a handler(self, request, context, principal): authenticate, map errors, measure.

    A servicer with an ``event_store`` runs each call as one group commit on it: the call's
    appends share one fsync, and the answer waits until everything it read is durable."""
    method = fn.__qualname__

    @functools.wraps(fn)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        start = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            principal = caller(context.invocation_metadata(), public)
            store = getattr(self, "event_store", None)
            if store is None:
                return await fn(self, request, context, principal)
            # nothing the handler read or appended is answered before it is durable (a
            # group commit's appends are fsynced when the block ends; sqlite_sync.py)
            async with one_fsync(store):
                return await fn(self, request, context, principal)
        except DomainError as exc:
            code = status_for(exc)
            reason = bounded_reason(str(exc))
            log.info("rpc refused", extra={"method": method, "code": code.name, "reason": reason})
            await context.abort(code, reason, error_details(exc, code, reason))
        except Exception:
            code = grpc.StatusCode.INTERNAL
            log.exception("rpc failed", extra={"method": method})
            await context.abort(code, "internal error; the request was not applied")
        finally:
            RPC_TOTAL.labels(method, code.name).inc()
            RPC_SECONDS.labels(method).observe(time.perf_counter() - start)

    return wrapper


def require(value: Any, field: str, message: str = "is required") -> None:
    """Raise InvalidArgument naming field unless value is truthy."""
    if not value:
        raise InvalidArgument(field, message)
