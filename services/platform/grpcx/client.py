"""Client-side helpers: service-token metadata, status -> domain error mapping, retries."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, NoReturn, TypeVar

import grpc
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from services.platform.auth import issue_token
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

REFRESH_MARGIN_S = 300
T = TypeVar("T")
S = TypeVar("S")
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
# A server without the method called: our services are deployed together, so this is not
# a refusal but the wrong peer, an address that answered as another of our services (a
# container restarted into the address another one left, or a rolling deploy mid-way).
# Nothing was applied there, so the call is repeated on a new channel, whatever its kind.
WRONG_PEER = grpc.StatusCode.UNIMPLEMENTED


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
    if code == WRONG_PEER:
        what = "its address answered as another service (UNIMPLEMENTED)"
        raise Unavailable(f"a service this one needs is not reachable: {what}: {msg}") from err
    if code in mapping:
        raise mapping[code](msg) from err
    raise err


# An internal channel reconnects soon after the service behind it is back (gRPC's default
# backoff grows to 120 s, and a call on a channel waiting to reconnect fails at once), and
# spreads its calls over every replica of the pool its name resolves to (round_robin over
# the DNS answer: a headless Service in Kubernetes, a scaled service in compose; gRPC's
# default, pick_first, would send every call to one replica). Servers close connections
# after MAX_CONNECTION_AGE_S (services/platform/grpcx/server.py), so a client resolves the
# name again and finds replicas added since.
INTERNAL_CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.dns_min_time_between_resolutions_ms", 5000),
)
SCHEMES = ("dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:")


def pool_target(address: str) -> str:
    """Return the gRPC target of a pool: `dns:///host:port` for a plain host:port (every
    address the name resolves to is a replica), any other target as given."""
    if address.startswith(SCHEMES):
        return address
    return f"dns:///{address}"


def internal_channel(address: str) -> grpc.aio.Channel:
    """Return a channel to a pool of another service of the backend (round robin over its
    replicas, quick to reconnect)."""
    return grpc.aio.insecure_channel(pool_target(address), options=INTERNAL_CHANNEL_OPTIONS)


class Reconnecting:
    """A channel to another service of the backend that can be made anew: a channel stays
    connected to the address it resolved, so when that address answers as another service
    (WRONG_PEER) only a new channel resolves the name again. Replaced channels are closed
    with the last one (calls still in flight on them finish)."""

    def __init__(
        self, address: str, make: Callable[[str], grpc.aio.Channel] = internal_channel
    ) -> None:
        self.address = address
        self._make = make
        self.channel = make(address)
        self.replaced: list[grpc.aio.Channel] = []

    def reconnect(self) -> None:
        """Use a new channel from now on (the name is resolved again)."""
        self.replaced.append(self.channel)
        self.channel = self._make(self.address)

    async def close(self, grace: float | None = None) -> None:
        """Close every channel this one made."""
        for channel in [*self.replaced, self.channel]:
            await channel.close(grace)


class Stubs(Generic[S]):
    """The stub of a channel, or of a Reconnecting channel's current one."""

    def __init__(
        self, channel: grpc.aio.Channel | Reconnecting, make: Callable[[grpc.aio.Channel], S]
    ) -> None:
        self._source = channel
        self._make = make
        self._channel: grpc.aio.Channel | None = None
        self._stub: S | None = None

    def get(self) -> S:
        """Return the stub of the channel in use."""
        src = self._source
        channel = src.channel if isinstance(src, Reconnecting) else src
        if self._stub is None or channel is not self._channel:
            self._channel, self._stub = channel, self._make(channel)
        return self._stub

    def reconnect(self) -> Callable[[], None] | None:
        """Return what renews the channel after a WRONG_PEER answer (None: it cannot)."""
        return self._source.reconnect if isinstance(self._source, Reconnecting) else None


@dataclass(frozen=True)
class Retry:
    """How an idempotent internal call is retried on a transient status: attempts in all,
    waits growing exponentially (with jitter) from first_s up to max_s, and a deadline
    per attempt."""

    attempts: int = 8
    first_s: float = 0.1
    max_s: float = 2.0
    timeout_s: float = 30.0


def _code(exc: BaseException | None) -> grpc.StatusCode | None:
    return exc.code() if isinstance(exc, grpc.aio.AioRpcError) else None


async def call(
    rpc: Callable[[float], Awaitable[T]],
    retry: Retry,
    idempotent: bool = True,
    reconnect: Callable[[], None] | None = None,
) -> T:
    """Return rpc(timeout)'s answer, retrying a transient status while the call is
    idempotent (tenacity), and a WRONG_PEER answer on a new channel when reconnect can
    make one (nothing was applied, so any call); a status the callee refused with
    becomes its domain error."""

    def again(exc: BaseException) -> bool:
        code = _code(exc)
        if code == WRONG_PEER:
            return reconnect is not None
        return idempotent and code in TRANSIENT

    def before_sleep(state: RetryCallState) -> None:
        if reconnect is not None and state.outcome is not None:
            if _code(state.outcome.exception()) == WRONG_PEER:
                reconnect()

    retrying = AsyncRetrying(
        stop=stop_after_attempt(retry.attempts),
        wait=wait_exponential_jitter(
            multiplier=retry.first_s, max=retry.max_s, jitter=retry.first_s
        ),
        retry=retry_if_exception(again),
        before_sleep=before_sleep,
        reraise=True,
    )
    try:
        async for attempt in retrying:
            with attempt:
                return await rpc(retry.timeout_s)
    except grpc.aio.AioRpcError as err:
        raise_domain_error(err)
    raise AssertionError("tenacity stops by raising")  # pragma: no cover
