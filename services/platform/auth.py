"""Bearer JWTs: player tokens (sub = player id) and service tokens for internal calls."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import jwt

from services.platform.errors import PermissionDenied, Unauthenticated, quote
from services.platform.idp import ASYMMETRIC, config_from_env, provider_for

ALGORITHM = "HS256"
ISSUER = "fallen"
DEV_SECRET = "fallen-dev-secret-do-not-use-in-production-0123456789"
MIN_SECRET_BYTES = 32
MAX_VERIFIED = 10_000
# Verified HS256 tokens -> (principal, expiry, secret): a client sends the same token on
# every RPC, so its signature is checked once, not per call; an expired entry is checked
# again (and refused), and so is every entry once the secret changes.
_VERIFIED: dict[str, tuple[Principal, float, str]] = {}


# Player ids nobody signs in as: the matchmaker's bots, services, spectators. Provider
# tokens name players in their own namespace ("<namespace>:<sub>", services.platform.idp),
# and one of our HS256 player tokens naming a reserved id is refused.
RESERVED_PREFIXES = ("bot:", "service:", "spectator:")
RESERVED_IDS = frozenset({"web-spectator", "bots"})
SPECTATOR_KIND = "spectator"


def reserved_id(player_id: str) -> bool:
    """Return whether a player id is one no player token may name (bots, services, ...)."""
    return player_id in RESERVED_IDS or player_id.startswith(RESERVED_PREFIXES)


@dataclass(frozen=True)
class Principal:
    """Who is calling: a player id, a service name, or an anonymous spectator."""

    subject: str
    is_service: bool
    is_spectator: bool = False

    def require_player(self, rpc: str) -> None:
        """Raise PermissionDenied unless the caller is a player (not a service or spectator)."""
        if self.is_service or self.is_spectator:
            raise PermissionDenied(f"{rpc} needs a player token")

    def require_service(self) -> None:
        """Raise PermissionDenied unless the caller is an internal service."""
        if not self.is_service:
            raise PermissionDenied("this RPC is internal: it needs a service token")


def jwt_secret() -> str:
    """Return the signing secret from FALLEN_JWT_SECRET (dev default only with FALLEN_DEV=1)."""
    secret = os.environ.get("FALLEN_JWT_SECRET", "")
    if secret:
        if len(secret.encode()) < MIN_SECRET_BYTES:
            raise RuntimeError("FALLEN_JWT_SECRET must be at least 32 bytes")
        return secret
    if os.environ.get("FALLEN_DEV") == "1":
        return DEV_SECRET
    raise RuntimeError(
        "FALLEN_JWT_SECRET is not set (set FALLEN_DEV=1 to use the local development secret)"
    )


def issue_token(
    subject: str,
    *,
    service: bool = False,
    ttl_s: int = 24 * 3600,
    secret: str | None = None,
    spectator: bool = False,
) -> str:
    """Return a signed token for a player id (or a service name when service=True, or an
    anonymous spectator when spectator=True: it reads what any outsider may, nothing more)."""
    now = int(time.time())
    kind = "service" if service else SPECTATOR_KIND if spectator else "player"
    claims = {"sub": subject, "iss": ISSUER, "iat": now, "exp": now + ttl_s, "kind": kind}
    return jwt.encode(claims, secret or jwt_secret(), algorithm=ALGORITHM)


def verify_token(token: str, secret: str | None = None) -> Principal:
    """Return the principal of a valid token; raise Unauthenticated otherwise.

    HS256 tokens are ours (players and services); RS256/ES256/EdDSA tokens come from the
    identity provider configured in services.platform.idp and always name a player.
    """
    known = _VERIFIED.get(token)
    if known is not None and time.time() < known[1] and known[2] == (secret or jwt_secret()):
        return known[0]
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise Unauthenticated("invalid token: not a JWT") from exc
    alg = header.get("alg")
    if alg in ASYMMETRIC:
        config = config_from_env()
        if config is None:
            raise Unauthenticated(f"invalid token: {alg} tokens are not accepted here")
        return Principal(subject=provider_for(config).verify(token, header), is_service=False)
    if alg != ALGORITHM:
        raise Unauthenticated(f"invalid token: algorithm {quote(str(alg))} is not accepted")
    key = secret or jwt_secret()
    principal, expires = _verify_hs256(token, key)
    if len(_VERIFIED) >= MAX_VERIFIED:
        _VERIFIED.pop(next(iter(_VERIFIED)))  # forget the oldest verified token
    _VERIFIED[token] = (principal, expires, key)
    return principal


def _verify_hs256(token: str, secret: str) -> tuple[Principal, float]:
    """Return the principal of one of our HS256 tokens and when it expires, or raise."""
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["sub", "exp", "iss"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise Unauthenticated("token expired; request a new one") from exc
    except jwt.PyJWTError as exc:
        raise Unauthenticated(f"invalid token: {exc}") from exc
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise Unauthenticated("invalid token: empty subject")
    kind = claims.get("kind")
    if kind == SPECTATOR_KIND:
        return Principal(f"spectator:{sub}", False, is_spectator=True), float(claims["exp"])
    if kind != "service" and reserved_id(sub):
        raise Unauthenticated(f"invalid token: subject {quote(sub)} is reserved (bots, services)")
    return Principal(subject=sub, is_service=kind == "service"), float(claims["exp"])


def principal_from_metadata(metadata: tuple[tuple[str, str | bytes], ...] | None) -> Principal:
    """Return the principal of the 'authorization: Bearer <jwt>' metadata entry."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated("authorization metadata must be 'Bearer <token>'")
            return verify_token(token.strip())
    raise Unauthenticated("missing 'authorization: Bearer <token>' metadata")
