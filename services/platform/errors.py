"""Typed errors shared by every service; grpcx maps each to one gRPC status."""

from __future__ import annotations


class DomainError(Exception):
    """Base of every error a client may see; the message must be safe to show."""


class InvalidArgument(DomainError):
    """A request field is malformed; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class NotFound(DomainError):
    """The game, deck, stream or card asked for does not exist."""


class AlreadyExists(DomainError):
    """The thing to create exists already."""


class RuleViolation(DomainError):
    """The command is well formed but not allowed now (FAILED_PRECONDITION)."""


class VersionConflict(DomainError):
    """Another writer appended first; expected and actual versions differ."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream!r} is at version {actual}, expected {expected}; reload and retry"
        )
        self.stream = stream
        self.expected = expected
        self.actual = actual


class Unavailable(DomainError):
    """A service this one needs did not answer (after retries); the caller may retry."""


class Unauthenticated(DomainError):
    """No token, or a token that is garbage, expired or wrongly signed."""


class PermissionDenied(DomainError):
    """The caller is authenticated but may not act for that seat or call that RPC."""


QUOTE_CHARS = 32


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """Return client input as a short repr for errors and logs (prefix + total length)."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} chars)"
