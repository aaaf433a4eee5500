"""Client-side helpers: service-token metadata, status -> domain error mapping, retries."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import NoReturn, TypeVar

import grpc
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from services.kernel.auth import issue_token
from services.kernel.errors import (
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

REFRESH_MARGIN_S = 300
T = TypeVar("T")
# statuses a call may meet while the service it calls restarts or moves: retried when the
# call is idempotent (a decision key, or an operation that is the same when repeated)
# A dependency that is down, restarting or killed mid-call answers UNAVAILABLE or
# DEADLINE_EXCEEDED, or, when its connection drops under a call in flight, CANCELLED or
# UNKNOWN ("Stream removed"). Our handlers map every error to a status inside the `rpc`
# wrapper; an exception raised outside it (a bug) would also reach a caller as UNKNOWN and
# be retried like a dropped call, then surface as UNAVAILABLE, never as INTERNAL.
TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
    }
)


class ServiceCredentials:
    """A service token for internal calls, renewed before it expires."""

    def __init__(self, service: str, ttl_s: int = 3600) -> None:
        self.service = service
        self.ttl_s = ttl_s
        self._token = ""
        self._expires = 0.0

    def metadata(self) -> tuple[tuple[str, str], ...]:
        """Return call metadata carrying a valid service token."""
        now = time.time()
        if now > self._expires - REFRESH_MARGIN_S:
            self._token = issue_token(f"service:{self.service}", service=True, ttl_s=self.ttl_s)
            self._expires = now + self.ttl_s
        return (("authorization", f"Bearer {self._token}"),)


def raise_domain_error(err: grpc.aio.AioRpcError) -> NoReturn:
    """Re-raise a remote error as the domain error its status stands for."""
    code, msg = err.code(), err.details() or ""
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        field, _, rest = msg.partition(": ")
        raise InvalidArgument(field, rest or msg) from err
    mapping: dict[grpc.StatusCode, type[DomainError]] = {
        grpc.StatusCode.NOT_FOUND: NotFound,
        grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
        grpc.StatusCode.FAILED_PRECONDITION: RuleViolation,
        grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
        grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    }
    if code == grpc.StatusCode.ABORTED:
        raise VersionConflict("remote", -1, -1) from err
    if code in TRANSIENT:
        raise Unavailable(f"a service this one needs did not answer ({code.name}): {msg}") from err
    if code in mapping:
        raise mapping[code](msg) from err
    raise err


# An internal channel reconnects soon after the service behind it is back (gRPC's default
# backoff grows to 120 s, and a call on a channel waiting to reconnect fails at once).
INTERNAL_CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


def internal_channel(address: str) -> grpc.aio.Channel:
    """Return a channel to another service of the backend (quick to reconnect)."""
    return grpc.aio.insecure_channel(address, options=INTERNAL_CHANNEL_OPTIONS)


@dataclass(frozen=True)
class Retry:
    """How an idempotent internal call is retried on a transient status: attempts in all,
    waits growing exponentially (with jitter) from first_s up to max_s, and a deadline
    per attempt."""

    attempts: int = 8
    first_s: float = 0.1
    max_s: float = 2.0
    timeout_s: float = 30.0


def _transient(exc: BaseException) -> bool:
    return isinstance(exc, grpc.aio.AioRpcError) and exc.code() in TRANSIENT


async def call(rpc: Callable[[float], Awaitable[T]], retry: Retry, idempotent: bool = True) -> T:
    """Return rpc(timeout)'s answer, retrying a transient status while the call is
    idempotent (tenacity); a status the callee refused with becomes its domain error."""
    retrying = AsyncRetrying(
        stop=stop_after_attempt(retry.attempts if idempotent else 1),
        wait=wait_exponential_jitter(
            multiplier=retry.first_s, max=retry.max_s, jitter=retry.first_s
        ),
        retry=retry_if_exception(_transient),
        reraise=True,
    )
    try:
        async for attempt in retrying:
            with attempt:
                return await rpc(retry.timeout_s)
    except grpc.aio.AioRpcError as err:
        raise_domain_error(err)
    raise AssertionError("tenacity stops by raising")  # pragma: no cover
