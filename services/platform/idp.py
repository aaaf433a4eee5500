"""Player tokens from an identity provider: RS256, ES256 or EdDSA, checked against its keys.

Configured by the environment (all services read the same):

- ``FALLEN_JWT_JWKS_URL``: the provider's JWKS URL (fetched by PyJWT's PyJWKClient, cached;
  a token with an unknown ``kid`` refetches once per cooldown, so key rotation needs no
  restart), or ``FALLEN_JWT_KEY_FILE``: a JWKS JSON or PEM public key file (re-read when it
  changes).
- ``FALLEN_JWT_ISSUER`` and ``FALLEN_JWT_AUDIENCE`` (both required with a key source).
- ``FALLEN_JWT_LEEWAY_S`` (default 30): clock skew allowed on ``exp``, ``nbf`` and ``iat``.
- ``FALLEN_JWT_JWKS_COOLDOWN_S`` (default 30): least time between two refetches.

Provider tokens always name players (``sub``); service tokens stay HS256 and internal.
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


@dataclass(frozen=True)
class ProviderConfig:
    """Where an identity provider's keys come from and what its tokens must say."""

    jwks_url: str
    key_file: str
    issuer: str
    audience: str
    leeway_s: int = DEFAULT_LEEWAY_S
    cooldown_s: float = DEFAULT_COOLDOWN_S


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
    )


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
        """Return the player id of a valid provider token; raise Unauthenticated otherwise."""
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
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub or len(sub) > 128:
            raise Unauthenticated("invalid token: subject missing or too long")
        return sub


@functools.lru_cache(maxsize=4)
def provider_for(config: ProviderConfig) -> Provider:
    """Return the (cached, so its key cache lives on) verifier of a provider."""
    return Provider(config)
