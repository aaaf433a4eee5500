"""Player tokens from an identity provider: RS256, ES256 or EdDSA, checked against its keys.

Configured by the environment (all services read the same):

- ``FALLEN_JWT_JWKS_URL``: the provider's JWKS URL (fetched by PyJWT's PyJWKClient, cached;
  a token with an unknown ``kid`` refetches once per cooldown, so key rotation needs no
  restart), or ``FALLEN_JWT_KEY_FILE``: a JWKS JSON or PEM public key file (re-read when it
  changes).
- ``FALLEN_JWT_ISSUER`` and ``FALLEN_JWT_AUDIENCE`` (both required with a key source).
- ``FALLEN_JWT_LEEWAY_S`` (default 30): clock skew allowed on ``exp``, ``nbf`` and ``iat``.
- ``FALLEN_JWT_JWKS_COOLDOWN_S`` (default 30): least time between two refetches.
- ``FALLEN_JWT_NAMESPACE`` (default ``idp``): the provider's player ids are
  ``<namespace>:<sub>``, so no provider token can name a bot (``bot:...``), a service or a
  spectator, nor a player of another provider or of our own HS256 tokens.

Provider tokens always name players; service tokens stay HS256 and internal.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from jwt import PyJWK, PyJWKClient, PyJWKSet

from services.platform.errors import Unauthenticated, quote

ASYMMETRIC = ("RS256", "ES256", "EdDSA")
DEFAULT_LEEWAY_S = 30
DEFAULT_COOLDOWN_S = 30.0
DEFAULT_NAMESPACE = "idp"
MAX_SUB = 128


@dataclass(frozen=True)
class ProviderConfig:
    """Where an identity provider's keys come from and what its tokens must say."""

    jwks_url: str
    key_file: str
    issuer: str
    audience: str
    leeway_s: int = DEFAULT_LEEWAY_S
    cooldown_s: float = DEFAULT_COOLDOWN_S
    namespace: str = DEFAULT_NAMESPACE


def config_from_env() -> ProviderConfig | None:
    """Return the provider configured in the environment, or None (HS256 only)."""
    url = os.environ.get("FALLEN_JWT_JWKS_URL", "")
    key_file = os.environ.get("FALLEN_JWT_KEY_FILE", "")
    if not url and not key_file:
        return None
    issuer = os.environ.get("FALLEN_JWT_ISSUER", "")
    audience = os.environ.get("FALLEN_JWT_AUDIENCE", "")
    if not issuer or not audience:
        raise RuntimeError("an identity provider needs FALLEN_JWT_ISSUER and FALLEN_JWT_AUDIENCE")
    return ProviderConfig(
        url,
        key_file,
        issuer,
        audience,
        int(os.environ.get("FALLEN_JWT_LEEWAY_S", DEFAULT_LEEWAY_S)),
        float(os.environ.get("FALLEN_JWT_JWKS_COOLDOWN_S", DEFAULT_COOLDOWN_S)),
        namespace_from_env(),
    )


def namespace_from_env() -> str:
    """Return FALLEN_JWT_NAMESPACE (default idp): letters, digits, '.', '-' and '_' only."""
    ns = os.environ.get("FALLEN_JWT_NAMESPACE", DEFAULT_NAMESPACE)
    if not ns or not all(c.isascii() and (c.isalnum() or c in ".-_") for c in ns):
        raise RuntimeError("FALLEN_JWT_NAMESPACE must be letters, digits, '.', '-' or '_'")
    if ns in ("bot", "service", "spectator"):
        raise RuntimeError(f"FALLEN_JWT_NAMESPACE {ns!r} is reserved")
    return ns


class KeyFile:
    """Signing keys from a JWKS or PEM file, re-read when the file changes."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self._stamp: tuple[float, int] | None = None
        self._keys: dict[str, PyJWK] = {}
        self._pem: bytes | None = None

    def key_for(self, kid: str | None) -> Any:
        """Return the verification key for a token's kid."""
        stat = self.path.stat()
        if (stat.st_mtime, stat.st_size) != self._stamp:
            self._load()
            self._stamp = (stat.st_mtime, stat.st_size)
        if self._pem is not None:
            return self._pem
        if kid is None or kid not in self._keys:
            raise Unauthenticated(f"invalid token: no key with kid {quote(kid or '')}")
        return self._keys[kid].key

    def _load(self) -> None:
        raw = self.path.read_bytes()
        if raw.lstrip().startswith(b"{"):
            keyset = PyJWKSet.from_dict(json.loads(raw))
            self._keys = {k.key_id: k for k in keyset.keys if k.key_id}
            self._pem = None
        else:
            self._pem = raw


class Provider:
    """Verifies one identity provider's tokens."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self._client = (
            PyJWKClient(
                config.jwks_url, cache_keys=True, lifespan=300, cooldown_duration=config.cooldown_s
            )
            if config.jwks_url
            else None
        )
        self._file = KeyFile(config.key_file) if config.key_file else None

    def _key(self, token: str, kid: str | None) -> Any:
        if self._client is not None:
            try:
                return self._client.get_signing_key_from_jwt(token).key
            except jwt.PyJWKClientConnectionError as exc:
                raise Unauthenticated("the identity provider's keys are unavailable") from exc
            except jwt.PyJWKClientError as exc:
                raise Unauthenticated(f"invalid token: no key with kid {quote(kid or '')}") from exc
        assert self._file is not None
        return self._file.key_for(kid)

    def verify(self, token: str, header: dict[str, Any]) -> str:
        """Return the player id (``<namespace>:<sub>``) of a valid provider token; raise
        Unauthenticated otherwise."""
        key = self._key(token, header.get("kid"))
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=list(ASYMMETRIC),
                issuer=self.config.issuer,
                audience=self.config.audience,
                leeway=self.config.leeway_s,
                options={"require": ["sub", "exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise Unauthenticated("token expired; request a new one") from exc
        except jwt.ImmatureSignatureError as exc:
            raise Unauthenticated("token not yet valid (nbf/iat in the future)") from exc
        except jwt.PyJWTError as exc:
            raise Unauthenticated(f"invalid token: {exc}") from exc
        except (TypeError, ValueError) as exc:  # a kid naming a key of another type
            raise Unauthenticated(
                f"invalid token: key {quote(header.get('kid') or '')} does not fit "
                f"algorithm {quote(str(header.get('alg')))}"
            ) from exc
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub or len(sub) > MAX_SUB:
            raise Unauthenticated("invalid token: subject missing or too long")
        return f"{self.config.namespace}:{sub}"


@functools.lru_cache(maxsize=4)
def provider_for(config: ProviderConfig) -> Provider:
    """Return the (cached, so its key cache lives on) verifier of a provider."""
    return Provider(config)
