"""Client-side helpers: service-token metadata and status -> domain error mapping."""

from __future__ import annotations

import time
from typing import NoReturn

import grpc

from services.kernel.auth import issue_token
from services.kernel.errors import (
    AlreadyExists,
    DomainError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RuleViolation,
    Unauthenticated,
    VersionConflict,
)

REFRESH_MARGIN_S = 300


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
    if code in mapping:
        raise mapping[code](msg) from err
    raise err
